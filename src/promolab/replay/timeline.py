"""The timeline: one row per replayed line, and the balances beside it.

Columns and dtypes are fixed (docs/replay.md, "Timeline"):

    line            int64            line number in the source (1-based)
    time            datetime64[us, UTC]  simulated time after the line (clock unchanged for a malformed line)
    op              category         canonical operation (categories: every known operation); NA if unreadable
    outcome         category         "ok", or the error key (refusal or malformed line)
    status          Int64            HTTP-equivalent status: 200/202/204 on success, the
                                     refusal's status (500: internal error); NA if malformed
    result          string           short summary of what the operation returned, for people
                                     (money via promolab.display, in USD: the timeline does not
                                     know the scenario's currency; points as points); NA on failure
    tiers           Int64            validate: number of applicable tiers; NA for other operations
    best_tier       string           validate: id of the tier with the largest total discount
    best_discount   Int64            validate: that discount, in cents
    publications    int64            counts after the line: publications,
    events          int64              tracked custom events,
    conversions     int64              referral conversions,
    pending_purchases int64            reward purchases still PENDING,
    deliveries      int64              webhook delivery attempts logged,
    pending_deliveries int64           sendouts waiting for a retry
    message         string           why the line failed; NA on success
    note            string           the line's "note", if any

Balances are a tidy companion frame (`balances_frame`), one row per account
whose balance changed at a line, plus the opening balance of every account at
line 0; `balance_table` pivots it wide (one column per account, forward
filled). Tidy, because a scenario may hold thousands of cards: the timeline
must not grow a column per card, and a replay must not copy every balance
after every line.

Key state is followed incrementally, so a line costs O(what it touched): new
card transactions name the cards that moved (the card ledger is the only
writer of balances), new voucher transactions, new vouchers and the `code`
of `add_gift_balance` name the gift vouchers, and PENDING purchases are
re-checked only when the clock moved (they settle only on the clock).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..display import format_money, format_points
from .reader import ADVANCE, known_operations

if TYPE_CHECKING:
    import pandas as pd

    from ..sim.simulator import Simulator

__all__ = [
    "BALANCE_COLUMNS",
    "SUCCESS_STATUS",
    "TIMELINE_COLUMNS",
    "TimelineBuilder",
    "balance_table",
    "duration",
    "summarize",
]

TIMELINE_COLUMNS = [
    "line", "time", "op", "outcome", "status", "result", "tiers", "best_tier", "best_discount",
    "publications", "events", "conversions", "pending_purchases", "deliveries", "pending_deliveries",
    "message", "note",
]
_COUNTS = ("publications", "events", "conversions", "pending_purchases", "deliveries", "pending_deliveries")
BALANCE_COLUMNS = ["line", "time", "kind", "account", "owner", "balance", "change"]
BALANCE_KINDS = ["card", "gift"]

#: Status of a successful line, as the HTTP face answers it (default 200).
SUCCESS_STATUS: dict[str, int] = {"purchase_reward": 202, "delete_webhook": 204}


def _get(obj: Any, *path: str) -> Any:
    """Read `a.b.c` from a wire model or a JSON dict alike (None if absent)."""
    for name in path:
        if obj is None:
            return None
        obj = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return obj


def _field(obj: Any, name: str) -> Any:
    """`_get(obj, name)` for one name: the summaries of the frequent
    operations read a few fields a line, and the loop over a path costs more
    than the read."""
    if obj is None:
        return None
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _text(value: Any) -> str:
    return str(getattr(value, "value", value))


def duration(delta: timedelta | float) -> str:
    """`1d 2h 3m 4s` (fractions of a second as `0.5s`)."""
    seconds = delta.total_seconds() if isinstance(delta, timedelta) else float(delta)
    seconds_int = int(seconds)
    if seconds_int != seconds:
        return f"{seconds:g}s"
    days, rest = divmod(seconds_int, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")) if n]
    return " ".join(parts) or "0s"


Summary = tuple[str, int | None, str | None, int | None]


def summarize(op: str, args: dict[str, Any], result: Any) -> Summary:
    """(summary, tiers, best_tier, best_discount) for a successful line.

    The summary is text for people: money through `display.format_money`
    (`GIFT-ALICE-50 +$25.00 -> balance $75.00`, in the default currency, USD:
    the simulator does not keep the scenario's), points with their unit
    (`-300 points`). The numeric columns (`best_discount`) stay in cents."""
    summary = _SUMMARIES.get(op)
    if summary is None:
        return type(result).__name__ if result is not None else "ok", None, None, None
    return summary(args, result)


def _validate_summary(args: dict[str, Any], result: Any) -> Summary:
    promotions = _field(result, "promotions") or []
    best_id, best = None, None
    for tier in promotions:
        amount = _field(_field(tier, "order"), "total_discount_amount")
        if amount is None:
            amount = _field(tier, "discount_amount") or 0
        if best is None or amount > best:
            best_id, best = _field(tier, "id"), amount
    if not promotions:
        return "no tier applies", 0, None, None
    count = len(promotions)
    tiers = f"{count} tier" if count == 1 else f"{count} tiers"
    return f"{tiers}; best {best_id} {format_money(-(best or 0))}", count, best_id, best


# The summaries of the frequent operations read the answer's attributes
# directly (the answer is a wire model); a dict, or an object missing one of
# them, raises AttributeError and is read field by field, to the same text.


def _publish_summary(args: dict[str, Any], result: Any) -> Summary:
    try:
        code, who = result.voucher.code, result.tracking_id or result.customer_id
    except AttributeError:
        code = _field(_field(result, "voucher"), "code")
        who = _field(result, "tracking_id") or _field(result, "customer_id")
    return f"{code} -> {who}", None, None, None


def _track_event_summary(args: dict[str, Any], result: Any) -> Summary:
    try:
        customer = result.customer
        who, kind = customer.source_id or customer.id, result.type
    except AttributeError:
        customer = _field(result, "customer")
        who, kind = _field(customer, "source_id") or _field(customer, "id"), _field(result, "type")
    return f"{kind or args.get('request', {}).get('event')} by {who}", None, None, None


def _purchase_summary(args: dict[str, Any], result: Any) -> Summary:
    status = _field(result, "status")
    tx = _field(result, "transaction")
    if tx is None:
        return _text(status), None, None, None
    text = f"{_text(status)} {_field(tx, 'id')} {_text(_field(tx, 'status'))}"
    cost = _get(tx, "details", "points", "total")  # the reward's price, spent from the card
    if isinstance(cost, int) and not isinstance(cost, bool):
        text += f" {format_points(-cost, signed=True)}"
    return text, None, None, None


def _gift_summary(args: dict[str, Any], result: Any) -> Summary:
    try:
        amount, balance = result.amount, result.balance
    except AttributeError:
        amount, balance = _field(result, "amount"), _field(result, "balance")
    return (f"{args.get('code')} {format_money(amount, signed=True)} -> balance {format_money(balance)}",
            None, None, None)


def _status_summary(args: dict[str, Any], result: Any) -> Summary:
    return f"{_get(result, 'id')} {_text(_get(result, 'status'))}", None, None, None


def _delete_webhook_summary(args: dict[str, Any], result: Any) -> Summary:
    return f"{args.get('webhook_id')} deleted", None, None, None


def _advance_summary(args: dict[str, Any], result: Any) -> Summary:
    return f"clock +{duration(float(args.get('seconds', 0)))}", None, None, None


#: The summary of each operation's result (any other: the result's type name).
_SUMMARIES: dict[str, Callable[[dict[str, Any], Any], Summary]] = {
    "validate": _validate_summary,
    "publish": _publish_summary,
    "track_event": _track_event_summary,
    "purchase_reward": _purchase_summary,
    "add_gift_balance": _gift_summary,
    "delete_reward": _status_summary,
    "delete_webhook": _delete_webhook_summary,
    ADVANCE: _advance_summary,
    "get_incentive": _status_summary,
}


def _tail(mapping: dict[str, Any], count: int) -> Iterator[Any]:
    """The last `count` values of an insertion-ordered dict, newest first."""
    return islice(reversed(mapping.values()), count)


class TimelineBuilder:
    """Accumulates timeline rows and balance changes while a replay runs.

    Rows are kept as tuples and turned into typed columns once, at the end:
    a line costs a few `len()` calls, one tuple and what it touched. The
    validation columns, empty on all but the `validate` lines, are kept
    aside by row (`_validations`) rather than in every row."""

    # What `_follow` sets: the state followed and its counters at the last line.
    _state: Any
    _n_tx: int
    _pending: set[str]
    _n_vtx: int
    _n_vouchers: int
    delivery_start: int
    _n_deliveries: int

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        st = sim.state
        self._follow(st)
        #: Replay line of every delivery attempt logged during the replay.
        self.delivery_lines: list[int] = []
        #: Attempts logged during the replay in states since replaced (`_rebase`).
        self._earlier_deliveries: list[Any] = []
        self._cards: dict[str, int] = {}
        self._gifts: dict[str, int] = {}
        #: (line, time, op, outcome, status, result, message, note, *counts): `_ROW_COLUMNS`.
        self._rows: list[tuple[Any, ...]] = []
        #: row index -> (tiers, best_tier, best_discount), for the `validate` lines.
        self._validations: dict[int, tuple[int | None, str | None, int | None]] = {}
        self._bal: list[tuple[Any, ...]] = []
        now = sim.now
        for card in st.cards.values():
            self._cards[card.id] = card.balance
            self._bal.append((0, now, "card", card.id, card.member_id, card.balance, None))
        for voucher in st.vouchers.values():
            if voucher.gift is not None:
                self._gifts[voucher.id] = voucher.gift.balance
                self._bal.append((0, now, "gift", voucher.code, voucher.holder_id, voucher.gift.balance, None))

    def __len__(self) -> int:
        return len(self._rows)

    # -- per line ------------------------------------------------------------
    def add(
        self,
        line: int,
        now: datetime,
        op: str | None,
        outcome: str,
        status: int | None,
        result: str | None = None,
        message: str | None = None,
        note: str | None = None,
        clock_moved: bool = False,
        gift_code: str | None = None,
        validation: tuple[int | None, str | None, int | None] | None = None,
    ) -> None:
        """One row; the key state is read after the line (cheaply). `now` is
        the clock after the line (the caller has it at hand); `validation`
        is (tiers, best_tier, best_discount) of a validate line."""
        st = self.sim.state
        if st is not self._state:
            self._rebase(line, now, st)
        cards: set[str] | None = None
        gifts: set[str] | None = None
        # card transactions: new ones, and PENDING ones settled by the clock
        n_tx = len(st.card_transactions)
        if n_tx != self._n_tx:
            cards = self._new_card_transactions(st.card_transactions, n_tx - self._n_tx)
            self._n_tx = n_tx
        if clock_moved and self._pending:
            cards = self._settled_cards(st.card_transactions, cards)
        # gift vouchers: new voucher transactions, new vouchers, the line's code
        n_vtx = len(st.voucher_transactions)
        if n_vtx != self._n_vtx:
            gifts = {vt.voucher_id for vt in _tail(st.voucher_transactions, n_vtx - self._n_vtx)}
            self._n_vtx = n_vtx
        n_vouchers = len(st.vouchers)
        if n_vouchers != self._n_vouchers:
            gifts = gifts if gifts is not None else set()
            gifts.update(v.id for v in _tail(st.vouchers, n_vouchers - self._n_vouchers) if v.gift is not None)
            self._n_vouchers = n_vouchers
        if gift_code is not None:
            voucher_id = self.sim.indexes.voucher_by_code.get(gift_code)
            if voucher_id is not None:
                gifts = gifts if gifts is not None else set()
                gifts.add(voucher_id)
        if cards:
            self._cards_changed(line, now, cards)
        if gifts:
            self._gifts_changed(line, now, gifts)
        n_deliveries = len(st.webhook_deliveries)
        if n_deliveries != self._n_deliveries:
            self.delivery_lines.extend([line] * (n_deliveries - self._n_deliveries))
            self._n_deliveries = n_deliveries
        if validation is not None:
            self._validations[len(self._rows)] = validation
        self._rows.append((
            line, now, op, outcome, status, result, message, note,
            len(st.publications), len(st.events), len(st.referral_conversions), len(self._pending),
            n_deliveries, len(st.pending_deliveries),
        ))

    def _rebase(self, line: int, now: datetime, st: Any) -> None:
        """Follow a state that replaced the one followed so far: a `reset` or
        `restore` line (a served journal has them). The counters start again
        from the new state; every balance that differs from the followed one
        becomes a row of this line (the change the swap made), and the
        delivery attempts of the old state are kept for `deliveries`."""
        self._earlier_deliveries.extend(self._state.webhook_deliveries[self.delivery_start:])
        self._follow(st)
        self._catch_up(line, now)

    def _follow(self, st: Any) -> None:
        """Start following `st`: what it holds already is the baseline of the
        counters that tell a line's changes (new transactions, vouchers,
        delivery attempts, the PENDING purchases to watch)."""
        self._state = st
        self._n_tx = len(st.card_transactions)
        self._pending = {t.id for t in st.card_transactions.values() if t.status == "PENDING"}
        self._n_vtx = len(st.voucher_transactions)
        self._n_vouchers = len(st.vouchers)
        self.delivery_start = self._n_deliveries = len(st.webhook_deliveries)

    def _catch_up(self, line: int, now: datetime) -> None:
        """Rows at `line` for every balance of the state that differs from the
        followed one (O(accounts)): after a state swap, and once at the end."""
        st = self.sim.state
        self._cards_changed(line, now, {c.id for c in st.cards.values() if self._cards.get(c.id) != c.balance})
        self._gifts_changed(line, now, {v.id for v in st.vouchers.values()
                                        if v.gift is not None and self._gifts.get(v.id) != v.gift.balance})

    def _new_card_transactions(self, txs: dict[str, Any], count: int) -> set[str]:
        """The cards named by the `count` newest card transactions (PENDING ones followed)."""
        cards = set()
        for tx in _tail(txs, count):
            cards.add(tx.card_id)
            if tx.status == "PENDING":
                self._pending.add(tx.id)
        return cards

    def _settled_cards(self, txs: dict[str, Any], cards: set[str] | None) -> set[str] | None:
        """`cards` plus the cards of the followed PENDING transactions that settled."""
        settled = [t for t in self._pending if txs[t].status != "PENDING"]
        if settled:
            cards = cards if cards is not None else set()
            for tx_id in settled:
                self._pending.discard(tx_id)
                cards.add(txs[tx_id].card_id)
        return cards

    def _cards_changed(self, line: int, now: datetime, cards: set[str]) -> None:
        all_cards = self.sim.state.cards
        followed = self._cards
        for card_id in sorted(cards) if len(cards) > 1 else cards:
            card = all_cards.get(card_id)
            if card is not None:
                old = followed.get(card_id)
                balance = card.balance
                if old != balance:
                    followed[card_id] = balance
                    self._bal.append((line, now, "card", card.id, card.member_id, balance,
                                      None if old is None else balance - old))

    def _gifts_changed(self, line: int, now: datetime, gifts: set[str]) -> None:
        vouchers = self.sim.state.vouchers
        for voucher_id in sorted(gifts):
            voucher = vouchers.get(voucher_id)
            if voucher is not None and voucher.gift is not None:
                old = self._gifts.get(voucher_id)
                if old != voucher.gift.balance:
                    self._gifts[voucher_id] = voucher.gift.balance
                    self._bal.append((line, now, "gift", voucher.code, voucher.holder_id, voucher.gift.balance,
                                      None if old is None else voucher.gift.balance - old))

    # -- frames --------------------------------------------------------------
    def reconcile(self) -> None:
        """Check the followed balances against the state (O(accounts), once).

        A difference means a balance moved without a card/voucher transaction
        the tracker could see; the final value is recorded at the last line so
        the balance table ends right, and a warning names the accounts."""
        st = self.sim.state
        line = self._rows[-1][0] if self._rows else 0
        now = self.sim.now
        drift = [c.id for c in st.cards.values() if self._cards.get(c.id) != c.balance]
        drift += [v.code for v in st.vouchers.values()
                  if v.gift is not None and v.id in self._gifts and self._gifts[v.id] != v.gift.balance]
        self._catch_up(line, now)
        if drift:
            warnings.warn(
                f"replay timeline: balances moved without a visible transaction: {', '.join(drift[:10])}",
                RuntimeWarning,
                stacklevel=3,
            )

    def timeline(self) -> pd.DataFrame:
        import numpy as np
        import pandas as pd

        n = len(self._rows)
        cols = dict(zip(_ROW_COLUMNS, zip(*self._rows), strict=True)) if n else {name: () for name in _ROW_COLUMNS}
        outcomes = ["ok", *sorted(set(cols["outcome"]) - {"ok"})]
        tiers, best_tier, best_discount = self._validation_columns(n)
        data: dict[str, Any] = {
            "line": _ints(cols["line"]),
            "time": _times(cols["time"]),
            "op": _category(cols["op"], known_operations()),
            "outcome": _category(cols["outcome"], outcomes),
            "status": _nullable_ints(cols["status"]),
            "result": _strings(cols["result"]),
            "tiers": _nullable_ints(tiers),
            "best_tier": _strings(best_tier),
            "best_discount": _nullable_ints(best_discount),
        }
        for name in _COUNTS:  # `len()`s: ints by construction
            data[name] = np.fromiter(cols[name], dtype=np.int64, count=n)
        data["message"] = _strings(cols["message"])
        data["note"] = _strings(cols["note"])
        return pd.DataFrame(data, columns=TIMELINE_COLUMNS)

    def _validation_columns(self, n: int) -> tuple[list[Any], list[Any], list[Any]]:
        """The tiers / best_tier / best_discount columns: None but on the validate rows."""
        tiers: list[Any] = [None] * n
        best_tier: list[Any] = [None] * n
        best_discount: list[Any] = [None] * n
        for index, (count, tier, discount) in self._validations.items():
            tiers[index], best_tier[index], best_discount[index] = count, tier, discount
        return tiers, best_tier, best_discount

    def balances(self) -> pd.DataFrame:
        import pandas as pd

        cols = dict(zip(BALANCE_COLUMNS, zip(*self._bal), strict=True)) if self._bal else {
            name: () for name in BALANCE_COLUMNS}
        return pd.DataFrame({
            "line": _ints(cols["line"]),
            "time": _times(cols["time"]),
            "kind": _category(cols["kind"], BALANCE_KINDS),
            "account": _strings(cols["account"]),
            "owner": _strings(cols["owner"]),
            "balance": _nullable_ints(cols["balance"]),
            "change": _nullable_ints(cols["change"]),
        }, columns=BALANCE_COLUMNS)

    def deliveries(self) -> pd.DataFrame:
        """The delivery log of the attempts made during the replay, with the
        replay `line` that made each (its time step or its operation)."""
        import pandas as pd

        from ..analysis.state_frames import deliveries_frame

        attempts = [*self._earlier_deliveries, *self.sim.state.webhook_deliveries[self.delivery_start:]]
        frame = deliveries_frame(attempts)
        lines = self.delivery_lines[: len(frame)]
        frame.insert(0, "line", pd.array(lines + [None] * (len(frame) - len(lines)), dtype="Int64"))
        return frame


#: What a row of `TimelineBuilder._rows` holds (the validation columns are kept aside).
_ROW_COLUMNS = ("line", "time", "op", "outcome", "status", "result", "message", "note", *_COUNTS)


def _category(values: Sequence[Any], categories: list[str]) -> Any:
    """`pd.Categorical(values, categories=categories)` (a value outside the
    categories, None included, is NA), built from codes: a dict lookup per
    row instead of pandas' factorizing of an object array (4x quicker on a
    long replay; tests/replay/test_replay_fast_paths.py compares the two)."""
    import numpy as np
    import pandas as pd

    index = _Codes((category, code) for code, category in enumerate(categories))
    codes = np.fromiter(map(index.__getitem__, values), dtype=np.int32, count=len(values))
    return pd.Categorical.from_codes(codes, categories=categories)


class _Codes(dict[Any, int]):
    """category -> code; -1 (NA) for anything else. `map(codes.__getitem__,
    values)` then runs without a Python frame per value (a miss calls
    `__missing__`)."""

    def __missing__(self, key: Any) -> int:
        return -1


def _nullable_ints(values: Sequence[Any]) -> Any:
    """`pd.array(values, dtype="Int64")`; when every value is an `int` or
    None (what a replay records), built by pyarrow (its loop is in C++) into
    a value array and a mask, three times as quick as pandas' inference on a
    mostly-empty column. Anything else (a float, a bool, an int past 64
    bits) gets pandas' own conversion, and its error."""
    import pandas as pd

    if set(map(type, values)) <= _INT_OR_NONE:
        import pyarrow as pa

        try:
            array = pa.array(values, type=pa.int64())
        except (pa.ArrowInvalid, OverflowError):  # past 64 bits: pandas says why
            pass
        else:
            mask = array.is_null().to_numpy(zero_copy_only=False)
            return pd.arrays.IntegerArray(array.fill_null(0).to_numpy(), mask)
    return pd.array(list(values), dtype="Int64")


