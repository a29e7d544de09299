"""What a write that failed with a bug is undone from: a checkpoint of the
state and every line applied since, with the webhook outcomes they had.

A refusal (`SimError`) changes nothing by construction (each operation
checks, then changes), but a bug (a `KeyError`, an `OverflowError` deep in
an operation) may strike after part of the write is in the state. Copying
the whole state before every write, to go back to, costs more than the
write itself as the state grows (a pickle of the demo after 4,000 writes:
80 ms; `benchmarks/bench_write_rollback.py`), and copying only what an
operation touches would have to be right for every operation, those to
come included. So the failure pays instead, and only it: the simulator is
rebuilt from its last checkpoint by applying the lines logged since
(`rebuild`), which is exactly what a restart from the journal does, from
closer. Failures are rare; a rebuild takes at most about `1 / overhead`
times what the last checkpoint took.

A line is what a journal line holds, applied with `journal.apply_entry`, so
the rebuild is the replay the journal tests hold to the live state: the
simulated instant (the datetime itself, to the microsecond), the operation
and its arguments, which are the journal's line when the simulator journals
(encoded once) and a pickle of them otherwise (a copy the caller cannot
change afterwards, at a fifth of what encoding JSON costs). What the outside world answered is not asked again:
every webhook attempt's outcome is logged as it is recorded (`outcome`), in
the order attempts are claimed, and a rebuilding simulator takes them from
its `feed` instead of calling receivers or POSTing (`webhooks.attempts.
claim_attempt`), so a receiver is never called twice for one attempt and the
rebuilt delivery log is the one clients saw.

A checkpoint is a pickle of the state, seed, counters and clock (0.13-0.6 times
what a JSON snapshot costs to take, and the very objects, not a reading of
their dump). The simulator starts from the snapshot it keeps of its
initial state (`kept_snapshot`, packed once: nothing more to copy) and
starts over whenever its state is swapped (`reset`, `restore`); a checkpoint is taken at the start of an outermost write once
the log holds `min_lines` lines and the writes logged since took `1 /
overhead` times what the last checkpoint took (so checkpoints cost at most
`overhead` of the time writes take, however large the state grows, and a
rebuild replays at most that much write time), or once it holds `max_lines`
(memory). Never while webhook attempts are on the network (their outcomes
are not in yet).
"""

from __future__ import annotations

import pickle
import time
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .clock import Clock
from .ids import IdGenerator
from .journal import apply_entry, parse_line
from .kept_snapshot import KeptSnapshot
from .snapshots import read_snapshot
from .state import Indexes

if TYPE_CHECKING:
    from .state import State
    from .webhooks.sending import Result

__all__ = ["RebuildFailed", "Rebuilt", "WriteLog"]


class RebuildFailed(RuntimeError):
    """The log could not rebuild the state it was written from: a line that
    could not be encoded (arguments that are not JSON), or a replay that
    diverged (a bug making the simulator non-deterministic). The simulator
    then refuses writes (`Journaling._check_journal`)."""


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """The parts of a simulator a rebuild hands back to be installed."""

    seed: int
    ids: IdGenerator
    clock: Clock
    state: State


