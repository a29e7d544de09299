"""`replay(sim, events)`: apply an event sequence on the simulated clock.

Each line goes through three steps, and never half-applies:

1. **check** (nothing changed yet): the line's format (`events.check_entry`:
   JSON, keys, operation, argument names and types, `at`), then its time
   against the simulator's clock (`at` before the clock: `time_in_past`).
   A line failing here is *malformed*: nothing of it is applied, not even its
   time step; `on_error` decides whether the replay stops or records it and
   goes on.
2. **time step**: the clock moves to the line's `at`, running the work that
   falls due on the way (purchases settling, webhook retries), exactly as
   time passing in the original session did.
3. **operation**: `sim.apply(op, **args)`. The simulator refuses before it
   changes anything; a refusal (e.g. 423 `insufficient_card_balance`) is a
   legitimate outcome and is recorded in the timeline with its key and
   status, whatever `on_error` says (`refused="error"` makes refusals count as
   errors, for journals where every line was accepted once).

Any other exception from the simulator is a bug (the HTTP face would answer
500): the replay stops with `ReplayError(kind="internal")` in every mode,
because the line may have half-applied.
"""

from __future__ import annotations

import gc
import time as _time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..sim.clock import format_instant
from ..sim.errors import SimError
from .events import ADVANCE, BadLine, EventSource, Fields, item_fields, read_lines
from .timeline import SUCCESS_STATUS, TimelineBuilder, balance_table, duration, summarize

if TYPE_CHECKING:
    import pandas as pd

    from ..sim.simulator import Simulator

__all__ = ["LineError", "ReplayError", "ReplayResult", "record", "replay"]

OnError = Literal["stop", "skip"]
Refused = Literal["record", "error"]

#: Journal times are written to the millisecond; an `advance` line may start
#: up to this much before the clock (its `at` minus its seconds) and still be
#: the same advance.
_TOLERANCE = timedelta(milliseconds=1)
_ZERO = timedelta(0)


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

    def summary(self) -> str:
        """A few lines for a terminal or a notebook."""
        tl = self.timeline
        out = [f"{self.lines} lines: {self.applied} applied, {self.refused} refused, {self.skipped} skipped"]
        if self.started_at is not None and self.ended_at is not None:
            out.append(f"simulated time: {format_instant(self.started_at)} -> {format_instant(self.ended_at)}")
        if len(tl):
            counts = tl.groupby(["op", "outcome"], observed=True).size()
            per_op = []
            for op, group in counts.groupby(level=0, observed=True):
                parts = ", ".join(f"{outcome} {n}" for (_, outcome), n in group.items())
                per_op.append(f"  {op:<17} {parts}")
            out.append("operations:")
            out.extend(per_op)
            unreadable = int(tl["op"].isna().sum())
            if unreadable:
                out.append(f"  {'(unreadable)':<17} {unreadable}")
        if len(self.deliveries):
            by = self.deliveries["outcome"].value_counts()
            out.append("webhook attempts: " + ", ".join(f"{k} {v}" for k, v in by.items() if v))
        if len(tl):
            last = tl.iloc[-1]
            out.append(
                f"final: {last['publications']} publications, {last['pending_purchases']} pending purchases, "
                f"{last['pending_deliveries']} pending deliveries"
            )
        changed = self.balances[self.balances["line"] > 0]
        if len(changed):
            moved = changed.groupby("account", observed=True)["change"].sum()
            top = moved.abs().sort_values(ascending=False).head(5)
            out.append("largest balance moves: " + ", ".join(f"{a} {int(moved[a]):+d}" for a in top.index))
        for err in self.errors[:5]:
            out.append(f"  ! {err}")
        if len(self.errors) > 5:
            out.append(f"  ! ... {len(self.errors) - 5} more")
        if self.elapsed > 0:
            out.append(f"wall time: {self.elapsed:.2f} s ({self.lines / self.elapsed:,.0f} lines/s)")
        return "\n".join(out)


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


