"""Adding balance to a gift voucher or loyalty card (endpoint ``ADD_GIFT_BALANCE``).

The request model accepts any integer amount (negative subtracts in the real service);
whether a given amount is allowed is the simulator's business rule, not a shape rule.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from ._base import RequestModel, WireModel
from .common import Int64

__all__ = ["AddBalanceRequest", "BalanceRelatedObject", "BalanceResult", "BalanceType"]


class BalanceType(StrEnum):
    GIFT_VOUCHER = "gift_voucher"
    LOYALTY_CARD = "loyalty_card"


class AddBalanceRequest(RequestModel):
    __omit_if_none__ = frozenset({"source_id", "reason"})

    amount: Int64
    source_id: str | None = Field(default=None, min_length=1)
    # min_length=0 allows "" but has pydantic check the text: a lone surrogate
    # is refused here instead of crashing the webhook signer after the write
    reason: str | None = Field(default=None, min_length=0)


class BalanceRelatedObject(WireModel):
    type: Literal["voucher"] = "voucher"
    id: str = Field(min_length=1)


class BalanceResult(WireModel):
    """The balance after the operation: ``amount`` added, ``total`` credited, ``balance`` left."""

    amount: Int64
    total: Int64
    balance: Int64
    type: BalanceType
    operation_type: Literal["MANUAL"] = "MANUAL"
    object: Literal["balance"] = "balance"
    related_object: BalanceRelatedObject
