"""Custom events (endpoint ``TRACK_EVENT``): inbound facts that may earn points or convert a
referral. They produce no webhook in the interface."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import RequestModel, WireModel
from .common import Metadata
from .customers import Customer, IdentifiedCustomerInput

__all__ = [
    "CustomEventRequest",
    "CustomEventResult",
    "EventCustomer",
    "LoyaltyInput",
    "ReferralInput",
]


class EventCustomer(IdentifiedCustomerInput):
    """Who performed the event (created when unknown)."""


class ReferralInput(RequestModel):
    """The referral code whose conversion event this is."""

    __omit_if_none__ = frozenset({"referrer_id"})

    code: str = Field(min_length=1)
    referrer_id: str | None = Field(default=None, min_length=1)


class LoyaltyInput(RequestModel):
    """The loyalty card to credit when an earning rule is based on this event."""

    code: str = Field(min_length=1)


class CustomEventRequest(RequestModel):
    __omit_if_none__ = frozenset({"referral", "loyalty", "metadata"})

    event: str = Field(min_length=1, max_length=300)
    customer: EventCustomer
    referral: ReferralInput | None = None
    loyalty: LoyaltyInput | None = None
    metadata: Metadata | None = None


class CustomEventResult(WireModel):
    """Acknowledgement of a tracked event.

    ``metadata`` is required (the response schema says so, even though the service's own
    example omits it); ``referral`` and ``loyalty`` are null in every shown response.
    """

    object: Literal["event"] = "event"
    type: str
    customer: Customer
    referral: dict[str, Any] | None = None
    loyalty: dict[str, Any] | None = None
    metadata: Metadata