_INT_OR_NONE = frozenset({int, type(None)})


def _ints(values: Sequence[Any]) -> Any:
    """`pd.array(values, dtype="int64")`: a numpy array straight from the
    values when they are all `int`s (line numbers, counts), a third of the
    time of pandas' conversion; anything else gets pandas' conversion, and
    its error."""
    import numpy as np
    import pandas as pd

    if set(map(type, values)) <= _INT:
        try:
            return np.fromiter(values, dtype=np.int64, count=len(values))
        except OverflowError:  # past 64 bits: pandas' conversion decides (it wraps)
            pass
    return pd.array(list(values), dtype="int64")


_INT = frozenset({int})


def _strings(values: Sequence[Any]) -> Any:
    """`pd.array(values, dtype="string")`. With pyarrow storage (pandas'
    default when pyarrow is installed), pyarrow reads the values itself (its
    loop is in C++, pandas' goes value by value); anything but `str` and
    None (pandas converts it) or a string pyarrow cannot encode (pandas says
    why) gets pandas' conversion."""
    import pandas as pd

    dtype = pd.StringDtype()
    if dtype.storage == "pyarrow":
        import pyarrow as pa

        try:
            return pd.arrays.ArrowStringArray(pa.array(values, type=pa.large_string()), dtype=dtype)
        except Exception:  # noqa: BLE001 - see above: pandas' conversion decides
            return pd.array(list(values), dtype="string")
    return pd.array(list(values), dtype="string")


