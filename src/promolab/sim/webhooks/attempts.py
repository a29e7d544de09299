"""One delivery attempt: claimed (what is sent, fixed under the lock) and
recorded (its log line and what follows it), and the retry schedule.

A sendout is queued (`queue`) as a `PendingDelivery`, due at once. When it
falls due, `claim_attempt` fixes everything the log will say (instant,
signature, target, headers) and calls an in-process receiver; once the
attempt is answered, `record_attempt` logs a `DeliveryAttempt` and queues
the retry, due `RETRY_OFFSETS[attempt - 1]` after the FIRST attempt, or,
after the last one, disables the configuration and drops its sendouts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ... import models
from ..clock import later_or_end
from ..records import DeliveryAttempt, PendingDelivery, WebhookConfig
from .envelope import target_of
from .sending import Result, send_in_process
from .signing import SIGNATURE_HEADER, sign

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["MAX_ATTEMPTS", "RETRY_OFFSETS", "Claimed", "claim_attempt", "queue", "record_attempt"]

#: When the retries fall due, counted from the first attempt.
RETRY_OFFSETS: tuple[timedelta, ...] = tuple(
    timedelta(minutes=m) for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440)
)
#: The first attempt plus one per retry.
MAX_ATTEMPTS = 1 + len(RETRY_OFFSETS)


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


@dataclass(slots=True)
class Claimed:
    """One attempt taken off the queue: what to send, and what the log will say.

    Everything but the result is fixed at claim time, under the lock, from the
    state and the simulated clock; `result` is filled at claim time for an
    in-process receiver and by `delivery.Batch.send` for a URL.
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


def _headers(signature: str) -> dict[str, str]:
    """Headers of every attempt; the version header says which envelope
    version the body follows (`/openapi.json` documents it under `webhooks`)."""
    return {
        "content-type": "application/json",
        "user-agent": "promolab-webhooks/1",
        models.WEBHOOK_VERSION_HEADER: models.WEBHOOK_VERSION,
        SIGNATURE_HEADER: signature,
    }


def claim_attempt(sim: Simulator, pending: PendingDelivery, now: datetime) -> Claimed | None:
    """Fix one attempt of `pending` at `now`; an in-process receiver is called
    here. None for a configuration that is not ACTIVE (no attempt, no log).
    A simulator rebuilding its state after a failed write (`write_log.py`)
    takes the outcome the attempt had instead: receivers are not called
    again, URLs not POSTed again."""
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
    if sim.write_log.feed is not None:  # undoing a failed write: what was answered then, not asked again
        claimed.result = sim.write_log.next_outcome()
    elif config.url is None:
        claimed.result = send_in_process(sim, config, claimed.headers, body)
    return claimed


def record_attempt(sim: Simulator, claimed: Claimed) -> None:
    """Log one attempt and plan what follows it (step 3 in `delivery`).

    The retry is due `RETRY_OFFSETS[attempt - 1]` after the first attempt
    whatever the instant of recording, so a late recording changes no time.
    When the configuration is no longer ACTIVE at recording (deleted by a
    write that ran while this attempt was on the network), the attempt is
    logged with its planned retry but the retry is not queued: the deletion
    would have dropped it had the attempt been recorded first.
    """
    pending = claimed.pending
    outcome, status, error = result = claimed.result or ("error", None, "not sent: the delivery was interrupted")
    sim.write_log.outcome(result)
    config = sim.state.webhooks.get(claimed.webhook_id)
    active = config is not None and config.status == "ACTIVE"
    next_at: datetime | None = None
    if outcome != "delivered":
        if pending.attempt < MAX_ATTEMPTS:
            next_at = later_or_end(pending.first_attempt_at, RETRY_OFFSETS[pending.attempt - 1])
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
