"""What a replay gives back: its result, the lines that did not apply, and
the error that stops it.

`ReplayResult` holds the frames (timeline, balances, deliveries), the line
counts and every `LineError`, and writes the few lines of `summary()` for a
terminal or a notebook; `ReplayError` carries the partial result of a replay
that stopped at a line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from ..display import DEFAULT_CURRENCY, format_count, format_money
from ..rich_summary import Summary, Table, currency_of
from ..sim import format_instant
from .timeline import balance_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LineError", "ReplayError", "ReplayResult", "unrouted_receivers"]


@dataclass(frozen=True, slots=True)
class LineError:
    """A line that did not apply: malformed, refused, or an internal error."""

    line: int
    kind: Literal["malformed", "refused", "internal"]
    key: str
    message: str
    status: int | None = None
    op: str | None = None

    def __str__(self) -> str:
        status = f" {self.status}" if self.status is not None else ""
        return f"line {self.line}: {self.kind}{status} {self.key}: {self.message}"


@dataclass(slots=True)
class ReplayResult:
    """What a replay did.

    `timeline`: one row per line (docs/replay.md for columns and dtypes);
    `balances`: tidy balance changes (line 0 = opening balances);
    `deliveries`: the webhook delivery attempts made during the replay, with
    the `line` that made each; `applied` / `refused` / `skipped`: line counts
    (ok, refused by the simulator, malformed and skipped); `errors`: every
    line that did not apply, in order.
    """

    timeline: pd.DataFrame
    balances: pd.DataFrame
    deliveries: pd.DataFrame
    applied: int
    refused: int
    skipped: int
    errors: list[LineError] = field(default_factory=list)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    #: Wall-clock seconds the replay took (not part of any frame: frames are
    #: deterministic, this is not).
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every line applied (no refusal, no malformed line)."""
        return not self.errors

    @property
    def lines(self) -> int:
        return len(self.timeline)

    def balance_table(self, kind: Literal["card", "gift"] | None = None) -> pd.DataFrame:
        """Balances wide: index `line` (0 = opening, then every timeline line),
        one Int64 column per account (card id / gift voucher code), forward filled."""
        return balance_table(self.balances, self.timeline["line"], kind=kind)

    def summary(self, currency: str = DEFAULT_CURRENCY) -> str:
        """A few lines for a terminal or a notebook; gift card amounts in `currency`
        (the scenario's `project.currency`: the simulator does not keep it)."""
        tl = self.timeline
        out = [f"{self.lines} lines: {self.applied} applied, {self.refused} refused, {self.skipped} skipped"]
        if self.started_at is not None and self.ended_at is not None:
            out.append(f"simulated time: {format_instant(self.started_at)} -> {format_instant(self.ended_at)}")
        if len(tl):
            out.append("operations:")
            out.extend(f"  {op:<17} {parts}" for op, parts in self._per_operation())
            unreadable = int(tl["op"].isna().sum())
            if unreadable:
                out.append(f"  {'(unreadable)':<17} {unreadable}")
        if len(self.deliveries):
            by = self.deliveries["outcome"].value_counts()
            attempts = "webhook attempts: " + ", ".join(f"{k} {v}" for k, v in by.items() if v)
            unheard = unrouted_receivers(self.deliveries)
            if unheard:  # an error with a cause the reader can fix: say which
                attempts += f" (no receiver registered under {', '.join(map(repr, unheard))})"
            out.append(attempts)
        if len(tl):
            last = tl.iloc[-1]
            out.append(
                f"final: {last['publications']} publications, {last['pending_purchases']} pending purchases, "
                f"{last['pending_deliveries']} pending deliveries"
            )
        issued, moves = self._issued(currency), self._largest_moves(currency)
        if issued:
            out.append("issued: " + ", ".join(f"{account} to {owner} ({amount})" for account, owner, amount in issued[:5])
                       + (f", ... {len(issued) - 5} more" if len(issued) > 5 else ""))
        if moves:
            out.append("largest balance moves: " + ", ".join(f"{account} {amount}" for account, amount in moves))
        for err in self.errors[:5]:
            out.append(f"  ! {err}")
        if len(self.errors) > 5:
            out.append(f"  ! ... {len(self.errors) - 5} more")
        if self.elapsed > 0:
            out.append(f"wall time: {self.elapsed:.2f} s ({self.lines / self.elapsed:,.0f} lines/s)")
        return "\n".join(out)

    def _per_operation(self) -> list[tuple[str, str]]:
        """Per operation: its lines by outcome (`ok 3, refused 1`)."""
        counts = self.timeline.groupby(["op", "outcome"], observed=True).size()
        return [(str(op), ", ".join(f"{outcome} {n}" for (_, outcome), n in group.items()))
                for op, group in counts.groupby(level=0, observed=True)]

    def _first_owned(self) -> pd.Series:
        # an account that gets its first owner at a line was issued there (a gift card
        # from a reward): its balance is where it starts, not a move of money
        bal = self.balances
        return bal["owner"].notna() & bal.groupby("account", observed=True)["owner"].shift().isna()

    def _issued(self, currency: str) -> list[tuple[str, str, str]]:
        """Accounts issued during the replay: (account, owner, opening balance)."""
        bal = self.balances
        issued = bal[(bal["line"] > 0) & self._first_owned()]
        return [(str(row.account), str(row.owner), _amount(row.kind, row.balance, currency))
                for row in issued.itertuples()]

    def _largest_moves(self, currency: str, top: int = 5) -> list[tuple[str, str]]:
        """The accounts whose balance moved most over the replay: (account, signed move)."""
        bal = self.balances
        changed = bal[(bal["line"] > 0) & ~self._first_owned()]
        if not len(changed):
            return []
        moved = changed.groupby("account", observed=True)["change"].sum()
        kinds = changed.groupby("account", observed=True)["kind"].first()
        largest = moved.abs().sort_values(ascending=False, kind="stable").head(top)
        return [(str(a), _amount(kinds[a], moved[a], currency, signed=True)) for a in largest.index]

    def __repr__(self) -> str:
        return (f"<ReplayResult {format_count(self.lines)} lines: {format_count(self.applied)} applied, "
                f"{format_count(self.refused)} refused, {format_count(self.skipped)} skipped>")

    def _repr_html_(self) -> str:
        """Counts, per operation, the lines that did not apply, balances that moved."""
        currency = currency_of(self)
        facts = [("lines", format_count(self.lines)), ("applied", format_count(self.applied)),
                 ("refused", format_count(self.refused)), ("skipped", format_count(self.skipped))]
        if self.started_at is not None and self.ended_at is not None:
            facts.append(("simulated time", f"{format_instant(self.started_at)} -> {format_instant(self.ended_at)}"))
        if len(self.deliveries):
            by = self.deliveries["outcome"].value_counts()
            facts.append(("webhook attempts", ", ".join(f"{k} {v}" for k, v in by.items() if v)))
        tables = [Table("per operation", ("operation", "lines"), tuple(self._per_operation()) if self.lines else ())]
        if self.errors:
            tables.append(Table("lines that did not apply", ("line", "kind", "status", "key", "message"), tuple(
                (str(e.line), e.kind, "" if e.status is None else str(e.status), e.key, e.message)
                for e in self.errors)))
        moves = self._largest_moves(currency)
        if moves:
            tables.append(Table("largest balance moves", ("account", "move"), tuple(moves)))
        return Summary("ReplayResult", facts, tables).html()


