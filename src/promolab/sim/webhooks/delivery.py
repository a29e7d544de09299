"""Delivering signed webhook bodies, with retries on the simulated clock.

A sendout is queued as a `PendingDelivery` (state, so snapshots keep it) and
attempted:

- right after the operation that caused it has finished changing the state
  (`Simulator.apply` runs the due deliveries once a write succeeded), so a
  receiver that raises or calls back into the simulator never sees, nor
  breaks, a half-applied operation;
- for work run by `Simulator.advance` (reward purchases, ...), at the same
  simulated instant, right after that work.

An attempt goes to an in-process receiver (`sim.register_receiver(name, fn)`,
`fn(headers, body) -> status | None`; None means 200; raising is a failed
attempt, `TimeoutError` a timeout; no receiver registered under the name is a
failed attempt too) or to a URL through httpx with the project's
`webhook_timeout_seconds`. A 2xx answer delivers; anything else is retried
1, 2, 4, 8, 16, 32 min, 1h04, 2h08, 4h16, 8h32, 17h04 and 24 h after the
FIRST attempt (docs/interface.md). When the last retry fails too the configuration
becomes DISABLED and its other pending sendouts are dropped. A configuration
that is not ACTIVE when an attempt falls due gets nothing (no attempt, no log
line). Every attempt is logged as a `DeliveryAttempt`.

Attempts are made in three steps, so that the network never runs under the
simulator's lock (a receiver that takes seconds would otherwise stall every
other client of a served simulator):

1. `claim_due` (under the lock): take the due sendouts off the queue, in due
   order, sign them and fix everything the log will say (attempt instant,
   signature, target). In-process receivers are called here, as before: they
   see the completed state and may call back into the simulator.
2. `Batch.send` (the caller lets go of the lock first): POST to the URLs.
3. `finish` (under the lock again): record the outcomes - log lines, retries,
   DISABLED - batch by batch in the order the batches were claimed, whatever
   order their sends end in. A batch claimed after another one waits, already
   sent, in the `Outbox` until the earlier one is recorded.

Claim order is the order of the writes (a write claims in the same lock hold
that applied and journaled it), and an outcome changes nothing another write
reads except the pending queue of its own configuration (see `_record`), so
the log, the queue and every state dump come out as if each write had been
delivered before the next one ran: what a replay of the journal produces.
`Simulator.advance`, snapshots and restores wait until no batch is in flight.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from ... import models
from ..records import DeliveryAttempt, PendingDelivery, WebhookConfig
from ..state import State, derived
from .envelope import target_of
from .signing import SIGNATURE_HEADER, sign

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = [
    "MAX_ATTEMPTS",
    "RETRY_OFFSETS",
    "Batch",
    "DeliveryProcessor",
    "DueOrder",
    "Outbox",
    "claim_due",
    "deliver_due",
    "due_order",
    "finish",
    "outbox",
    "queue",
]

#: When the retries fall due, counted from the first attempt.
RETRY_OFFSETS: tuple[timedelta, ...] = tuple(
    timedelta(minutes=m) for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440)
)
#: The first attempt plus one per retry.
MAX_ATTEMPTS = 1 + len(RETRY_OFFSETS)

_DELIVERING = "_promolab_delivering_webhooks"
_OUTBOX = "_promolab_webhook_outbox"
_DUE_ORDER = "webhook_due_order"

Outcome = Literal["delivered", "failed", "timeout", "error"]
Result = tuple[Outcome, int | None, str | None]


def queue(sim: Simulator, config: WebhookConfig, event_type: str, sendout_id: str, body: str) -> PendingDelivery:
    """Queue the first attempt of a sendout, due now."""
    pending = PendingDelivery(
        sendout_id=sendout_id,
        webhook_id=config.id,
        event_type=event_type,
        body=body,
        first_attempt_at=sim.now,
        next_attempt_at=sim.now,
        attempt=1,
    )
    sim.state.pending_deliveries.append(pending)
    return pending


# -- claimed attempts ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Claimed:
    """One attempt taken off the queue: what to send, and what the log will say.

    Everything but the result is fixed at claim time, under the lock, from the
    state and the simulated clock; `result` is filled at claim time for an
    in-process receiver and by `Batch.send` for a URL.
    """

    pending: PendingDelivery
    webhook_id: str
    attempted_at: datetime
    signature: str
    target: str
    headers: dict[str, str]
    body: bytes
    url: str | None
    timeout: float
    result: Result | None = None


@dataclass(slots=True)
class Batch:
    """The attempts one `claim_due` took, recorded together by `finish`."""

    attempts: list[Claimed] = field(default_factory=list)
    #: Claim order among this simulator's batches (set by the `Outbox`).
    ticket: int = -1

    @property
    def needs_network(self) -> bool:
        """Whether some attempt still has to be POSTed (`send`)."""
        return any(a.result is None for a in self.attempts)

    def send(self) -> None:
        """POST every URL attempt of the batch, in claim order; never raises
        for a receiver's failure (it becomes the attempt's outcome). Meant to
        run without the simulator's lock: it reads nothing from the state."""
        for claimed in self.attempts:
            if claimed.result is None and claimed.url is not None:
                claimed.result = _send_http(claimed.url, claimed.headers, claimed.body, claimed.timeout)


