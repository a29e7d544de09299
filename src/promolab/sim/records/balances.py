"""Gift-voucher transactions (CREDITS_ADDITION and friends)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ._base import Instant, Record

__all__ = ["VoucherTransaction"]


class VoucherTransaction(Record):
    id: str
    voucher_id: str
    campaign_id: str | None = None
    source_id: str | None = None
    source: str = "API"
    reason: str | None = None
    type: str
    amount: int
    details: dict[str, Any] = Field(default_factory=dict)
    related_transaction_id: str | None = None
    created_at: Instant