def replay(
    sim: Simulator,
    events: EventSource,
    *,
    on_error: OnError = "stop",
    refused: Refused = "record",
    progress: bool = False,
) -> ReplayResult:
    """Replay `events` (a path, JSON Lines text, an open file, or a list of
    lines / dicts / `Event`s) on `sim`, in order, and return the timeline.

    `on_error="stop"` raises `ReplayError` (with the partial result) at the
    first malformed line; `"skip"` records it in the timeline and goes on.
    Refusals by the simulator are outcomes and never stop the replay, unless
    `refused="error"` (then they follow `on_error`). The clock is not moved
    past the last line: end the sequence with an `advance` to settle pending
    work.
    """
    if on_error not in ("stop", "skip"):
        raise ValueError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    if refused not in ("record", "error"):
        raise ValueError(f"refused must be 'record' or 'error', not {refused!r}")
    wall = _time.perf_counter()
    # The whole replay runs with the heap frozen (see `_frozen_heap`): reading
    # the source and building the frames at the end allocate by the ten
    # thousand too, and a full collection then would walk everything.
    with _frozen_heap() as refreeze:
        lines = read_lines(events)
        return _replay_lines(sim, lines, on_error, refused, progress, wall, refreeze)


def _replay_lines(
    sim: Simulator,
    lines: list[tuple[int, Any]],
    on_error: OnError,
    refused: Refused,
    progress: bool,
    wall: float,
    refreeze: Callable[[], None],
) -> ReplayResult:
    """`replay` once the source is read: the lines one by one, then the result."""
    builder = TimelineBuilder(sim)
    counts = _Counts()
    errors: list[LineError] = []
    started = sim.now
    bar = _progress(_count_items(lines)) if progress else None
    pending_ticks = 0

    def result() -> ReplayResult:
        builder.reconcile()
        return ReplayResult(
            timeline=builder.timeline(),
            balances=builder.balances(),
            deliveries=builder.deliveries(),
            errors=list(errors),
            started_at=started,
            ended_at=sim.now,
            elapsed=_time.perf_counter() - wall,
            applied=counts.applied,
            refused=counts.refused,
            skipped=counts.skipped,
        )

    def stop(error: LineError) -> ReplayError:
        errors.append(error)
        return ReplayError(error, result())

    add = builder.add
    try:
        for number, raw in lines:
            if not number % _REFREEZE_EVERY:
                refreeze()
            item = item_fields(number, raw)
            if item is None:
                continue  # a blank line
            if bar is not None:
                pending_ticks += 1
                if pending_ticks == 64:
                    bar.update(pending_ticks)
                    pending_ticks = 0
            before = sim.clock.now
            if type(item) is tuple:
                line, op, args, at, note = item
                # `at` checked against the clock only when it can be wrong
                late = at is not None and (at < before or op == ADVANCE)
                bad = _time_problem(item, before) if late else None
            else:
                bad = item  # type: ignore[assignment]
            if bad is not None:
                add(bad.line, before, bad.op, bad.key, None, None, bad.message, bad.note)
                error = LineError(bad.line, "malformed", bad.key, bad.message, None, bad.op)
                if on_error == "stop":
                    raise stop(error)
                errors.append(error)
                counts.skipped += 1
                continue
            try:
                value = _run(sim, op, args, at, before)
            except SimError as exc:
                now = sim.clock.now
                add(line, now, op, exc.key, exc.status, None, exc.details, note, op == ADVANCE or now != before)
                error = LineError(line, "refused", exc.key, exc.details, exc.status, op)
                counts.refused += 1
                if refused == "error" and on_error == "stop":
                    raise stop(error) from None
                errors.append(error)
                continue
            except Exception as exc:  # a bug in the simulator: the line may have half-applied
                message = f"{type(exc).__name__}: {exc}"
                with suppress(Exception):  # the state may be inconsistent: the row is best effort
                    add(line, sim.clock.now, op, "internal_error", 500, None, message, note, True)
                raise stop(LineError(line, "internal", "internal_error", message, 500, op)) from exc
            now = sim.clock.now
            if op == ADVANCE:
                add(line, now, op, "ok", 200, f"clock +{duration(now - before)}", None, note, True)
            else:
                text, validation = _summary(op, args, value)
                add(line, now, op, "ok", SUCCESS_STATUS.get(op, 200), text, None, note, now != before,
                    args.get("code") if op == "add_gift_balance" else None, validation)
            counts.applied += 1
    finally:
        if bar is not None:
            bar.update(pending_ticks)
            bar.close()
    return result()


@dataclass(slots=True)
class _Counts:
    """Lines applied / refused by the simulator / malformed and skipped."""

    applied: int = 0
    refused: int = 0
    skipped: int = 0


#: Lines between two `gc.freeze()` calls during a replay (see `_frozen_heap`).
_REFREEZE_EVERY = 1024
#: The young generation's collection threshold during a replay (see `_frozen_heap`).
_YOUNG_LIMIT = 100_000


