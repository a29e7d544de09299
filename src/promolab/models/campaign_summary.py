"""A campaign's summary: what its redemption ledger counts over a date range.

One model for the service's five shapes (discount, promotion, gift,
loyalty, referral campaigns): the counts every campaign has, then the
groups its type adds, each left out where the type has none (a promotion
has no codes to count; only a gift campaign counts credits; only a
referral campaign counts referred customers).
"""

from __future__ import annotations

from typing import Literal

from ._base import WireModel
from .campaigns import Campaign
from .common import Int64, NonNegativeInt64

__all__ = ["CampaignSummary"]

_CODES = ("vouchers_created", "vouchers_deleted", "publications", "publications_succeeded", "publications_failed")
_DISCOUNTS = ("discounted_amount", "rolledback_discounted_amount")
_GIFT = ("created_vouchers_amount", "amount_added", "amount_deleted", "amount_redeemed", "amount_rolledback",
         "amount_subtracted")


class CampaignSummary(WireModel):
    """`object: campaign_summary`: the campaign, then its counts and amounts (money in minor units)."""

    __omit_if_none__ = frozenset({*_CODES, *_DISCOUNTS, *_GIFT, "referred_customers"})

    object: Literal["campaign_summary"] = "campaign_summary"
    campaign: Campaign
    redemptions: NonNegativeInt64
    redemptions_succeeded: NonNegativeInt64
    redemptions_failed: NonNegativeInt64
    rollbacks: NonNegativeInt64
    rollbacks_succeeded: NonNegativeInt64
    rollbacks_failed: NonNegativeInt64
    validations: NonNegativeInt64
    validations_succeeded: NonNegativeInt64
    validations_failed: NonNegativeInt64
    vouchers_created: NonNegativeInt64 | None = None
    vouchers_deleted: NonNegativeInt64 | None = None
    publications: NonNegativeInt64 | None = None
    publications_succeeded: NonNegativeInt64 | None = None
    publications_failed: NonNegativeInt64 | None = None
    created_vouchers_amount: Int64 | None = None
    amount_added: Int64 | None = None
    amount_deleted: Int64 | None = None
    amount_redeemed: Int64 | None = None
    amount_rolledback: Int64 | None = None
    amount_subtracted: Int64 | None = None
    referred_customers: NonNegativeInt64 | None = None
    discounted_amount: Int64 | None = None
    rolledback_discounted_amount: Int64 | None = None
    orders_amount: Int64
    orders_rolledback_amount: Int64
