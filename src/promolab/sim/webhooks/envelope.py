"""The 2024-01-01 webhook envelope (semantics §7).

    {"id": "whs_…", "project_id", "created_at", "type", "data": {…},
     "source": {"id": "wh_…", "object": "webhook", "target_url"},
     "event": {"id", "type", "created_at", "entity_id", "group_id",
               "event_source": {"channel": "API"}}}

Subscriptions name events the dashboard way (`EVENTS.CUSTOMER.VOUCHER.GIFT.
BALANCE_ADDED`); a delivery names them the payload way, lower case without the
`EVENTS.` prefix (`customer.voucher.gift.balance_added`). Both the top-level
`type` and `event.type` carry that payload name: the data is the customer
variant of the event (it has a `customer`), so the project-level short name
`voucher.gift.balance_added` would promise a payload without one.

Every delivery of one emitted event shares the `event` block (same id, same
group); each configuration gets its own sendout id and `source`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ... import models
from ..records import WebhookConfig
from ..render import iso

__all__ = ["build_envelope", "payload_type", "target_of"]


def payload_type(event_type: str) -> str:
    """`EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED` -> `customer.voucher.gift.balance_added`."""
    name = event_type[len("EVENTS."):] if event_type.upper().startswith("EVENTS.") else event_type
    return name.lower()


def target_of(config: WebhookConfig) -> str:
    """Where a configuration delivers: its URL, or `receiver://<name>` for an
    in-process receiver."""
    return config.url if config.url is not None else f"receiver://{config.receiver}"


def build_envelope(
    *,
    project_id: str,
    config: WebhookConfig,
    event_type: str,
    data: dict[str, Any],
    sendout_id: str,
    event_id: str,
    created_at: datetime,
    entity_id: str,
    group_id: str,
) -> dict[str, Any]:
    """The envelope as JSON-ready data, checked against the wire model."""
    kind = payload_type(event_type)
    envelope = {
        "id": sendout_id,
        "project_id": project_id,
        "created_at": iso(created_at),
        "type": kind,
        "data": data,
        "source": {"id": config.id, "object": "webhook", "target_url": target_of(config)},
        "event": {
            "id": event_id,
            "type": kind,
            "created_at": iso(created_at),
            "entity_id": entity_id,
            "group_id": group_id,
            "event_source": {"channel": "API"},
        },
    }
    checked: dict[str, Any] = models.WebhookEnvelope.model_validate(envelope).model_dump(mode="json")
    return checked