def _times(values: Sequence[datetime]) -> Any:
    """`datetime64[us, UTC]` values. `cache=False`: pandas' cache converts the
    distinct values once and maps them back, which costs three times the
    conversion itself on the balance rows (a line moving two cards repeats
    its time) and gains nothing on the timeline (every line has its own)."""
    import pandas as pd

    if not values:
        return _empty_times()
    return pd.Series(pd.to_datetime(list(values), utc=True, cache=False)).astype("datetime64[us, UTC]").array


def _empty_times() -> Any:
    import pandas as pd

    return pd.Series([], dtype="datetime64[us, UTC]")


def balance_table(balances: pd.DataFrame, lines: Any, *, kind: str | None = None) -> pd.DataFrame:
    """Wide balances: one row per line (0 = opening, then every timeline
    line), one column per account, forward filled."""
    import pandas as pd

    frame = balances if kind is None else balances[balances["kind"] == kind]
    index = pd.Index([0, *[int(x) for x in lines]], name="line").unique()
    if frame.empty:
        return pd.DataFrame(index=index)
    last = frame.drop_duplicates(["line", "account"], keep="last")
    wide = last.pivot(index="line", columns="account", values="balance")
    accounts = list(dict.fromkeys(frame["account"].tolist()))
    wide = wide.reindex(index=index, columns=accounts).ffill().astype("Int64")
    wide.columns.name = "account"
    return wide
