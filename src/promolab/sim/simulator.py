"""`Simulator`: one instance, all the state of one simulated project.

There are no module-level singletons: the clock, the id generator, the state,
the journal and the in-process webhook receivers belong to the instance, so
several simulators coexist in one process (one per test, one per notebook
cell) without seeing each other.

Concurrency (a served simulator answers from many threads): every operation
runs under the instance's lock; how writes, advances and webhook deliveries
take turns is in `turns.py`, the base class. Snapshots are checked and
journaled by `snapshots.py`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any, ParamSpec, Self, TypeVar

from ..display import DEFAULT_CURRENCY, scenario_currency
from .clock import Clock, format_instant, later, parse_instant, seconds_delta
from .ids import IdGenerator
from .journaling import Journaling
from .kept_snapshot import KeptSnapshot
from .scenario import load_scenario, read_scenario
from .scheduler import (
    PROCESSORS,
    after_writes,
    claims,
    due_by,
)
from .snapshots import SNAPSHOT_FORMAT, Loaded, fingerprint, read_snapshot, restore_args
from .state import Indexes, State
from .turns import Claimed

if TYPE_CHECKING:
    from .operation import Operation

__all__ = ["SNAPSHOT_FORMAT", "Simulator"]

DEFAULT_START = "2026-01-01T00:00:00Z"
P = ParamSpec("P")
R = TypeVar("R")
_ZERO = timedelta(0)

Receiver = Callable[[Mapping[str, str], bytes], Any]


class Simulator(Journaling):
    """An in-process, deterministic simulator of the service.

    Same seed + same scenario + same calls = the same bytes out: ids come
    from a seeded generator and time from a clock that moves only on
    `advance`.
    """

    #: What its amounts are in: the scenario's `project.currency` (ISO 4217).
    #: Not state (a dump is the same bytes whatever the currency), so a
    #: simulator made from a snapshot (`restore`) is in DEFAULT_CURRENCY until
    #: told otherwise. The frames of promolab.analysis carry it in `attrs`.
    currency: str = DEFAULT_CURRENCY

    def __init__(
        self,
        seed: int = 0,
        start: str | datetime = DEFAULT_START,
        *,
        scenario: str | Path | Mapping[str, Any] | None = None,
        _origin: str | None = None,
    ) -> None:
        self._init_runtime()
        self.seed = seed
        self.ids = IdGenerator(seed)
        start_at = parse_instant(start)
        if scenario is None:
            state = State()
        else:
            loaded = load_scenario(scenario, ids=self.ids, now=start_at, origin=_origin)
            state = loaded.state
            start_at = loaded.start or start_at
            self.currency = scenario_currency(loaded.document)
        self.clock = Clock(start_at)
        self.state = state
        self.indexes = Indexes(state)
        self._keep_initial()

    def _keep_initial(self) -> None:
        """Keep the state as it is now as the one `reset` goes back to (packed,
        `kept_snapshot`), and start the write log from it."""
        self._initial = KeptSnapshot.of(self.snapshot())
        self.write_log.start_from(self._initial)

    def _init_runtime(self) -> None:
        """The parts that are never in a snapshot: locks, receivers, journal."""
        self._init_turns()
        self._init_journaling()
        self._receivers: dict[str, Receiver] = {}

    # -- construction ----------------------------------------------------
    @classmethod
    def from_scenario(
        cls,
        source: str | Path | Mapping[str, Any],
        *,
        seed: int | None = None,
        start: str | datetime | None = None,
    ) -> Self:
        """Load a scenario file (YAML/JSON) or mapping. The seed is, in order:
        the argument, the scenario's `seed`, 0."""
        document, origin = read_scenario(source)  # parsed once, named in errors
        chosen = seed if seed is not None else document.get("seed", 0)
        if not isinstance(chosen, int) or isinstance(chosen, bool):
            chosen = 0  # the loader reports the bad `seed` with its path
        return cls(seed=chosen, start=start or DEFAULT_START, scenario=document, _origin=origin)

    # -- time ------------------------------------------------------------
    @property
    def now(self) -> datetime:
        return self.clock.now

    def advance(self, by: float | timedelta) -> datetime:
        """Move the clock forward, running due work at its own instant.

        Webhook POSTs falling due on the way are made with the lock released:
        reads are answered meanwhile (they may see the clock at an instant on
        the way), while writes of other threads wait for the advance to end,
        so the journal's order stays the order things happened in.

        Most calls (a replay stepping to its next line) find nothing due on
        the way, nothing in flight, nobody advancing and no journal: they only
        set the clock, under the lock but without claiming the advance, which
        no other thread can tell apart since the lock is never let go.
        """
        delta = by if isinstance(by, timedelta) else seconds_delta(by)
        if delta < _ZERO:
            raise ValueError("the simulated clock only moves forward")
        self._lock.acquire()
        try:
            # Past the last instant a timestamp holds: `TimeOutOfRange` (a
            # ValueError naming `seconds`) before anything moved or ran.
            target = later(self.clock.now, delta, field="seconds")
            if not self._in_flight and self._advancer is None and self._journal is None and self._fault is None:
                clock = self.clock
                if not due_by(self, target):
                    clock.set(target)
                    return target
            depth = self._count_in()
            try:
                return self._advance_held(delta, depth)
            finally:
                self._depth.n = depth
        finally:
            self._lock.release()

    def _advance_held(self, delta: timedelta, depth: int) -> datetime:
        """`advance` under the lock when work may be due on the way or the
        simulator is not quiet: waits for quiet (unless nested), claims the
        advance, runs what is due and journals the move."""
        if not depth:
            self._wait_for_quiet()
            self._advancer = threading.get_ident()
        try:
            if self._journal_error is not None or self._fault is not None:
                self._check_journal()
            if not depth:
                self._checkpoint_if_due()
            start = self.clock.now
            # checked again: the clock may have moved while this call waited
            target = later(start, delta, field="seconds")
            mark, started = self.ids.mark(), perf_counter()
            try:
                self._run_due(target, nested=depth > 0)
            except Exception as exc:  # a bug in due work: part of it ran, unjournaled; undone (see `_run_write`)
                self.ids.rewind(mark)
                self._undo(f"advance failed with {type(exc).__name__}: {exc}", nested=depth > 0, until=start)
                raise
            # A receiver called on the way may have advanced the clock itself,
            # past `target`: the clock never goes back, so this advance ends
            # where that one did.
            if target > self.clock.now:
                self.clock.set(target)
            self._record_advance(start)
            self.write_log.spent(perf_counter() - started)
            if not depth:
                self._undo_if_due()
            return self.clock.now
        finally:
            if not depth:
                self._advancer = None
                self._notify()

    def _run_due(self, target: datetime, *, nested: bool) -> None:
        #: Claiming processors that claimed nothing though due (a receiver
        #: calling `advance` from inside a delivery): what is due is the outer
        #: call's to take; asking again would never end.
        stuck: set[int] = set()
        while True:
            due: tuple[datetime, int] | None = None
            for index, proc in enumerate(PROCESSORS):
                if index in stuck:
                    continue
                when = proc.next_due(self)
                if when is not None and when <= target and (due is None or when < due[0]):
                    due = (when, index)
            if due is None:
                return
            when, index = due
            if when > self.clock.now:
                self.clock.set(when)
            proc = PROCESSORS[index]
            if not claims(proc):
                proc.run_due(self, self.clock.now)
                continue
            work = self._claim(proc)
            if work is None:
                if proc.next_due(self) == when:
                    stuck.add(index)
            elif nested or not work[1].needs_network:
                self._finish_inline(work)
            else:
                try:
                    with self._released():
                        work[1].send()
                finally:
                    self._finish(work)

    # -- operations ------------------------------------------------------
    def apply(self, op: Operation[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run the operation `op` with keyword arguments of JSON-shaped values.

        This is the one door into the state: the HTTP face and replay come
        through here, under the simulator's lock, and a write that succeeded
        is journaled (its name and arguments, which is why they are keywords)
        before its result is returned.
        """
        if args:
            raise TypeError(f"{op.name} takes keyword arguments only (they are what the journal records)")
        if not op.write:
            with self._lock:
                return op.run(self, *args, **kwargs)
        depth = self._enter()
        try:
            if not depth and (self._advancer is not None or self._quiet_waiters):
                me = threading.get_ident()
                self._wait_until(lambda: self._advancer in (None, me) and not self._quiet_waiters)
            if self._journal_error is not None or self._fault is not None:
                self._check_journal()
            if not depth:
                self._checkpoint_if_due()
            started = perf_counter()
            result = self._run_write(op, depth, *args, **kwargs)
            self._record(op.name, kwargs)
            self.write_log.spent(perf_counter() - started)
            claimed = self._run_after_write()
            if claimed and (depth or not any(work.needs_network for _, work in claimed)):
                for item in claimed:
                    self._finish_inline(item)
                claimed = []
            if not depth and not claimed:
                self._undo_if_due()
        finally:
            self._leave(depth)
        if claimed:
            self._send_and_finish(claimed)
            if self._undo_due is not None:  # a write of a receiver failed: undone once the POSTs are recorded
                with self._quiet():
                    self._undo_if_due()
        return result

    def _run_after_write(self) -> list[Claimed]:
        """Work that must follow a completed write at once (first webhook
        attempts): processors flagged `after_writes` run what is due now; a
        claiming one only claims it, and the claimed work is returned for
        `apply` to send and hand back before it returns."""
        claimed: list[Claimed] = []
        for proc in after_writes():
            when = proc.next_due(self)
            if when is None or when > self.clock.now:
                continue
            if claims(proc):
                work = self._claim(proc)
                if work is not None:
                    claimed.append(work)
            else:
                proc.run_due(self, self.clock.now)
        return claimed

    # -- webhooks receivers (runtime only, never in state) ---------------
    def register_receiver(self, name: str, receiver: Receiver) -> None:
        """Route deliveries of configurations with `receiver: <name>` to a
        callable `(headers, body) -> status int | None`; raising or returning a
        non-2xx counts as a failed attempt."""
        self._receivers[name] = receiver

    def receiver(self, name: str) -> Receiver | None:
        return self._receivers.get(name)

    # -- snapshots -------------------------------------------------------
    def snapshot(self, *, redact: bool = False) -> dict[str, Any]:
        """A JSON-serialisable image from which `restore` rebuilds this exact
        simulator. Secrets are included (keep snapshots private) unless
        `redact`: a redacted snapshot restores onto a running simulator,
        which keeps its own secrets (`load_snapshot(..., keep_secrets=True)`)."""
        with self._quiet():
            return {
                "format": SNAPSHOT_FORMAT,
                "seed": self.seed,
                "clock": self.clock.iso(),
                "ids": self.ids.state(),
                "state": self.state.model_dump(mode="json") if redact else self.state.dump(),
            }

    def initial_fingerprint(self) -> str:
        """`sha256:<hex>` of the state this simulator was created (or
        restored) with, its seed, clock and id counters included, secrets
        left out: what a journal header names, so that a journal is never
        replayed onto another scenario. Two loads of the same scenario with
        the same seed give the same fingerprint, whatever the file's
        formatting; a change that alters the loaded state changes it."""
        return fingerprint(self._initial.snapshot())

    @classmethod
    def restore(cls, snapshot: Mapping[str, Any]) -> Self:
        sim = cls.__new__(cls)
        sim._init_runtime()
        sim._install(sim._read_snapshot(snapshot))
        sim._keep_initial()
        return sim

    def _read_snapshot(self, snapshot: Mapping[str, Any], keep_secrets: bool = False) -> Loaded:
        """`snapshots.read_snapshot`, keeping this simulator's secrets if asked."""
        return read_snapshot(snapshot, keep_secrets_of=self.state if keep_secrets else None)

    def _install(self, loaded: Loaded) -> None:
        """Swap the whole state at once: everything is built first, then
        assigned, so a failure leaves the running state as it was."""
        ids, indexes = IdGenerator(loaded.seed, loaded.counters), Indexes(loaded.state)
        self.seed, self.ids, self.clock, self.state, self.indexes = loaded.seed, ids, loaded.at, loaded.state, indexes

    def load_snapshot(self, snapshot: Mapping[str, Any], *, keep_secrets: bool = False) -> None:
        """Restore in place (keeps receivers and journal): the control API's
        restore, which must not swap the object a server holds. With
        `keep_secrets`, redacted secrets in the snapshot take the running
        project's values, so a redacted snapshot cannot lock clients out.

        Journaled as a `restore` line (a restart reproduces it), with every
        secret equal to the running project's written as the redaction marker
        (replayed with `keep_secrets`, it comes back the same) so the journal
        holds no secret it does not need. `ValueError` for a bad snapshot,
        nothing changed."""
        with self._quiet():
            loaded = self._read_snapshot(snapshot, keep_secrets)
            self._swap("restore", lambda: restore_args(loaded, self.state), loaded)

    def reset(self) -> None:
        """Back to the state this simulator was created or restored with;
        journaled as a `reset` line."""
        with self._quiet():
            self._swap("reset", dict, self._read_snapshot(self._initial.snapshot()), kept=self._initial)

    def _swap(
        self, op: str, args: Callable[[], dict[str, Any]], loaded: Loaded, *, kept: KeptSnapshot | None = None
    ) -> None:
        """Install `loaded` and journal `op` (under `_quiet`).

        The line is encoded before anything changes (a snapshot that cannot
        be journaled is refused as it is) and carries the clock BEFORE the
        swap: a replay reaches the line with its clock there, then swaps to
        the snapshot's clock, which may be earlier; the journal's `last_at`
        becomes the clock after it, where the next advance starts. If the
        journal cannot be written, the swap is undone and, as for any write,
        the simulator refuses writes until restarted (503). Once swapped,
        the write log starts over from the new state: `kept`, the snapshot
        it was read from when the simulator keeps that unchanged (`reset`),
        or a checkpoint of it."""
        if self._journal_error is not None:
            self._check_journal()
        journal = self._journal
        line = None
        if journal is not None:
            line = journal.encode(self.clock.iso(), op, args())
            try:
                line.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("the snapshot holds text that is not valid Unicode") from None
        previous = (self.seed, self.ids, self.clock, self.state, self.indexes)
        fault, self._fault = self._fault, None  # the state a failed write may have left half changed goes
        self._install(loaded)
        if journal is not None and line is not None:
            try:
                journal.write(line, self.clock.now)
            except (OSError, ValueError) as exc:
                self.seed, self.ids, self.clock, self.state, self.indexes = previous
                self._fault = fault
                self._journal_error = str(exc) or type(exc).__name__
                self._check_journal()
        if kept is not None:
            self.write_log.start_from(kept)
        else:
            self.write_log.checkpoint(self.seed, self.ids, self.clock, self.state)

    def dump(self) -> dict[str, Any]:
        """The whole state as JSON-ready data, secrets redacted: what
        the control API's state read serves and what tests compare before/after."""
        with self._quiet():
            return {
                "clock": self.clock.iso(),
                "ids": self.ids.state(),
                "state": self.state.model_dump(mode="json"),
            }

    def dump_json(self) -> str:
        return json.dumps(self.dump(), separators=(",", ":"), ensure_ascii=False)

    def __repr__(self) -> str:
        return f"<Simulator project={self.state.project.id} seed={self.seed} now={format_instant(self.now)}>"
