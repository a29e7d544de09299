"""Validation sessions (LOCK): what a validation holds until it is redeemed, released or expires."""

from __future__ import annotations

from pydantic import Field

from ._base import Instant, Money, Record

__all__ = ["SessionHold", "ValidationSession"]


class SessionHold(Record):
    """One code held by a session: a use of it, and gift credits."""

    voucher_id: str
    credits: Money = 0


class ValidationSession(Record):
    key: str
    created_at: Instant
    expires_at: Instant
    #: As the request said it (echoed by the answer).
    ttl: int
    ttl_unit: str
    holds: list[SessionHold] = Field(default_factory=list)
