"""Journaling writes: the journal a simulator writes to, and the write path
that keeps it the whole truth.

`Journaling` is a base of `Simulator` (as `Turns` is, below it): it holds
the journal and the two reasons to refuse writes (the journal could not be
written; a write failed part way), runs each write so that a failed one
hands out no id (`_run_write`), and journals accepted writes and advances.
What a failing write promises is in docs/reliability.md ("A write that
fails").
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from .journal import Journal
from .refusals import JournalUnavailable, SimError
from .turns import Turns

if TYPE_CHECKING:
    from .clock import Clock
    from .ids import IdGenerator
    from .operation import Operation

__all__ = ["Journaling"]

P = ParamSpec("P")
R = TypeVar("R")


class Journaling(Turns):
    """The journal and the write path (never part of a snapshot)."""

    ids: IdGenerator
    clock: Clock

    def _init_journaling(self) -> None:
        self._journal: Journal | None = None
        self._journal_error: str | None = None
        #: Set when a write failed with an unexpected exception while
        #: journaling (`_run_write`): writes are refused until the state is
        #: replaced (restart, `reset`, `load_snapshot`).
        self._fault: str | None = None

    def _run_write(self, op: Operation[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run a write so that, if it fails, it hands out nothing.

        A refusal (`SimError`) is raised before the operation changes the
        state (every operation checks, then changes; the hypothesis test in
        tests/reliability/test_failed_writes.py holds them to it), but it may
        have drawn ids on the way: the counters go back to where they were,
        so the next write gets the ids a replay of the journal, which never
        saw this one, gets too. Any other exception is a bug that may have
        left part of the write in the state: the counters go back too, and a
        journaled simulator then refuses writes (503) until it is restarted
        from its journal, reset or restored, because a write acknowledged on
        top of a change the journal lacks could not be replayed.
        """
        mark = self.ids.mark()
        try:
            return op.run(self._sim(), *args, **kwargs)
        except SimError:
            self.ids.rewind(mark)
            raise
        except Exception as exc:
            self.ids.rewind(mark)
            if self._journal is not None:
                self._fault = f"{op.name} failed with {type(exc).__name__}: {exc}"
            raise

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

    def _journal_advance(self, start: datetime) -> None:
        """Journal an advance from `start` to now. Lines journaled meanwhile
        (by a receiver writing or advancing from inside it) come first in the
        journal, so this line covers only the time after the last of them: a
        replay then finds every line starting where the one above it ended."""
        assert self._journal is not None
        last = self._journal.last_at
        since = start if last is None else max(start, last)
        self._journal_write("advance", {"seconds": (self.clock.now - since).total_seconds()})

    def _journal_write(self, op: str, args: dict[str, Any]) -> None:
        """Journal an applied write. If the disk refuses, the write is not
        acknowledged (503) and the simulator stops taking writes: the live
        state now holds one change the journal lacks, and acknowledging more
        writes on top of it would make a restart silently different."""
        if self._journal is None:
            return
        try:
            self._journal.record(self.clock.now, op, args)
        except (OSError, ValueError) as exc:
            self._journal_error = str(exc) or type(exc).__name__
            self._check_journal()

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
