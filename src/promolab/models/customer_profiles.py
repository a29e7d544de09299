"""A customer as the service's customer endpoints show one: with what it redeemed and ordered.

`models.Customer` is the short customer object embedded in publications and
events; a customer read by id or listed (`CustomerProfile`) adds its
`summary` (redemptions and orders), `loyalty` and `referrals`, as the
service's customers endpoints do.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import WireModel
from .common import Int64, Metadata, NonNegativeInt64, Timestamp

__all__ = [
    "CustomerList",
    "CustomerLoyalty",
    "CustomerOrdersSummary",
    "CustomerProfile",
    "CustomerRedemptionsSummary",
    "CustomerReferrals",
    "CustomerSummary",
]


class CustomerRedemptionsSummary(WireModel):
    total_redeemed: NonNegativeInt64
    total_failed: NonNegativeInt64
    total_succeeded: NonNegativeInt64
    total_rolled_back: NonNegativeInt64
    total_rollback_failed: NonNegativeInt64
    total_rollback_succeeded: NonNegativeInt64
    gift: dict[str, Int64]
    loyalty_card: dict[str, Int64]


class CustomerOrdersSummary(WireModel):
    __omit_if_none__ = frozenset({"last_order_date"})

    total_amount: NonNegativeInt64
    total_count: NonNegativeInt64
    average_amount: NonNegativeInt64
    last_order_amount: NonNegativeInt64
    last_order_date: Timestamp | None = None


class CustomerSummary(WireModel):
    redemptions: CustomerRedemptionsSummary
    orders: CustomerOrdersSummary


class CustomerLoyalty(WireModel):
    points: Int64
    referred_customers: NonNegativeInt64
    campaigns: dict[str, dict[str, Any]] = Field(default_factory=dict)


class CustomerReferrals(WireModel):
    total: NonNegativeInt64
    campaigns: list[dict[str, Any]] = Field(default_factory=list)


class CustomerProfile(WireModel):
    __omit_if_none__ = frozenset({"updated_at", "created_at"})

    id: str
    source_id: str | None = None
    name: str | None = None
    email: str | None = None
    address: dict[str, Any] | None = None
    summary: CustomerSummary
    loyalty: CustomerLoyalty
    referrals: CustomerReferrals
    metadata: Metadata = Field(default_factory=dict)
    system_metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    object: Literal["customer"] = "customer"


class CustomerList(WireModel):
    """A page of customers; `has_more` says whether another page follows."""

    object: Literal["list"] = "list"
    data_ref: Literal["customers"] = "customers"
    customers: list[CustomerProfile]
    total: NonNegativeInt64
    has_more: bool
