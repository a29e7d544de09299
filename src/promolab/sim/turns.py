"""Whose turn it is: the simulator's lock, nested calls, and outbound work
sent with the lock let go.

Every operation runs under the instance's lock, except the network part of
webhook deliveries. A write claims its first attempts under the lock, lets go
of it for the POSTs and takes it again to record the outcomes before
returning, so a slow receiver delays only the write that caused the delivery.
Recording is kept in claim order (`webhooks.delivery.Outbox`) and `advance`,
snapshots, dumps and restores wait until no delivery is in flight
(`_quiet`), so what a client can observe as a whole state is always the one
a replay of the journal builds. `Simulator` is built on this class.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

from .scheduler import ClaimingProcessor, Outbound, Processor

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["Claimed", "Turns"]

#: Claimed outbound work and the processor that records it.
Claimed = tuple[Processor, Outbound]


class Turns:
    """The lock and the bookkeeping around it (never part of a snapshot)."""

    def _sim(self) -> Simulator:
        """This object as the simulator it is the base of (processors are
        handed the simulator)."""
        return cast("Simulator", self)

    def _init_turns(self) -> None:
        self._lock = threading.RLock()
        #: Notified when claimed outbound work is recorded and when an advance ends.
        self._turns = threading.Condition(self._lock)
        #: Threads inside `_turns.wait_for` (`_wait_until`): with none, there is
        #: nobody to notify, and the common single-threaded call skips it.
        self._waiting = 0
        #: Per thread: how deep it is in `_enter` (nested calls never wait nor let go).
        self._depth = threading.local()
        #: Outbound work claimed and not yet handed back to its processor.
        self._in_flight = 0
        #: The thread running an `advance` (writes of other threads wait for it).
        self._advancer: int | None = None
        #: Threads waiting in `_wait_for_quiet`; new writes wait for them, so a
        #: stream of writes with slow deliveries cannot starve an advance.
        self._quiet_waiters = 0

    def _count_in(self) -> int:
        """`_enter` for a thread that already took the lock (the quick path
        of `advance` does without the per-thread count, which costs more
        than the lock)."""
        local = self._depth
        depth: int = getattr(local, "n", 0)
        local.n = depth + 1
        return depth

    # -- outbound work (webhook POSTs) outside the lock --------------------
    def _claim(self, proc: Processor) -> Claimed | None:
        """Claim what `proc` has due now (under the lock); counted in flight
        until `_finish`."""
        sim = self._sim()
        work = cast(ClaimingProcessor, proc).claim_due(sim, sim.clock.now)
        if work is None:
            return None
        self._in_flight += 1
        return proc, work

    def _finish(self, claimed: Claimed) -> None:
        """Hand sent work back to its processor (under the lock)."""
        proc, work = claimed
        try:
            cast(ClaimingProcessor, proc).finish(self._sim(), work)
        finally:
            self._in_flight -= 1
            self._notify()

    def _finish_inline(self, claimed: Claimed) -> None:
        """Send without letting go of the lock, then finish: for work with
        nothing to post, and for nested calls, whose caller holds the lock."""
        try:
            claimed[1].send()
        finally:
            self._finish(claimed)

    def _send_and_finish(self, claimed: list[Claimed]) -> None:
        """Send with the lock released, then take it again to record. Called
        by `apply` after its lock hold, so the write's caller gets its answer
        only once the attempts are made (and, unless an earlier write's
        delivery is still on the network, recorded)."""
        try:
            for _, work in claimed:
                work.send()
        finally:
            with self._lock:
                for item in claimed:
                    self._finish(item)

    def _enter(self) -> int:
        """Take the lock; return how deep this thread already was (0: not
        inside; more: a receiver calling back, work run by `advance`). A
        nested call must neither wait for other threads nor let go of the
        lock. Paired with `_leave(depth)` in a `finally` (the hot paths,
        `apply` and `advance`, spell it out: a generator-based context
        manager costs more than the lock itself)."""
        self._lock.acquire()
        return self._count_in()

    def _leave(self, depth: int) -> None:
        self._depth.n = depth
        self._lock.release()

    @contextmanager
    def _held(self) -> Iterator[bool]:
        """`_enter`/`_leave` as a context manager, yielding whether the call is nested."""
        depth = self._enter()
        try:
            yield depth > 0
        finally:
            self._leave(depth)

    @contextmanager
    def _released(self) -> Iterator[None]:
        """Let go of the lock (held once, by `_enter`, not nested) for a while."""
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()

    def _wait_until(self, predicate: Callable[[], bool]) -> None:
        """`_turns.wait_for`, counted in `_waiting` (under the lock)."""
        self._waiting += 1
        try:
            self._turns.wait_for(predicate)
        finally:
            self._waiting -= 1

    def _notify(self) -> None:
        """Wake the waiting threads, if any (under the lock)."""
        if self._waiting:
            self._turns.notify_all()

    def _wait_for_quiet(self) -> None:
        """Wait (the lock is released while waiting) until no outbound work is
        in flight and no other thread is advancing: the state is then a
        complete image (no sendout both off the queue and out of the log).
        New writes are held back meanwhile (see `_quiet_waiters`)."""
        me = threading.get_ident()
        if self._in_flight == 0 and self._advancer in (None, me):
            return  # already quiet: nothing to wait for, nobody held back
        self._quiet_waiters += 1
        try:
            self._wait_until(lambda: self._in_flight == 0 and self._advancer in (None, me))
        finally:
            self._quiet_waiters -= 1
            self._notify()

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        """The lock, once the state is a complete image (see `_wait_for_quiet`);
        a nested call takes it as it is."""
        with self._held() as nested:
            if not nested:
                self._wait_for_quiet()
            yield
