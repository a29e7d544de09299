"""Loyalty v2 card transactions, as returned by a reward purchase.

``details`` changes with the transaction type. Type-specific fields (``rejection``,
``points``, ``result``, ``reward_id``, ``bucket``) are sent only when they apply, following
the schema text "present for ..." / "only present for ...".

The interface types every field here as a plain value (``updated_at`` a date-time,
``reason`` a string, the ``points`` dates and types strings), not as nullable, where the
service's OpenAPI allows ``null``. The interface wins: a field without a value is left
out, never sent as ``null`` (docs/loyalty.md, "Card transaction on the wire"). Parsing
still accepts ``null`` from a real deployment.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from ._base import WireModel
from .common import Int64, IsoDate, Metadata, Timestamp

__all__ = [
    "CardTransaction",
    "CardTransactionDetails",
    "CardTransactionStatus",
    "CardTransactionType",
    "Rejection",
    "TransactionPoints",
]


class CardTransactionType(StrEnum):
    """The enum of the OpenAPI ``CardTransaction.type`` (loyalties v2)."""

    ADMIN_CREDIT = "ADMIN_CREDIT"
    ADMIN_DEBIT = "ADMIN_DEBIT"
    ADMIN_POINTS_EXPIRATION = "ADMIN_POINTS_EXPIRATION"
    POINTS_EARNED = "POINTS_EARNED"
    POINTS_SPENT_ON_REWARD = "POINTS_SPENT_ON_REWARD"
    POINTS_REFUNDED = "POINTS_REFUNDED"
    POINTS_RETURNED = "POINTS_RETURNED"
    POINTS_EXPIRED = "POINTS_EXPIRED"
    PENDING_POINTS_ADDED = "PENDING_POINTS_ADDED"
    PENDING_POINTS_ACTIVATED = "PENDING_POINTS_ACTIVATED"
    PENDING_POINTS_CANCELED = "PENDING_POINTS_CANCELED"


class CardTransactionStatus(StrEnum):
    PENDING = "PENDING"
    PROCESSING = "PROCESSING"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"


class Rejection(WireModel):
    """Why an asynchronous purchase was rejected after the 202."""

    __omit_if_none__ = frozenset({"details"})

    reason: str
    details: str | None = None


class TransactionPoints(WireModel):
    """Points moved by the transaction; the date and type fields are left out where they
    do not apply (a spend has no expiration)."""

    __omit_if_none__ = frozenset({"expiration_date", "expiration_type", "date", "type"})

    total: Int64
    expiration_date: IsoDate | None = None
    expiration_type: str | None = None
    date: IsoDate | None = None
    type: str | None = None


class CardTransactionDetails(WireModel):
    __omit_if_none__ = frozenset({"reason", "rejection", "points", "result", "reward_id", "bucket"})

    reason: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    rejection: Rejection | None = None
    points: TransactionPoints | None = None
    result: dict[str, Any] | None = None
    reward_id: str | None = None
    bucket: dict[str, Any] | None = None


class CardTransaction(WireModel):
    """One points operation on a member's card; ``updated_at`` is absent until the
    transaction changes (a PENDING purchase, a credit that was never settled)."""

    __omit_if_none__ = frozenset({"updated_at"})

    id: str
    card_id: str
    program_id: str
    member_id: str
    card_definition_id: str
    card_type: str
    type: CardTransactionType
    details: CardTransactionDetails
    status: CardTransactionStatus
    created_at: Timestamp
    updated_at: Timestamp | None = None
