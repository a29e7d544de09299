"""Customers and customer lists (segments) used by audience rules."""

from __future__ import annotations

from pydantic import Field

from ._base import Instant, Metadata, Record

__all__ = ["Customer", "Segment"]


class Customer(Record):
    id: str
    source_id: str | None = None
    name: str | None = None
    email: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Instant | None = None


class Segment(Record):
    """A static customer list; `customer.segment` rules test membership."""

    id: str
    name: str
    customers: list[str] = Field(default_factory=list)