@contextmanager
def _frozen_heap() -> Iterator[Callable[[], None]]:
    """Keep the cyclic garbage collector off the objects that existed before
    the replay and off the state it builds, while it runs.

    A replay grows the state by tens of thousands of records, and the
    collector answers growth with full passes that walk every live object:
    the modules, pandas and the scenario, which the replay cannot have made
    garbage, and the records already added, which stay in the state. Such a
    pass costs a hundred milliseconds and more on a grown state, so whichever
    line happens to trigger it pays for all of them (about a fifth of a
    replay's time). `gc.freeze()` sets the live objects aside, and the runner
    calls it again every `_REFREEZE_EVERY` lines (the yielded `refreeze`), so
    a full pass walks only what the last lines left.

    The young generation's threshold is raised to `_YOUNG_LIMIT` meanwhile:
    what `_REFREEZE_EVERY` lines keep alive (about 11,000 container objects
    on a busy mix) is then set aside by the next freeze without being walked
    by the young collections first (which cost about 4% of a replay, and
    found almost nothing: an operation makes next to no reference cycles).
    A line that keeps more alive still triggers a collection, so the young
    objects stay bounded. `gc.unfreeze()` and the thresholds put everything
    back at the end, however the replay ends (a cycle that became garbage
    meanwhile is then collected by the next full pass). Left alone (and
    `refreeze` does nothing) when the collector is disabled or the process
    froze objects itself.
    """
    if not gc.isenabled() or gc.get_freeze_count():
        yield _nothing
        return
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], _YOUNG_LIMIT), *thresholds[1:])
    try:
        yield gc.freeze
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _nothing() -> None:
    return None


def _count_items(lines: list[tuple[int, Any]]) -> int:
    """Lines that will make a timeline row (the progress bar's total)."""
    return sum(1 for _, raw in lines if not (isinstance(raw, str) and (not raw or raw.isspace())))


def _time_problem(event: Fields, now: datetime) -> BadLine | None:
    """`at` must not be before the clock (for an advance: where it starts)."""
    line, op, args, at, note = event
    if at is None:
        return None
    if op == ADVANCE and "seconds" in args:
        start = at - timedelta(seconds=args["seconds"])
        if start < now - _TOLERANCE:
            return BadLine(
                line, "time_in_past",
                f"advance: at {format_instant(at)} minus {args['seconds']} s starts before the clock "
                f"({format_instant(now)}); `at` is the time the clock reaches after the advance",
                op=op, at=at, note=note,
            )
        return None
    if at < now:
        return BadLine(
            line, "time_in_past",
            f"at {format_instant(at)} is before the clock ({format_instant(now)}); lines go forward in time",
            op=op, at=at, note=note,
        )
    return None


def _run(sim: Simulator, op: str, args: dict[str, Any], at: datetime | None, now: datetime) -> Any:
    """The line's time step, then its operation (an advance is its own time step)."""
    if op == ADVANCE:
        target = at if at is not None else now + timedelta(seconds=args["seconds"])
        # Always call advance, even by 0 s: an advance runs the work due now.
        sim.advance(max(target - now, _ZERO))
        return None
    if at is not None and at > now:
        sim.advance(at - now)
    return sim.apply(op, **args)


def _summary(op: str, args: dict[str, Any], value: Any) -> tuple[str, tuple[int | None, str | None, int | None] | None]:
    """The row's `result` text, and (tiers, best_tier, best_discount) for a
    validation (None for any other operation)."""
    try:
        text, tiers, best_tier, best_discount = summarize(op, args, value)
    except Exception:  # a summary never breaks a replay  # noqa: BLE001
        return type(value).__name__, None
    if tiers is None:
        return text, None
    return text, (tiers, best_tier, best_discount)


def _progress(total: int) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="line", desc="replay", mininterval=0.25, leave=False)


@contextmanager
def record(sim: Simulator, target: str | Path | list[str] | None = None, *, fsync: bool = False) -> Iterator[Any]:
    """Journal every accepted write of `sim` in replay format while the block runs.

        with record(sim) as lines:      # a list of JSON lines
            ...
        replay(Simulator.from_scenario(same_scenario), lines)

    `target` is a list to append to (a new one by default) or a file path
    (appended; `fsync=True` syncs every line). Yields the list, or the path.
    Reads (validate, get_incentive) and refused requests are not journaled.
    Any journal already active on `sim` is closed and replaced.
    """
    lines: Any = [] if target is None else target
    sim.record_to(lines, fsync=fsync)
    try:
        yield lines
    finally:
        sim.record_to(None)
