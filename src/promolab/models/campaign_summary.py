"""A campaign's summary (what its redemption ledger counts over a date range) and its transactions.

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
from .webhooks import VoucherTransaction

__all__ = ["CampaignSummary", "CampaignTransactionList"]

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


class CampaignTransactionList(WireModel):
    """A page of the transactions of a campaign's codes, paged by a cursor: `more_starting_after`
    (the last one's id, while `has_more`) is the next page's `starting_after_id`."""

    __omit_if_none__ = frozenset({"more_starting_after"})

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[VoucherTransaction]
    #: Always written; the service's example of an empty list (a campaign without transactions)
    #: leaves it out, which parses as no more.
    has_more: bool = False
    more_starting_after: str | None = None
