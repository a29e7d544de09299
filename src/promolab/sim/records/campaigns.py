"""Campaigns with their promotion tiers and vouchers.

Discounts, validation rules and applicable_to scopes are kept in the real
service's wire shape (plain mappings) so that a scenario can be written by
copying JSON from a real project; they are checked against the wire models
when the scenario loads.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from ._base import Instant, Metadata, Money, Record

__all__ = [
    "Campaign",
    "CampaignType",
    "Category",
    "CodePool",
    "GiftState",
    "PromotionStack",
    "PromotionTier",
    "ReferralSettings",
    "ReferrerReward",
    "ValidityTimeframe",
    "Voucher",
]

CampaignType = Literal["PROMOTION", "DISCOUNT_COUPONS", "GIFT_VOUCHERS", "REFERRAL_PROGRAM"]


class ValidityTimeframe(Record):
    """Recurring window: starts every `interval` (ISO 8601) and lasts `duration`."""

    interval: str
    duration: str


class ReferrerReward(Record):
    """What a referrer earns for a conversion.

    `LOYALTY_POINTS` credits the referrer's card in a v2 program;
    `DISCOUNT_COUPON` publishes a free code of a coupon campaign to them;
    `GIFT_CREDITS` adds balance to the referrer's gift voucher of a campaign.
    """

    type: Literal["LOYALTY_POINTS", "DISCOUNT_COUPON", "GIFT_CREDITS"]
    program_id: str | None = None
    card_definition_id: str | None = None
    points: int | None = Field(default=None, ge=0)
    campaign_id: str | None = None
    amount: Money | None = None


class ReferralSettings(Record):
    #: Name of the custom event (from the event schema) that converts a referral.
    conversion_event: str
    referrer_reward: ReferrerReward | None = None


def _none(ids: list[str]) -> bool:
    """Left out of dumps while empty, so that a state without categories (every
    scenario before they existed) dumps, and fingerprints, as before."""
    return not ids


class Category(Record):
    """A category of the project, named by campaigns and tiers.

    Its stacking type is not kept here: the project's stacking rules
    (`exclusive_categories`, `joint_categories`) decide it, and the management
    API may change them; answers read it from the rules in force."""

    id: str
    name: str
    #: Lower first under CATEGORY_HIERARCHY (the service's default 1, lowest 0).
    hierarchy: int = Field(default=1, ge=0)
    created_at: Instant | None = None


class Campaign(Record):
    id: str
    name: str
    type: CampaignType = "PROMOTION"
    active: bool = True
    start_date: Instant | None = None
    expiration_date: Instant | None = None
    validity_timeframe: ValidityTimeframe | None = None
    validity_day_of_week: list[int] | None = None
    #: Ids of the project's categories it is in, in the order given.
    categories: list[str] = Field(default_factory=list, exclude_if=_none)
    metadata: Metadata = Field(default_factory=dict)
    #: Campaign-level join_once: one published code per customer.
    join_once: bool = False
    #: Template of generated codes: the discount a DISCOUNT_COUPONS/REFERRAL
    #: voucher carries, or the initial gift of a GIFT_VOUCHERS voucher.
    discount: dict[str, Any] | None = None
    gift_amount: Money | None = None
    referral: ReferralSettings | None = None
    #: The codes' validation rules and scope (`applicable_to`: included /
    #: excluded), as a tier's; a voucher's own replace them.
    validation_rules: dict[str, Any] | None = None
    applicable_to: dict[str, Any] | None = None
    created_at: Instant | None = None

    @model_validator(mode="before")
    @classmethod
    def _before_categories(cls, data: Any) -> Any:
        """A snapshot written before campaigns had `categories` carries
        `category_id` and `category`: a campaign without a category (both
        null) still restores; one with a value named a category no state
        held (there were no top-level categories), so it is refused, naming
        the field, like any other unknown key."""
        if isinstance(data, dict) and data.get("category_id") is None and data.get("category") is None:
            return {k: v for k, v in data.items() if k not in ("category_id", "category")}
        return data


class PromotionTier(Record):
    id: str
    campaign_id: str
    name: str
    banner: str | None = None
    hierarchy: int = Field(default=1, ge=0)
    #: The tier's own categories (empty: it is in its campaign's).
    categories: list[str] = Field(default_factory=list, exclude_if=_none)
    active: bool = True
    discount: dict[str, Any]
    validation_rules: dict[str, Any] | None = None
    applicable_to: dict[str, Any] | None = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Instant | None = None


class PromotionStack(Record):
    """Tiers of one campaign redeemed together (`{"object": "promotion_stack"}`)."""

    id: str
    campaign_id: str
    name: str
    tier_ids: list[str]
    created_at: Instant | None = None


class GiftState(Record):
    #: Lifetime credited amount; `balance = amount - redeemed_amount`.
    amount: Money = 0
    balance: Money = 0
    effect: str = "APPLY_TO_ORDER"


class Voucher(Record):
    id: str
    code: str
    campaign_id: str | None = None
    type: Literal["DISCOUNT_VOUCHER", "GIFT_VOUCHER", "LOYALTY_CARD"] = "DISCOUNT_VOUCHER"
    discount: dict[str, Any] | None = None
    gift: GiftState | None = None
    active: bool = True
    start_date: Instant | None = None
    expiration_date: Instant | None = None
    additional_info: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    is_referral_code: bool = False
    holder_id: str | None = None
    redemption_quantity: int | None = None
    #: The code's own rules and scope (None: its campaign's, `Campaign.validation_rules`).
    validation_rules: dict[str, Any] | None = None
    applicable_to: dict[str, Any] | None = None
    redeemed_quantity: int = 0
    redeemed_amount: Money = 0
    publish_count: int = 0
    created_at: Instant | None = None
    updated_at: Instant | None = None


class CodePool(Record):
    """Codes a campaign generates at load time (seeded, so reproducible)."""

    count: int = Field(ge=0, le=100_000)
    prefix: str = ""
    postfix: str = ""
    length: int = Field(default=8, ge=4, le=32)
    charset: str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
