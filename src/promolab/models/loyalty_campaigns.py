"""The loyalty programs as the service's v1 loyalty endpoints show them.

The interface's loyalty is the v2 API's (programs, card definitions, members,
cards); a pull reads the v1 endpoints, where a program is a campaign of type
LOYALTY_PROGRAM whose vouchers are LOYALTY_CARDs. How the simulator's v2
programs appear there is docs/decisions.md's "Loyalty programs of a pull".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import WireModel
from .categories import Category
from .common import Metadata, NonNegativeInt64, Timestamp

__all__ = [
    "LoyaltyCampaign",
    "LoyaltyCampaignList",
    "LoyaltyCampaignVoucher",
    "LoyaltyEarningRule",
    "LoyaltyEarningRuleList",
    "LoyaltyMember",
    "LoyaltyMemberList",
    "LoyaltyRewardAssignment",
    "LoyaltyRewardAssignmentList",
    "LoyaltyTier",
    "LoyaltyTierList",
]


class LoyaltyCampaignVoucher(WireModel):
    """What each card of the campaign starts as: `loyalty_card.points` (0 here) and its code settings."""

    __omit_if_none__ = frozenset({"loyalty_card", "start_date", "expiration_date"})

    type: Literal["LOYALTY_CARD"] = "LOYALTY_CARD"
    loyalty_card: dict[str, Any] | None = None
    redemption: dict[str, Any] = Field(default_factory=lambda: {"quantity": None})
    code_config: dict[str, Any] = Field(default_factory=dict)
    is_referral_code: bool = False
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None


class LoyaltyCampaign(WireModel):
    __omit_if_none__ = frozenset({"start_date", "expiration_date", "vouchers_count", "active", "updated_at"})

    id: str
    name: str
    campaign_type: Literal["LOYALTY_PROGRAM"] = "LOYALTY_PROGRAM"
    type: Literal["AUTO_UPDATE", "STATIC"]
    voucher: LoyaltyCampaignVoucher | None = None
    auto_join: bool
    join_once: bool
    use_voucher_metadata_schema: bool
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    vouchers_count: NonNegativeInt64 | None = None
    active: bool | None = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    creation_status: str
    vouchers_generation_status: str
    protected: bool
    category_id: str | None
    categories: list[Category]
    object: Literal["campaign"] = "campaign"


class LoyaltyCampaignList(WireModel):
    """A page of loyalty campaigns; `total` counts every match."""

    object: Literal["list"] = "list"
    data_ref: Literal["campaigns"] = "campaigns"
    campaigns: list[LoyaltyCampaign]
    total: NonNegativeInt64


class LoyaltyEarningRule(WireModel):
    """How a card earns points: `loyalty` FIXED (`points`) or PROPORTIONAL (its `calculation_type`)."""

    id: str
    created_at: Timestamp
    updated_at: Timestamp | None = None
    validation_rule_id: str | None = None
    loyalty: dict[str, Any]
    event: str | None = None
    source: dict[str, Any]
    active: bool
    object: Literal["earning_rule"] = "earning_rule"
    automation_id: str
    metadata: Metadata = Field(default_factory=dict)


class LoyaltyEarningRuleList(WireModel):
    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[LoyaltyEarningRule]
    total: NonNegativeInt64


class LoyaltyTier(WireModel):
    id: str
    name: str
    campaign_id: str
    metadata: Metadata | None = None
    created_at: Timestamp
    updated_at: Timestamp | None = None
    config: dict[str, Any]
    object: Literal["loyalty_tier"] = "loyalty_tier"


class LoyaltyTierList(WireModel):
    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[LoyaltyTier]
    total: NonNegativeInt64


class LoyaltyRewardAssignment(WireModel):
    """A reward offered in a loyalty campaign, at `parameters.loyalty.points`."""

    __omit_if_none__ = frozenset({"parameters"})

    id: str
    reward_id: str
    related_object_id: str
    related_object_type: Literal["campaign"] = "campaign"
    parameters: dict[str, Any] | None = None
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["reward_assignment"] = "reward_assignment"


class LoyaltyRewardAssignmentList(WireModel):
    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[LoyaltyRewardAssignment]
    total: NonNegativeInt64


class LoyaltyMember(WireModel):
    """A member's card: a LOYALTY_CARD voucher held by the customer (`holder_id`), its points in `loyalty_card`."""

    __omit_if_none__ = frozenset({"updated_at"})

    id: str
    code: str
    campaign: str
    campaign_id: str
    categories: list[Category] = Field(default_factory=list)
    type: Literal["LOYALTY_CARD"] = "LOYALTY_CARD"
    discount: dict[str, Any] | None = None
    gift: dict[str, Any] | None = None
    loyalty_card: dict[str, Any]
    active: bool | None = None
    metadata: Metadata = Field(default_factory=dict)
    assets: dict[str, Any] | None = None
    is_referral_code: bool | None = False
    created_at: Timestamp
    updated_at: Timestamp | None = None
    holder_id: str | None = None
    redemption: dict[str, Any] = Field(default_factory=dict)
    publish: dict[str, Any] = Field(default_factory=dict)
    object: Literal["voucher"] = "voucher"


class LoyaltyMemberList(WireModel):
    object: Literal["list"] = "list"
    data_ref: Literal["vouchers"] = "vouchers"
    vouchers: list[LoyaltyMember]
    total: NonNegativeInt64
