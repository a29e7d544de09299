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

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from ..processing import processor
from ..records import DeliveryAttempt, PendingDelivery, WebhookConfig
from .envelope import target_of
from .signing import SIGNATURE_HEADER, sign

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["MAX_ATTEMPTS", "RETRY_OFFSETS", "DeliveryProcessor", "deliver_due", "queue"]

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
    """Attempt every sendout due at or before `now` (default: the clock).

    Re-entrant calls (a receiver calling back into the simulator) return at
    once: the outer call picks up what they queued.
    """
    if getattr(sim, _DELIVERING, False):
        return
    moment = sim.now if now is None else now
    setattr(sim, _DELIVERING, True)
    try:
        while True:
            due = [p for p in sim.state.pending_deliveries if p.next_attempt_at <= moment]
            if not due:
                return
            first = min(due, key=lambda p: p.next_attempt_at)  # stable: queue order on ties
            sim.state.pending_deliveries.remove(first)
            _attempt(sim, first, sim.now)
    finally:
        setattr(sim, _DELIVERING, False)


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
        pending = sim.state.pending_deliveries
        return min((p.next_attempt_at for p in pending), default=None)

    def run_due(self, sim: Simulator, now: datetime) -> None:
        deliver_due(sim, now)


processor(DeliveryProcessor())
