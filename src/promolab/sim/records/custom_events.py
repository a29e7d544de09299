"""The custom event schema, tracked events and referral conversions."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import Instant, Metadata, Record

__all__ = ["EventSchema", "MetadataProperty", "ReferralConversion", "TrackedEvent"]


class MetadataProperty(Record):
    type: Literal["string", "number", "boolean", "date", "datetime", "object", "array"] = "string"
    required: bool = False
    #: Allowed values, when the schema restricts them.
    enum: list[Any] | None = None
    min_length: int | None = None
    max_length: int | None = None
    min: float | None = None
    max: float | None = None


class EventSchema(Record):
    name: str = Field(min_length=1, max_length=300)
    metadata: dict[str, MetadataProperty] = Field(default_factory=dict)
    #: Whether metadata keys absent from the schema are refused.
    allow_extra: bool = True


class TrackedEvent(Record):
    id: str
    name: str
    customer_id: str
    metadata: Metadata = Field(default_factory=dict)
    referral: dict[str, Any] | None = None
    loyalty: dict[str, Any] | None = None
    created_at: Instant


class ReferralConversion(Record):
    id: str
    campaign_id: str
    code: str
    referrer_id: str
    referee_id: str
    event_id: str
    created_at: Instant
