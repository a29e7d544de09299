"""Outgoing webhooks: envelope, signature, delivery and retries.

`emit(sim, event_type, data, entity_id=...)` is the one entry point: for every
ACTIVE configuration subscribed to `event_type` it builds the 2024-01-01
envelope, serialises it compactly, and queues the sendout; the first attempt
runs as soon as the operation that emitted has finished (see `delivery`), and
failed attempts are retried on the simulated clock. Signing happens at each
attempt with the configuration's secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .attempts import MAX_ATTEMPTS, RETRY_OFFSETS
from .delivery import deliver_due
from .envelope import EventBodies, WebhookEvent, build_envelope, payload_type
from .signing import SIGNATURE_HEADER, encode_body, sign, verify_signature

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = [
    "MAX_ATTEMPTS",
    "RETRY_OFFSETS",
    "SIGNATURE_HEADER",
    "WebhookEvent",
    "build_envelope",
    "deliver_due",
    "emit",
    "encode_body",
    "payload_type",
    "sign",
    "subscribers",
    "verify_signature",
]


def subscribers(sim: Simulator, event_type: str) -> list[Any]:
    """ACTIVE configurations subscribed to `event_type`, in creation order."""
    return [c for c in sim.state.webhooks.values() if c.status == "ACTIVE" and event_type in c.events]


def emit(
    sim: Simulator,
    event_type: str,
    data: BaseModel | dict[str, Any],
    *,
    entity_id: str,
    group_id: str | None = None,
) -> None:
    """Send `event_type` with `data` to every subscribed ACTIVE configuration.

    `event_type` is the subscription name (`EVENTS.CUSTOMER.VOUCHER.GIFT.
    BALANCE_ADDED`); `data` is the JSON-ready payload, or its validated wire
    model (taken as it is, see `build_envelope`); `entity_id` the id of the
    entity the event is about; `group_id` the id of the request that caused it
    (a fresh `v-…` id when not given). Nothing happens without subscribers.
    Delivery is queued, never done inline: it runs once the calling operation
    has completed (a receiver can neither see nor break a half-applied state).
    """
    from .attempts import queue

    configs = subscribers(sim, event_type)
    if not configs:
        return
    event_id = sim.ids.next("event")
    group = group_id if group_id is not None else sim.ids.next("request")
    bodies = EventBodies(data, WebhookEvent(
        project_id=sim.state.project.id,
        event_type=event_type,
        event_id=event_id,
        created_at=sim.now,
        entity_id=entity_id,
        group_id=group,
    ))
    for config in configs:
        sendout_id = sim.ids.next("webhook_sendout")
        queue(sim, config, event_type, sendout_id, bodies.body(config, sendout_id))