def _amount(kind: object, value: object, currency: str, *, signed: bool = False) -> str:
    """A gift card's balance is money; a loyalty card's, points."""
    if str(kind) == "gift":
        return format_money(value, currency, signed=signed)
    return f"{format_count(value, signed=signed)} points"


def unrouted_receivers(deliveries: pd.DataFrame) -> list[str]:
    """The in-process receivers (`receiver: NAME` webhooks) that got attempts while
    no receiver was registered under their name (outcome `error`), sorted."""
    if not len(deliveries):
        return []
    lost = deliveries["error"].str.startswith("no receiver registered", na=False).to_numpy(dtype=bool)
    targets = deliveries["target"][lost].dropna().astype(str)
    return sorted({t.removeprefix("receiver://") for t in targets if t.startswith("receiver://")})


class ReplayError(Exception):
    """The replay stopped at a line.

    `.line`, `.key` (format key, refusal key or `internal_error`), `.kind`
    ("malformed" | "refused" | "internal"), `.status` (refusals), `.message`,
    and `.result`: the partial `ReplayResult`, whose timeline ends with the
    failing line (every line before it applied; nothing of it did, except an
    internal error, after which the state is not to be trusted).
    """

    def __init__(self, error: LineError, result: ReplayResult) -> None:
        super().__init__(str(error))
        self.error = error
        self.line = error.line
        self.key = error.key
        self.kind = error.kind
        self.status = error.status
        self.message = error.message
        self.result = result
