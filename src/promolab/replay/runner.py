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

What a replay gives back is `results`; the collector pause is `collector`;
the timeline is accumulated by `timeline_builder.TimelineBuilder`.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..sim import BY_NAME, SimError, format_instant
from .collector import COLLECT_EVERY, collector_paused
from .reader import ADVANCE, BadLine, EventSource, Fields, item_fields, read_lines
from .results import LineError, ReplayError, ReplayResult
from .summaries import duration, summarize
from .timeline import SUCCESS_STATUS
from .timeline_builder import LineOutcome, TimelineBuilder

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["record", "replay"]

OnError = Literal["stop", "skip"]
Refused = Literal["record", "error"]

#: Journal times are written to the millisecond; an `advance` line may start
#: up to this much before the clock (its `at` minus its seconds) and still be
#: the same advance.
_TOLERANCE = timedelta(milliseconds=1)
_ZERO = timedelta(0)


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
    # The whole replay runs with the automatic collector paused (see
    # `collector_paused`): reading the source and building the frames at the
    # end allocate by the ten thousand too, and a full pass then would walk
    # everything.
    with collector_paused() as collect:
        lines = read_lines(events)
        return _replay_lines(sim, lines, on_error, refused, progress, wall, collect)


def _replay_lines(
    sim: Simulator,
    lines: list[tuple[int, Any]],
    on_error: OnError,
    refused: Refused,
    progress: bool,
    wall: float,
    collect: Callable[[], None],
) -> ReplayResult:
    """`replay` once the source is read: the lines one by one, then the result."""
    builder = TimelineBuilder(sim)
    counts = _Counts()
    errors: list[LineError] = []
    started = sim.now
    bar = _progress(_count_items(lines)) if progress else None
    pending_ticks = 0

    def result() -> ReplayResult:
        # imported here: the command line's parser loads this module, and must not load the analysis layer
        from ..analysis.figures import figures

        builder.reconcile()
        return ReplayResult(
            # the one dtype rule of every frame (counts Int64; docs/analysis.md)
            timeline=figures(builder.timeline(), sim.currency),
            balances=figures(builder.balances(), sim.currency),
            deliveries=figures(builder.deliveries()),
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
            if not number % COLLECT_EVERY:
                collect()
            item = item_fields(number, raw)
            if item is None:
                continue  # a blank line
            if bar is not None:
                pending_ticks += 1
                if pending_ticks == 64:
                    bar.update(pending_ticks)
                    pending_ticks = 0
            before = sim.clock.now
            if not isinstance(item, BadLine):
                line, op, args, at, note = item
                # `at` checked against the clock only when it can be wrong
                late = at is not None and (at < before or op == ADVANCE)
                bad = _time_problem(item, before) if late else None
            else:
                bad = item
            if bad is not None:
                add(bad.line, before, LineOutcome(bad.op, bad.key, None, None, bad.message, bad.note))
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
                add(line, now, LineOutcome(op, exc.key, exc.status, None, exc.details, note),
                    clock_moved=op == ADVANCE or now != before)
                error = LineError(line, "refused", exc.key, exc.details, exc.status, op)
                counts.refused += 1
                if refused == "error" and on_error == "stop":
                    raise stop(error) from None
                errors.append(error)
                continue
            except Exception as exc:  # a bug in the simulator: the line may have half-applied
                message = f"{type(exc).__name__}: {exc}"
                with suppress(Exception):  # the state may be inconsistent: the row is best effort
                    add(line, sim.clock.now, LineOutcome(op, "internal_error", 500, None, message, note),
                        clock_moved=True)
                raise stop(LineError(line, "internal", "internal_error", message, 500, op)) from exc
            now = sim.clock.now
            if op == ADVANCE:
                add(line, now, LineOutcome(op, "ok", 200, f"clock +{duration(now - before)}", None, note),
                    clock_moved=True)
            else:
                text, validation = _summary(op, args, value)
                add(line, now, LineOutcome(op, "ok", SUCCESS_STATUS.get(op, 200), text, None, note),
                    clock_moved=now != before, gift_code=args.get("code") if op == "add_gift_balance" else None,
                    validation=validation)
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
    return sim.apply(BY_NAME[op], **args)


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