class Outbox:
    """Records batches in claim order, whatever order their sends end in.

    Runtime only (never in state): one per simulator (`outbox(sim)`), used
    under the simulator's lock. Tickets are handed out by `issue` in claim
    order; `finish` parks a sent batch and records every batch whose turn has
    come, so a batch is recorded by whichever thread finishes the batch ahead
    of it.
    """

    __slots__ = ("_next", "_ready", "_recorded")

    def __init__(self) -> None:
        self._next = 0
        self._recorded = 0
        self._ready: dict[int, Batch] = {}

    @property
    def idle(self) -> bool:
        """No batch claimed and not yet recorded: the state is a complete image."""
        return self._recorded == self._next

    def issue(self, batch: Batch) -> Batch:
        batch.ticket = self._next
        self._next += 1
        return batch

    def finish(self, sim: Simulator, batch: Batch) -> None:
        self._ready[batch.ticket] = batch
        while (turn := self._ready.pop(self._recorded, None)) is not None:
            try:
                for claimed in turn.attempts:
                    _record(sim, claimed)
            finally:  # a failure to record must not block every later batch
                self._recorded += 1


def outbox(sim: Simulator) -> Outbox:
    """The simulator's `Outbox` (created on first use, under the lock)."""
    box: Outbox | None = getattr(sim, _OUTBOX, None)
    if box is None:
        box = Outbox()
        setattr(sim, _OUTBOX, box)
    return box


def claim_due(sim: Simulator, now: datetime | None = None) -> Batch | None:
    """Claim every sendout due at or before `now` (default: the clock),
    earliest first (queue order on ties): step 1 of an attempt, under the
    lock. None when nothing was claimed.

    Re-entrant calls (an in-process receiver calling back into the simulator)
    return None at once: the outer call claims what they queued, in the same
    batch.
    """
    if getattr(sim, _DELIVERING, False):
        return None
    moment = sim.now if now is None else now
    batch = Batch()
    setattr(sim, _DELIVERING, True)
    try:
        while (first := due_order(sim).take_due(moment)) is not None:
            claimed = _claim(sim, first, sim.now)
            if claimed is not None:
                batch.attempts.append(claimed)
    finally:
        setattr(sim, _DELIVERING, False)
    return outbox(sim).issue(batch) if batch.attempts else None


def finish(sim: Simulator, batch: Batch) -> None:
    """Record a claimed (and sent) batch in its turn: step 3, under the lock."""
    outbox(sim).finish(sim, batch)


def deliver_due(sim: Simulator, now: datetime | None = None) -> None:
    """Claim, send and record at once, holding whatever lock the caller holds:
    for callers that cannot let go of the lock (a nested call). `Simulator`
    itself sends outside the lock."""
    batch = claim_due(sim, now)
    if batch is not None:
        try:
            batch.send()
        finally:
            finish(sim, batch)


