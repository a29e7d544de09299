"""`Simulator`: one instance, all the state of one simulated project.

There are no module-level singletons: the clock, the id generator, the state,
the journal and the in-process webhook receivers belong to the instance, so
several simulators coexist in one process (one per test, one per notebook
cell) without seeing each other.

Concurrency (a served simulator answers from many threads): every operation
runs under the instance's lock, except the network part of webhook
deliveries. A write claims its first attempts under the lock, lets go of it
for the POSTs and takes it again to record the outcomes before returning, so
a slow receiver delays only the write that caused the delivery. Recording is
kept in claim order (`webhooks.delivery.Outbox`) and `advance`, snapshots,
dumps and restores wait until no delivery is in flight, so what a client can
observe as a whole state is always the one a replay of the journal builds.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, cast

from .clock import Clock, format_instant, parse_instant
from .ids import IdGenerator
from .journal import Journal, encode_line
from .operations import REGISTRY, load_all, operation
from .refusals import InvalidPayload, JournalUnavailable
from .scenario import load_scenario, read_scenario
from .scheduler import (
    PROCESSORS,
    ClaimingProcessor,
    Outbound,
    Processor,
    after_writes,
    claims,
    due_by,
)
from .state import Indexes, State

if TYPE_CHECKING:
    from .. import models

__all__ = ["SNAPSHOT_FORMAT", "Simulator"]

SNAPSHOT_FORMAT = "promolab.snapshot/1"
_SNAPSHOT_KEYS = frozenset({"format", "seed", "clock", "ids", "state"})
#: The project's credentials that are secrets (what `_keep_secrets` keeps).
_CREDENTIAL_SECRETS = ("app_token", "access_token", "management_token")
DEFAULT_START = "2026-01-01T00:00:00Z"
_ZERO = timedelta(0)

Receiver = Callable[[Mapping[str, str], bytes], Any]
#: Claimed outbound work and the processor that records it.
Claimed = tuple[Processor, Outbound]


class Simulator:
    """An in-process, deterministic simulator of the service.

    Same seed + same scenario + same calls = the same bytes out: ids come
    from a seeded generator and time from a clock that moves only on
    `advance`.
    """

    def __init__(
        self,
        seed: int = 0,
        start: str | datetime = DEFAULT_START,
        *,
        scenario: str | Path | Mapping[str, Any] | None = None,
        _origin: str | None = None,
    ) -> None:
        load_all()
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
        self.clock = Clock(start_at)
        self.state = state
        self.indexes = Indexes(state)
        self._initial = self.snapshot()

    def _init_runtime(self) -> None:
        """The parts that are never in a snapshot: locks, receivers, journal."""
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
        self._receivers: dict[str, Receiver] = {}
        self._journal: Journal | None = None
        self._journal_error: str | None = None

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
        delta = by if isinstance(by, timedelta) else timedelta(seconds=by)
        if delta < _ZERO:
            raise ValueError("the simulated clock only moves forward")
        self._lock.acquire()
        try:
            if not self._in_flight and self._advancer is None and self._journal is None:
                clock = self.clock
                target = clock.now + delta
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

    def _count_in(self) -> int:
        """`_enter` for a thread that already took the lock (the quick path
        of `advance` does without the per-thread count, which costs more
        than the lock)."""
        local = self._depth
        depth: int = getattr(local, "n", 0)
        local.n = depth + 1
        return depth

    def _advance_held(self, delta: timedelta, depth: int) -> datetime:
        """`advance` under the lock when work may be due on the way or the
        simulator is not quiet: waits for quiet (unless nested), claims the
        advance, runs what is due and journals the move."""
        if not depth:
            self._wait_for_quiet()
            self._advancer = threading.get_ident()
        try:
            if self._journal is not None:
                self._check_journal()
            start = self.clock.now
            target = start + delta
            self._run_due(target, nested=depth > 0)
            # A receiver called on the way may have advanced the clock itself,
            # past `target`: the clock never goes back, so this advance ends
            # where that one did.
            if target > self.clock.now:
                self.clock.set(target)
            if self._journal is not None:
                self._journal_advance(start)
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
    def apply(self, name: str, /, **args: Any) -> Any:
        """Run the operation `name` with JSON-shaped arguments.

        This is the one door into the state: the HTTP face, the typed methods
        below and replay all come through here, under the simulator's lock, and
        a write that succeeded is journaled before its result is returned.
        """
        op = REGISTRY.get(name)
        if op is None:
            raise KeyError(f"unknown operation {name!r}; known: {', '.join(sorted(REGISTRY))}")
        if not op.write:
            with self._lock:
                return op.func(self, **args)
        depth = self._enter()
        try:
            if not depth and (self._advancer is not None or self._quiet_waiters):
                me = threading.get_ident()
                self._wait_until(lambda: self._advancer in (None, me) and not self._quiet_waiters)
            if self._journal_error is not None:
                self._check_journal()
            result = op.func(self, **args)
            if self._journal is not None:
                self._journal_write(name, args)
            claimed = self._run_after_write()
            if claimed and (depth or not any(work.needs_network for _, work in claimed)):
                for item in claimed:
                    self._finish_inline(item)
                claimed = []
        finally:
            self._leave(depth)
        if claimed:
            self._send_and_finish(claimed)
        return result

    def _check_journal(self) -> None:
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

    # -- outbound work (webhook POSTs) outside the lock --------------------
    def _claim(self, proc: Processor) -> Claimed | None:
        """Claim what `proc` has due now (under the lock); counted in flight
        until `_finish`."""
        work = cast(ClaimingProcessor, proc).claim_due(self, self.clock.now)
        if work is None:
            return None
        self._in_flight += 1
        return proc, work

    def _finish(self, claimed: Claimed) -> None:
        """Hand sent work back to its processor (under the lock)."""
        proc, work = claimed
        try:
            cast(ClaimingProcessor, proc).finish(self, work)
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

    def get_incentive(self, incentive_id: str) -> models.Incentive:
        return self.apply("get_incentive", incentive_id=incentive_id)  # type: ignore[no-any-return]

    def delete_reward(self, reward_id: str) -> models.Reward:
        return self.apply("delete_reward", reward_id=reward_id)  # type: ignore[no-any-return]

    def delete_webhook(self, project_id: str, webhook_id: str) -> None:
        self.apply("delete_webhook", project_id=project_id, webhook_id=webhook_id)

    def publish(self, request: Mapping[str, Any] | Any, *, join_once: bool = False) -> models.Publication:
        return self.apply("publish", request=_body(request), join_once=join_once)  # type: ignore[no-any-return]

    def validate_promotions(
        self,
        request: Mapping[str, Any] | Any | None = None,
        *,
        audience_rules_only: bool = False,
        filters: Mapping[str, Any] | None = None,
    ) -> models.ValidationResponse:
        from .. import models

        wire = self.apply(
            "validate",
            request=_body(request or {}),
            audience_rules_only=audience_rules_only,
            filters=dict(filters) if filters else None,
        )
        return models.ValidationResponse.model_validate(wire)

    def track_event(self, request: Mapping[str, Any] | Any) -> models.CustomEventResult:
        return self.apply("track_event", request=_body(request))  # type: ignore[no-any-return]

    def add_gift_balance(self, code: str, request: Mapping[str, Any] | Any | int) -> models.BalanceResult:
        body = {"amount": request} if isinstance(request, int) else _body(request)
        return self.apply("add_gift_balance", code=code, request=body)  # type: ignore[no-any-return]

    def purchase_reward(
        self, program_id: str, member_id: str, request: Mapping[str, Any] | Any | str
    ) -> models.RewardPurchaseResult:
        body = {"reward_id": request} if isinstance(request, str) else _body(request)
        return self.apply(  # type: ignore[no-any-return]
            "purchase_reward", program_id=program_id, member_id=member_id, request=body
        )

    # -- webhooks receivers (runtime only, never in state) ---------------
    def register_receiver(self, name: str, receiver: Receiver) -> None:
        """Route deliveries of configurations with `receiver: <name>` to a
        callable `(headers, body) -> status int | None`; raising or returning a
        non-2xx counts as a failed attempt."""
        self._receivers[name] = receiver

    def receiver(self, name: str) -> Receiver | None:
        return self._receivers.get(name)

    # -- journal ---------------------------------------------------------
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
        import hashlib

        initial = self._initial
        image = {**initial, "state": State.model_validate(initial["state"]).model_dump(mode="json")}
        text = json.dumps(image, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    @classmethod
    def restore(cls, snapshot: Mapping[str, Any]) -> Self:
        sim = cls.__new__(cls)
        load_all()
        sim._init_runtime()
        sim._install(sim._read_snapshot(snapshot))
        sim._initial = sim.snapshot()
        return sim

    def _read_snapshot(self, snapshot: Mapping[str, Any], keep_secrets: bool = False) -> _Loaded:
        """Check a snapshot and build what it restores, changing nothing:
        `ValueError` says what is wrong. Strict JSON types (a seed of `"7"`,
        `true` or `7.5` is refused, not converted), no unknown keys. Always
        `ValueError`, wrong types included: the one error callers turn into
        400 `invalid_payload`."""
        from pydantic import ValidationError

        from .request_parsing import describe_validation_error

        if not isinstance(snapshot, Mapping):
            raise ValueError(f"a snapshot is an object, not {type(snapshot).__name__}")  # noqa: TRY004
        if snapshot.get("format") != SNAPSHOT_FORMAT:
            raise ValueError(f"not a promolab snapshot (format {snapshot.get('format')!r})")
        unknown = sorted(set(snapshot) - _SNAPSHOT_KEYS)
        if unknown:
            raise ValueError(f"unknown keys {unknown}; a snapshot has {', '.join(sorted(_SNAPSHOT_KEYS))}")
        missing = [key for key in ("seed", "clock", "ids", "state") if key not in snapshot]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        seed, clock, counters = snapshot["seed"], snapshot["clock"], snapshot["ids"]
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, not {seed!r}")  # noqa: TRY004
        if not isinstance(clock, str):
            raise ValueError(f"clock must be an ISO 8601 string, not {clock!r}")  # noqa: TRY004
        try:
            at = Clock(clock)
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"clock {clock!r} is not an ISO 8601 instant with a timezone ({exc})") from None
        if not isinstance(counters, Mapping) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in counters.items()
        ):
            raise ValueError("ids must be an object of counters (integers >= 0)")
        if not isinstance(snapshot["state"], Mapping):
            raise ValueError("state must be an object")  # noqa: TRY004
        try:
            state = State.model_validate(snapshot["state"])
        except ValidationError as exc:
            raise ValueError(describe_validation_error(exc, ".state")) from None
        if keep_secrets:
            _keep_secrets(state, self.state)
        return _Loaded(seed, clock, dict(counters), at, state)

    def _install(self, loaded: _Loaded) -> None:
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
            self._swap("restore", lambda: _restore_args(loaded, self.state), loaded)

    def reset(self) -> None:
        """Back to the state this simulator was created or restored with;
        journaled as a `reset` line."""
        with self._quiet():
            self._swap("reset", dict, self._read_snapshot(self._initial))

    def _swap(self, op: str, args: Callable[[], dict[str, Any]], loaded: _Loaded) -> None:
        """Install `loaded` and journal `op` (under `_quiet`).

        The line is encoded before anything changes (a snapshot that cannot
        be journaled is refused as it is) and carries the clock BEFORE the
        swap: a replay reaches the line with its clock there, then swaps to
        the snapshot's clock, which may be earlier; the journal's `last_at`
        becomes the clock after it, where the next advance starts. If the
        journal cannot be written, the swap is undone and, as for any write,
        the simulator refuses writes until restarted (503)."""
        if self._journal_error is not None:
            self._check_journal()
        journal = self._journal
        line = None
        if journal is not None:
            line = encode_line(self.clock.iso(), op, args())
            try:
                line.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("the snapshot holds text that is not valid Unicode") from None
        previous = (self.seed, self.ids, self.clock, self.state, self.indexes)
        self._install(loaded)
        if journal is None or line is None:
            return
        try:
            journal.write(line, self.clock.now)
        except (OSError, ValueError) as exc:
            self.seed, self.ids, self.clock, self.state, self.indexes = previous
            self._journal_error = str(exc) or type(exc).__name__
            self._check_journal()

    def dump(self) -> dict[str, Any]:
        """The whole state as JSON-ready data, secrets redacted: what
        `/_sim/state` serves and what tests compare before/after."""
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


@dataclass(frozen=True, slots=True)
class _Loaded:
    """A checked snapshot, ready to install: `clock` as the snapshot wrote it
    (journaled as it is, to the microsecond), `at` the clock built from it."""

    seed: int
    clock: str
    counters: dict[str, int]
    at: Clock
    state: State


def _restore_args(loaded: _Loaded, running: State) -> dict[str, Any]:
    """The `restore` journal line's arguments: the snapshot as it will be
    installed, every secret equal to the running project's written as the
    redaction marker and `keep_secrets` set, which a replay (reaching the line
    with the same running secrets) turns back into the same values. A secret
    that IS the marker while the running one is not cannot be written that
    way (only an in-process `load_snapshot` without `keep_secrets` makes
    one): the snapshot is then journaled as installed, secrets in clear."""
    from .records._base import REDACTED

    state = loaded.state.dump()
    slots: list[tuple[dict[str, Any], str, str | None]] = []
    running_creds = running.project.credentials
    credentials = state["project"]["credentials"]
    for name in _CREDENTIAL_SECRETS:
        slots.append((credentials, name, getattr(running_creds, name).get_secret_value()))
    for hook_id, hook in state["webhooks"].items():
        config = running.webhooks.get(hook_id)
        slots.append((hook, "secret", None if config is None else config.secret.get_secret_value()))
    clear = any(holder[key] == REDACTED and value not in (None, REDACTED) for holder, key, value in slots)
    if not clear:
        for holder, key, value in slots:
            if value is not None and holder[key] == value:
                holder[key] = REDACTED
    snapshot = {"format": SNAPSHOT_FORMAT, "seed": loaded.seed, "clock": loaded.clock, "ids": loaded.counters,
                "state": state}
    return {"snapshot": snapshot, "keep_secrets": not clear}


# `reset` and `restore` are operations too, so that their journal lines are
# lines of the replay format (`promolab replay` and a restarting server run
# them through `apply` like any line). They are registered as `write=False`
# because `apply` must not journal them itself: `Simulator.reset` and
# `load_snapshot` do (their line carries the clock before the swap, and they
# wait until no webhook delivery is in flight), and they are what these call.
@operation("reset", write=False)
def _reset_operation(sim: Simulator) -> None:
    """Back to the state the simulator was created with (`POST /_sim/reset`)."""
    sim.reset()


@operation("restore", write=False)
def _restore_operation(sim: Simulator, snapshot: dict[str, Any], keep_secrets: bool = False) -> None:
    """Restore a snapshot in place (`POST /_sim/restore`); a bad snapshot is
    400 `invalid_payload`, nothing changed."""
    if not isinstance(snapshot, Mapping):
        raise InvalidPayload("Payload should be a snapshot object")
    try:
        sim.load_snapshot(snapshot, keep_secrets=keep_secrets)
    except ValueError as exc:
        raise InvalidPayload(f"Not a valid snapshot: {exc}") from None


def _keep_secrets(new: State, current: State) -> None:
    from .records._base import REDACTED

    creds, now_creds = new.project.credentials, current.project.credentials
    for name in _CREDENTIAL_SECRETS:
        if getattr(creds, name).get_secret_value() == REDACTED:
            setattr(creds, name, getattr(now_creds, name))
    for hook_id, hook in new.webhooks.items():
        running = current.webhooks.get(hook_id)
        if hook.secret.get_secret_value() == REDACTED and running is not None:
            hook.secret = running.secret


def _body(value: Any) -> dict[str, Any]:
    """Requests are carried as JSON-shaped dicts (what the journal stores);
    accept a wire model too, keeping only what the caller set."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_unset=True, by_alias=True)  # type: ignore[no-any-return]
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"expected a mapping or a wire model, got {type(value).__name__}")
