"""Publications: a voucher handed to a customer."""

from __future__ import annotations

from pydantic import Field

from ._base import Instant, Metadata, Record

__all__ = ["Publication"]


class Publication(Record):
    id: str
    created_at: Instant
    customer_id: str
    voucher_id: str
    campaign_id: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    channel: str = "API"
    source_id: str | None = None
    tracking_id: str | None = None
    #: Canonical JSON of what was asked, so a retry with the same source_id can
    #: be told apart from a reuse with other parameters.
    fingerprint: str = ""
