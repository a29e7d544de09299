"""Campaigns as the read endpoints of a pull answer them (the campaign list and one campaign).

A campaign of codes (coupons, gift cards, referral codes) shows the
template its codes follow (`voucher`: the discount or gift, the redemption
limit, the code pattern); a PROMOTION campaign has tiers, not codes, and no
`voucher`. One campaign shows its validation rules as assignments
(`validation_rules_assignments`); a list shows none (the service's
CampaignBase). Which fields the simulator fills and with what is in
docs/decisions.md ("Campaigns").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool

from ._base import WireModel
from .categories import Category
from .common import Metadata, NonNegativeInt64, Timestamp
from .discounts import Discount
from .validation_rules import ValidationRuleAssignmentList
from .vouchers import Gift, ValidityTimeframe, VoucherType
from .webhooks import CampaignType, CodeConfig

__all__ = [
    "AccessSettingsAssignmentList",
    "Campaign",
    "CampaignKind",
    "CampaignList",
    "CampaignRedemptionLimit",
    "CampaignVoucher",
]

#: `campaign_type` (the service's word); `type` (STATIC...) is `webhooks.CampaignType`.
CampaignKind = Literal["LOYALTY_PROGRAM", "GIFT_VOUCHERS", "DISCOUNT_COUPONS", "PROMOTION", "REFERRAL_PROGRAM"]


class CampaignRedemptionLimit(WireModel):
    """How many times each code may be redeemed (null: without limit)."""

    quantity: NonNegativeInt64 | None


class CampaignVoucher(WireModel):
    """The template of a campaign's codes."""

    __omit_if_none__ = frozenset({"discount", "gift", "code_config", "start_date", "expiration_date",
                                  "validity_timeframe", "validity_day_of_week"})

    type: VoucherType
    discount: Discount | None = None
    #: A gift campaign's credit per code: a new code starts with `balance` = `amount`.
    gift: Gift | None = None
    redemption: CampaignRedemptionLimit
    #: Always written by the simulator; the service's summary example leaves it out, so it parses absent.
    code_config: CodeConfig | None = None
    is_referral_code: StrictBool
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    validity_timeframe: ValidityTimeframe | None = None
    validity_day_of_week: list[int] | None = None


class AccessSettingsAssignmentList(WireModel):
    """The campaign's areas and stores (`expand=access_settings_assignments`): none in the simulator."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[dict[str, Any]]
    total: NonNegativeInt64


class Campaign(WireModel):
    """A campaign, in the service's field order."""

    __omit_if_none__ = frozenset({
        "voucher", "start_date", "expiration_date", "validity_timeframe", "validity_day_of_week",
        "vouchers_count", "updated_at", "category", "validation_rules_assignments", "access_settings_assignments",
    })

    id: str
    name: str
    campaign_type: CampaignKind
    type: CampaignType
    voucher: CampaignVoucher | None = None
    auto_join: StrictBool
    join_once: StrictBool
    use_voucher_metadata_schema: StrictBool
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    validity_timeframe: ValidityTimeframe | None = None
    validity_day_of_week: list[int] | None = None
    vouchers_count: NonNegativeInt64 | None = None
    active: StrictBool
    metadata: Metadata
    created_at: Timestamp
    updated_at: Timestamp | None = None
    category: str | None = None
    creation_status: Literal["DONE", "IN_PROGRESS", "FAILED", "DRAFT", "MODIFYING"]
    vouchers_generation_status: Literal["DONE", "IN_PROGRESS", "FAILED", "DRAFT", "MODIFYING"]
    protected: StrictBool
    validation_rules_assignments: ValidationRuleAssignmentList | None = None
    access_settings_assignments: AccessSettingsAssignmentList | None = None
    category_id: str | None
    categories: list[Category] = Field(default_factory=list)
    object: Literal["campaign"] = "campaign"


class CampaignList(WireModel):
    """A page of campaigns; `total` counts every match."""

    object: Literal["list"] = "list"
    data_ref: Literal["campaigns"] = "campaigns"
    campaigns: list[Campaign]
    total: NonNegativeInt64
