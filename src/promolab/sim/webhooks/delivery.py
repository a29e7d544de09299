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
reads except the pending queue of its own configuration (see
`attempts.record_attempt`), so the log, the queue and every state dump come
out as if each write had been delivered before the next one ran: what a
replay of the journal produces.
`Simulator.advance`, snapshots and restores wait until no batch is in flight.

Here: the three steps and the processor that runs them on the clock. One
attempt, claimed and recorded, and the retry schedule are `attempts`; the
wire (receiver or POST) is `sending`; the queue in due order is `due_order`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from ..state import derived
from .attempts import Claimed, claim_attempt, record_attempt
from .due_order import DUE_ORDER, DueOrder, due_order
from .sending import send_http

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = [
    "Batch",
    "DeliveryProcessor",
    "Outbox",
    "claim_due",
    "deliver_due",
    "finish",
    "outbox",
]

_DELIVERING = "_promolab_delivering_webhooks"
_OUTBOX = "_promolab_webhook_outbox"


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
                claimed.result = send_http(claimed.url, claimed.headers, claimed.body, claimed.timeout)


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

    def issue(self, batch: Batch) -> Batch:
        batch.ticket = self._next
        self._next += 1
        return batch

    def finish(self, sim: Simulator, batch: Batch) -> None:
        self._ready[batch.ticket] = batch
        while (turn := self._ready.pop(self._recorded, None)) is not None:
            try:
                for claimed in turn.attempts:
                    record_attempt(sim, claimed)
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
            claimed = claim_attempt(sim, first, sim.now)
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


class DeliveryProcessor:
    """Retries fall due on the simulated clock; first attempts are due at once."""

    name = "webhook_deliveries"
    #: Run right after every successful write (see `Simulator.apply`).
    after_writes = True

    def next_due(self, sim: Simulator) -> datetime | None:
        return due_order(sim).next_due()

    def watch(self, sim: Simulator) -> DueOrder:
        """The `DueOrder` of the simulator's state (it follows the queue itself)."""
        return derived(sim, DUE_ORDER, DueOrder)

    def run_due(self, sim: Simulator, now: datetime) -> None:
        deliver_due(sim, now)

    def claim_due(self, sim: Simulator, now: datetime) -> Batch | None:
        """Step 1 only: the simulator sends the batch outside its lock and
        hands it back to `finish`."""
        return claim_due(sim, now)

    def finish(self, sim: Simulator, work: Batch) -> None:
        finish(sim, work)


DELIVERIES = DeliveryProcessor()
