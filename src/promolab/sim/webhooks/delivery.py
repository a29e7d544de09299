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
FIRST attempt (semantics §7). When the last retry fails too the configuration
becomes DISABLED and its other pending sendouts are dropped. A configuration
that is not ACTIVE when an attempt falls due gets nothing (no attempt, no log
line). Every attempt is logged as a `DeliveryAttempt`.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from ..processing import processor
from ..records import DeliveryAttempt, PendingDelivery, WebhookConfig
from ..state import State, derived
from .envelope import target_of
from .signing import SIGNATURE_HEADER, sign

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["MAX_ATTEMPTS", "RETRY_OFFSETS", "DeliveryProcessor", "DueOrder", "deliver_due", "due_order", "queue"]

#: When the retries fall due, counted from the first attempt.
RETRY_OFFSETS: tuple[timedelta, ...] = tuple(
    timedelta(minutes=m) for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440)
)
#: The first attempt plus one per retry.
MAX_ATTEMPTS = 1 + len(RETRY_OFFSETS)

_DELIVERING = "_promolab_delivering_webhooks"

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


def deliver_due(sim: Simulator, now: datetime | None = None) -> None:
    """Attempt every sendout due at or before `now` (default: the clock),
    earliest first (queue order on ties).

    Re-entrant calls (a receiver calling back into the simulator) return at
    once: the outer call picks up what they queued.
    """
    if getattr(sim, _DELIVERING, False):
        return
    moment = sim.now if now is None else now
    setattr(sim, _DELIVERING, True)
    try:
        while (first := due_order(sim).take_due(moment)) is not None:
            _attempt(sim, first, sim.now)
    finally:
        setattr(sim, _DELIVERING, False)


class DueOrder:
    """`state.pending_deliveries` ordered by due time, for the processor's
    `next_due` (asked after every write and at every clock step) and for
    `deliver_due`, without a scan of the queue per question.

    Derived, never stored. It follows one list object: sendouts are appended
    to the queue (`queue`, retries in `_attempt`, or anyone else: new items
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
    return derived(sim, "webhook_due_order", DueOrder).sync()


def _headers(signature: str) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "user-agent": "promolab-webhooks/1",
        SIGNATURE_HEADER: signature,
    }


def _attempt(sim: Simulator, pending: PendingDelivery, now: datetime) -> None:
    config = sim.state.webhooks.get(pending.webhook_id)
    if config is None or config.status != "ACTIVE":
        return
    body = pending.body.encode("utf-8")
    signature = sign(body, config.secret.get_secret_value())
    outcome, status, error = _send(sim, config, _headers(signature), body)
    next_at: datetime | None = None
    if outcome != "delivered":
        if pending.attempt < MAX_ATTEMPTS:
            next_at = pending.first_attempt_at + RETRY_OFFSETS[pending.attempt - 1]
            retry = pending.model_copy(update={"attempt": pending.attempt + 1, "next_attempt_at": next_at})
            sim.state.pending_deliveries.append(retry)
        else:
            config.status = "DISABLED"
            sim.state.pending_deliveries = [
                p for p in sim.state.pending_deliveries if p.webhook_id != config.id
            ]
    sim.state.webhook_deliveries.append(
        DeliveryAttempt(
            sendout_id=pending.sendout_id,
            webhook_id=config.id,
            event_type=pending.event_type,
            attempt=pending.attempt,
            attempted_at=now,
            outcome=outcome,
            status_code=status,
            error=error,
            next_attempt_at=next_at,
            signature=signature,
            target=target_of(config),
        )
    )


def _send(
    sim: Simulator, config: WebhookConfig, headers: Mapping[str, str], body: bytes
) -> Result:
    """(outcome, status code, error) of one attempt; never raises."""
    if config.url is not None:
        return _send_http(config.url, headers, body, sim.state.settings.webhook_timeout_seconds)
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
    import httpx

    try:
        response = httpx.post(url, content=body, headers=dict(headers), timeout=timeout, follow_redirects=False)
    except httpx.TimeoutException as exc:
        return "timeout", None, f"no answer within {timeout:g} s ({type(exc).__name__})"
    except httpx.HTTPError as exc:
        return "error", None, f"{type(exc).__name__}: {exc}"
    return _judge(response.status_code)


class DeliveryProcessor:
    """Retries fall due on the simulated clock; first attempts are due at once."""

    name = "webhook_deliveries"
    #: Run right after every successful write (see `Simulator.apply`).
    after_writes = True

    def next_due(self, sim: Simulator) -> datetime | None:
        return due_order(sim).next_due()

    def run_due(self, sim: Simulator, now: datetime) -> None:
        deliver_due(sim, now)


processor(DeliveryProcessor())