class DueOrder:
    """`state.pending_deliveries` ordered by due time, for the processor's
    `next_due` (asked after every write and at every clock step) and for
    `deliver_due`, without a scan of the queue per question.

    Derived, never stored. It follows one list object: sendouts are appended
    to the queue (`queue`, retries in `_record`, or anyone else: new items
    are read from the end of the list) and leave it only through `take_due`;
    when the list is replaced (a configuration disabled or deleted drops its
    sendouts) or shrank behind its back, it is rebuilt. Each sendout gets a
    sequence number in queue order: heap entries are (next_attempt_at,
    sequence, sendout), so ties go to queue order, and the list, sorted by
    sequence, is searched by bisection to remove the sendout taken.
    """

    __slots__ = ("heap", "items", "seen", "seq", "seq_of", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self._rebuild()

    def _rebuild(self) -> None:
        self.items = self.state.pending_deliveries
        self.seen = 0
        self.heap: list[tuple[datetime, int, PendingDelivery]] = []
        self.seq = 0
        #: id(sendout) -> its sequence number, for as long as it is queued
        self.seq_of: dict[int, int] = {}
        self.sync()

    def sync(self) -> DueOrder:
        items = self.state.pending_deliveries
        if items is self.items and len(items) == self.seen:
            return self  # nothing new: the common case, asked after every write
        if items is not self.items or len(items) < self.seen:
            self._rebuild()
            return self
        for pending in items[self.seen:]:
            heapq.heappush(self.heap, (pending.next_attempt_at, self.seq, pending))
            self.seq_of[id(pending)] = self.seq
            self.seq += 1
        self.seen = len(items)
        return self

    def next_due(self) -> datetime | None:
        return self.heap[0][0] if self.heap else None

    def due_by(self, sim: Simulator, target: datetime) -> bool:
        """Whether a sendout is due at or before `target`: the processor's
        `processing.Watch` (exact, once in step with the queue)."""
        items = self.items
        if items is not self.state.pending_deliveries or len(items) != self.seen:
            self.sync()
        heap = self.heap
        return bool(heap) and heap[0][0] <= target

    def take_due(self, moment: datetime) -> PendingDelivery | None:
        """Remove the earliest sendout due at or before `moment` from the queue."""
        heap = self.heap
        if not heap or heap[0][0] > moment:
            return None
        _, seq, pending = heapq.heappop(heap)
        items, seq_of = self.items, self.seq_of
        i = bisect.bisect_left(items, seq, key=lambda p: seq_of.get(id(p), -1))
        if i == len(items) or items[i] is not pending:  # pragma: no cover - changed behind our back
            found = next((k for k, item in enumerate(items) if item is pending), None)
            if found is None:  # no longer queued: start over from the list
                self._rebuild()
                return self.take_due(moment)
            i = found
        del items[i]
        seq_of.pop(id(pending), None)
        self.seen -= 1
        return pending


def due_order(sim: Simulator) -> DueOrder:
    """The simulator's `DueOrder`, up to date."""
    return derived(sim, _DUE_ORDER, DueOrder).sync()


def _headers(signature: str) -> dict[str, str]:
    """Headers of every attempt; the version header says which envelope
    version the body follows (`/openapi.json` documents it under `webhooks`)."""
    return {
        "content-type": "application/json",
        "user-agent": "promolab-webhooks/1",
        models.WEBHOOK_VERSION_HEADER: models.WEBHOOK_VERSION,
        SIGNATURE_HEADER: signature,
    }


def _claim(sim: Simulator, pending: PendingDelivery, now: datetime) -> Claimed | None:
    """Fix one attempt of `pending` at `now`; an in-process receiver is called
    here. None for a configuration that is not ACTIVE (no attempt, no log)."""
    config = sim.state.webhooks.get(pending.webhook_id)
    if config is None or config.status != "ACTIVE":
        return None
    body = pending.body.encode("utf-8")
    signature = sign(body, config.secret.get_secret_value())
    claimed = Claimed(
        pending=pending,
        webhook_id=config.id,
        attempted_at=now,
        signature=signature,
        target=target_of(config),
        headers=_headers(signature),
        body=body,
        url=config.url,
        timeout=sim.state.settings.webhook_timeout_seconds,
    )
    if config.url is None:
        claimed.result = _send_in_process(sim, config, claimed.headers, body)
    return claimed


def _record(sim: Simulator, claimed: Claimed) -> None:
    """Log one attempt and plan what follows it (step 3).

    The retry is due `RETRY_OFFSETS[attempt - 1]` after the first attempt
    whatever the instant of recording, so a late recording changes no time.
    When the configuration is no longer ACTIVE at recording (deleted by a
    write that ran while this attempt was on the network), the attempt is
    logged with its planned retry but the retry is not queued: the deletion
    would have dropped it had the attempt been recorded first.
    """
    pending = claimed.pending
    outcome, status, error = claimed.result or ("error", None, "not sent: the delivery was interrupted")
    config = sim.state.webhooks.get(claimed.webhook_id)
    active = config is not None and config.status == "ACTIVE"
    next_at: datetime | None = None
    if outcome != "delivered":
        if pending.attempt < MAX_ATTEMPTS:
            next_at = pending.first_attempt_at + RETRY_OFFSETS[pending.attempt - 1]
            if active:
                retry = pending.model_copy(update={"attempt": pending.attempt + 1, "next_attempt_at": next_at})
                sim.state.pending_deliveries.append(retry)
        elif config is not None:
            if active:
                config.status = "DISABLED"
            sim.state.pending_deliveries = [
                p for p in sim.state.pending_deliveries if p.webhook_id != config.id
            ]
    sim.state.webhook_deliveries.append(
        DeliveryAttempt(
            sendout_id=pending.sendout_id,
            webhook_id=claimed.webhook_id,
            event_type=pending.event_type,
            attempt=pending.attempt,
            attempted_at=claimed.attempted_at,
            outcome=outcome,
            status_code=status,
            error=error,
            next_attempt_at=next_at,
            signature=claimed.signature,
            target=claimed.target,
        )
    )


def _send_in_process(
    sim: Simulator, config: WebhookConfig, headers: Mapping[str, str], body: bytes
) -> Result:
    """(outcome, status code, error) of one in-process attempt; never raises."""
    receiver = sim.receiver(config.receiver or "")
    if receiver is None:
        return "error", None, f"no receiver registered under {config.receiver!r}"
    try:
        answer = receiver(dict(headers), body)
    except TimeoutError as exc:
        return "timeout", None, f"receiver timed out: {exc}" if str(exc) else "receiver timed out"
    except Exception as exc:  # noqa: BLE001 - a receiver's bug is a failed attempt, not ours
        return "error", None, f"{type(exc).__name__}: {exc}"
    status = 200 if answer is None else answer
    if isinstance(status, bool) or not isinstance(status, int):
        return "error", None, f"receiver returned {answer!r}, not an HTTP status"
    return _judge(status)


def _judge(status: int) -> Result:
    if 200 <= status < 300:
        return "delivered", status, None
    return "failed", status, f"HTTP {status}"


def _send_http(url: str, headers: Mapping[str, str], body: bytes, timeout: float) -> Result:
    """(outcome, status code, error) of one POST; never raises for what the
    receiver or the network does (a URL httpx refuses is an `error` too)."""
    import httpx

    try:
        response = httpx.post(url, content=body, headers=dict(headers), timeout=timeout, follow_redirects=False)
    except httpx.TimeoutException as exc:
        return "timeout", None, f"no answer within {timeout:g} s ({type(exc).__name__})"
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return "error", None, f"{type(exc).__name__}: {exc}"
    return _judge(response.status_code)


class DeliveryProcessor:
    """Retries fall due on the simulated clock; first attempts are due at once."""

    name = "webhook_deliveries"
    #: Run right after every successful write (see `Simulator.apply`).
    after_writes = True

    def next_due(self, sim: Simulator) -> datetime | None:
        return due_order(sim).next_due()

    def watch(self, sim: Simulator) -> DueOrder:
        """The `DueOrder` of the simulator's state (it follows the queue itself)."""
        return derived(sim, _DUE_ORDER, DueOrder)

    def run_due(self, sim: Simulator, now: datetime) -> None:
        deliver_due(sim, now)

    def claim_due(self, sim: Simulator, now: datetime) -> Batch | None:
        """Step 1 only: the simulator sends the batch outside its lock and
        hands it back to `finish`."""
        return claim_due(sim, now)

    def finish(self, sim: Simulator, work: Batch) -> None:
        finish(sim, work)


DELIVERIES = DeliveryProcessor()
