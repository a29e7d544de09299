"""Tracked events -> the custom event result (`object: "event"`)."""

from __future__ import annotations

from ... import models
from ..fast_validate import validated
from ..records import Customer, TrackedEvent
from .customers import customer_body

__all__ = ["render_event_result"]


def render_event_result(record: TrackedEvent, customer: Customer) -> models.CustomEventResult:
    """As the interface shows it: `referral` and `loyalty` are null (what the
    event did is in the state: card transactions, conversions)."""
    return validated(
        models.CustomEventResult,
        {
            "object": "event",
            "type": record.name,
            "customer": customer_body(customer),
            "referral": None,
            "loyalty": None,
            "metadata": record.metadata,
        },
    )