class WriteLog:
    """A checkpoint and the lines applied since (runtime only, never in a snapshot)."""

    __slots__ = ("_busy", "_checkpoint", "_cost", "exact", "feed", "last_at", "lines", "max_lines", "min_lines",
                 "outcomes", "overhead")

    def __init__(self, *, min_lines: int = 256, max_lines: int = 100_000, overhead: float = 0.02) -> None:
        self.min_lines = min_lines
        self.max_lines = max_lines
        #: The share of write time checkpoints may take.
        self.overhead = overhead
        #: A pickle of (seed, counters, clock, state), or the snapshot the simulator keeps.
        self._checkpoint: bytes | KeptSnapshot | None = None
        #: Seconds the last checkpoint took, and the writes logged since.
        self._cost = 0.0
        self._busy = 0.0
        #: Lines since the checkpoint: (instant, operation, its journal line
        #: or its pickled arguments); the webhook outcomes recorded since, in claim order.
        self.lines: list[tuple[datetime, str, str | bytes]] = []
        self.outcomes: list[Result] = []
        #: The instant of the last line (where an advance line starts, as in `Journal`).
        self.last_at: datetime | None = None
        #: False once a line could not be logged: no rebuild until the next checkpoint.
        self.exact = True
        #: Set on a simulator that is rebuilding: the outcomes its attempts take, in order.
        self.feed: deque[Result] | None = None

    def checkpoint(self, seed: int, ids: IdGenerator, clock: Clock, state: State) -> None:
        """Start over from this state (copied whole: the log empties)."""
        started = time.perf_counter()
        self._start(pickle.dumps((seed, ids.state(), clock.now, state), protocol=pickle.HIGHEST_PROTOCOL))
        self._cost = time.perf_counter() - started

    def start_from(self, snapshot: KeptSnapshot) -> None:
        """Start over from a snapshot the simulator keeps unchanged (the one
        it was created or restored with, `_initial`): nothing to copy."""
        self._start(snapshot)

    def _start(self, checkpoint: bytes | KeptSnapshot) -> None:
        self._checkpoint = checkpoint
        self.lines.clear()
        self.outcomes.clear()
        self.last_at = None
        self.exact = True
        self._busy = 0.0

    def due(self) -> bool:
        """Whether a checkpoint should be taken before the next write."""
        if self.feed is not None:  # a rebuilding simulator: thrown away after
            return False
        count = len(self.lines)
        if count >= self.max_lines or not self.exact:
            return True
        return count >= self.min_lines and self._busy >= self._cost / self.overhead

    def spent(self, seconds: float) -> None:
        """Count the time a logged write or advance took (what the next
        checkpoint is weighed against)."""
        self._busy += seconds

    def record(self, at: datetime, op: str, args: dict[str, Any], line: str | None = None) -> None:
        """Log an applied write or advance: `line` as journaled, or its arguments pickled here."""
        self.last_at = at
        if line is not None:
            self.lines.append((at, op, line))
            return
        try:
            self.lines.append((at, op, pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)))
        except (pickle.PicklingError, TypeError, AttributeError):  # an in-process caller's object
            self.exact = False

    def outcome(self, result: Result) -> None:
        """Log the outcome of a webhook attempt, as it is recorded."""
        if self.feed is None:
            self.outcomes.append(result)

    def next_outcome(self) -> Result:
        """The outcome the next attempt of a rebuild takes (`feed` is set)."""
        assert self.feed is not None
        if not self.feed:
            raise RebuildFailed("the rebuild made more webhook attempts than the simulator did")
        return self.feed.popleft()

    def rebuild(self, scratch: Any, until: datetime) -> Rebuilt:
        """Apply the lines to `scratch` (a bare simulator, `Simulator.__new__`
        plus its runtime) from the checkpoint; its clock ends at `until` (the
        clock before the failed write: moves since the last line ran nothing).
        `RebuildFailed` when it cannot be done."""
        if self._checkpoint is None or not self.exact:
            raise RebuildFailed("a write since the last checkpoint could not be logged (its arguments cannot be copied)")
        if isinstance(self._checkpoint, bytes):  # pickles made by this object, never read from outside
            seed, counters, now, state = pickle.loads(self._checkpoint)
        else:
            loaded = read_snapshot(self._checkpoint.snapshot())
            seed, counters, now, state = loaded.seed, loaded.counters, loaded.at.now, loaded.state
        scratch.seed, scratch.ids, scratch.clock, scratch.state = seed, IdGenerator(seed, counters), Clock(now), state
        scratch.indexes = Indexes(state)
        scratch.write_log.feed = deque(self.outcomes)
        for number, (at, op, payload) in enumerate(self.lines, 1):
            try:
                args = parse_line(payload, number)["args"] if isinstance(payload, str) else pickle.loads(payload)
                apply_entry(scratch, {"at": at, "op": op, "args": args})
            except Exception as exc:
                raise RebuildFailed(f"line {number} since the checkpoint failed on the rebuild "
                                    f"({type(exc).__name__}: {exc})") from exc
        if scratch.write_log.feed:
            raise RebuildFailed(f"the rebuild made {len(scratch.write_log.feed)} webhook attempts fewer than the simulator")
        if until > scratch.clock.now:
            scratch.clock.set(until)
        return Rebuilt(scratch.seed, scratch.ids, scratch.clock, scratch.state)
