"""Journaling writes: the journal a simulator writes to, and the write path
that keeps it the whole truth.

`Journaling` is a base of `Simulator` (as `Turns` is, below it): it holds
the journal and the write log, runs each write so that a failed one changes
nothing (`_run_write`), and journals and logs accepted writes and advances.
What a failing write promises is in docs/reliability.md ("A write that
fails").
"""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from .journal import Journal
from .refusals import JournalUnavailable, SimError
from .state import Indexes
from .turns import Turns
from .write_log import RebuildFailed, WriteLog

if TYPE_CHECKING:
    from .clock import Clock
    from .ids import IdGenerator
    from .operation import Operation
    from .state import State

__all__ = ["Journaling"]

P = ParamSpec("P")
R = TypeVar("R")


class Journaling(Turns):
    """The journal, the write log and the write path (never part of a snapshot)."""

    seed: int
    ids: IdGenerator
    clock: Clock
    state: State
    indexes: Indexes

    def _init_journaling(self) -> None:
        self._journal: Journal | None = None
        self._journal_error: str | None = None
        #: What a failed write is undone from (`write_log.py`).
        self.write_log = WriteLog()
        #: A write or advance made from inside a webhook receiver failed with
        #: a bug: what failed; the outermost call undoes it when it ends.
        self._undo_due: str | None = None
        #: Set only when undoing a failed write failed too (`RebuildFailed`:
        #: should never happen): writes are refused until the state is
        #: replaced (restart, `reset`, `load_snapshot`).
        self._fault: str | None = None

    def _run_write(self, op: Operation[P, R], depth: int, /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run a write so that, if it fails, it changes nothing.

        A refusal (`SimError`) is raised before the operation changes the
        state (every operation checks, then changes; the hypothesis test in
        tests/reliability/test_failed_writes.py holds them to it), but it may
        have drawn ids on the way: the counters go back to where they were,
        so the next write gets the ids a replay of the journal, which never
        saw this one, gets too. Any other exception is a bug that may have
        left part of the write in the state: the counters go back and the
        state is rebuilt as it was before the write (`_undo`); the exception
        goes on to the caller (a 500 over HTTP). `depth` > 0: a write made
        from inside a webhook receiver, undone when the outermost call ends.
        """
        mark = self.ids.mark()
        try:
            return op.run(self._sim(), *args, **kwargs)
        except SimError:
            self.ids.rewind(mark)
            raise
        except Exception as exc:
            self.ids.rewind(mark)
            self._undo(f"{op.name} failed with {type(exc).__name__}: {exc}", nested=depth > 0, until=self.clock.now)
            raise

    def _undo(self, reason: str, *, nested: bool, until: datetime) -> None:
        """Put the state back as it was before the failed call: the
        checkpoint and the lines logged since, replayed (`WriteLog.rebuild`),
        with the clock at `until`. A nested call (from inside a webhook
        receiver) is in the middle of its caller's delivery, a state no line
        rebuilds: the outermost call undoes it when it ends (`_undo_if_due`),
        rebuilding everything but the failed call."""
        if nested:
            self._undo_due = self._undo_due or reason
            return
        self._undo_due = None
        me = threading.get_ident()
        claimed = self._advancer is None
        if claimed:  # nobody advances on the half-changed state while deliveries in flight end
            self._advancer = me
        try:
            self._wait_for_quiet()
            kind = type(self._sim())
            scratch = kind.__new__(kind)
            scratch._init_runtime()
            try:
                rebuilt = self.write_log.rebuild(scratch, until)
                if rebuilt.ids.state() != self.ids.state():
                    raise RebuildFailed(f"the rebuild drew other ids ({rebuilt.ids.state()} for {self.ids.state()})")
            except RebuildFailed as exc:
                self._fault = f"{reason}, and it could not be undone: {exc}"
                return
            self.seed, self.ids, self.clock, self.state = rebuilt.seed, rebuilt.ids, rebuilt.clock, rebuilt.state
            self.indexes = Indexes(rebuilt.state)
        finally:
            if claimed:
                self._advancer = None
                self._notify()

    def _undo_if_due(self) -> None:
        """At the end of an outermost call (not nested, the lock held): undo
        a nested call that failed meanwhile (see `_undo`)."""
        reason = self._undo_due
        if reason is not None:
            self._undo(reason, nested=False, until=self.clock.now)

    def _checkpoint_if_due(self) -> None:
        """Before an outermost write: a checkpoint when the log asks for one
        and no webhook attempt is on the network (its outcome is not in yet)."""
        if not self._in_flight and self.write_log.due():
            self.write_log.checkpoint(self.seed, self.ids, self.clock, self.state)

    def _check_journal(self) -> None:
        if self._fault is not None:
            raise JournalUnavailable(
                f"A write failed part way ({self._fault}); this simulator refuses writes until it is "
                "restarted from its journal, reset or restored, so that every write it acknowledges can be replayed"
            )
        if self._journal_error is not None:
            raise JournalUnavailable(
                f"The journal could not be written ({self._journal_error}); this simulator "
                "refuses writes until it is restarted from its journal"
            )

    def _record_advance(self, start: datetime) -> None:
        """Journal and log an advance from `start` to now. Lines journaled
        meanwhile (by a receiver writing or advancing from inside it) come
        first, so this line covers only the time after the last of them: a
        replay then finds every line starting where the one above it ended."""
        last = (self._journal or self.write_log).last_at
        since = start if last is None else max(start, last)
        self._record("advance", {"seconds": (self.clock.now - since).total_seconds()})

    def _record(self, op: str, args: dict[str, Any]) -> None:
        """Journal (if journaling) and log an applied write or advance. If the
        disk refuses, the write is not acknowledged (503) and the simulator
        stops taking writes: the line may be on disk in part, and nothing may
        be appended after it until a restart cuts it."""
        line = None
        if self._journal is not None:
            try:
                line = self._journal.record(self.clock.now, op, args)
            except (OSError, ValueError) as exc:
                self._journal_error = str(exc) or type(exc).__name__
                self._check_journal()
        self.write_log.record(self.clock.now, op, args, line)

    def record_to(
        self, target: str | Path | list[str] | Journal | None, *, fsync: bool = True, header: str | None = None
    ) -> None:
        """Start (or, with None, stop) journaling writes in replay format;
        `header`, when given, is written first. A `Journal` is taken as it is
        (`journal.resume_journal` hands over the one it opened, locked, to
        read the file first)."""
        with self._quiet():
            if target is None or isinstance(target, Journal):
                journal = target
            else:
                journal = Journal(target, fsync=fsync, header=header)
            if self._journal is not None:
                self._journal.close()
            self._journal = journal
            self._journal_error = None
