"""Promotion tiers and stacks as the project defines them: what a pull lists of them.

`models.PromotionTier` is a tier's entry in a validation's answer (its
verdict, the order priced, the amounts); a pull reads the tier itself:
its discount under `action`, its campaign's dates and activity, its
validation rules by their assignment (`val_<tier id>` assigned as
`asgm_<tier id>`, docs/decisions.md "Validation rules of a pull"). A stack
is the tiers of one campaign redeemed together, by id.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from ._base import WireModel
from .categories import Category
from .common import Int64, Metadata, NonNegativeInt64, Timestamp
from .discounts import Discount
from .validation_rules import ValidationRuleAssignmentList
from .vouchers import ValidityTimeframe

__all__ = [
    "PromotionStack",
    "PromotionStackList",
    "PromotionStackTiers",
    "TierAction",
    "TierDefinition",
    "TierDefinitionCampaign",
    "TierDefinitionList",
]


class TierAction(WireModel):
    discount: Discount


class TierDefinitionCampaign(WireModel):
    """The tier's campaign as far as the tier's availability goes: dates, recurrence, activity, category."""

    __omit_if_none__ = frozenset({"validity_timeframe", "validity_day_of_week", "category_id"})

    id: str
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    validity_timeframe: ValidityTimeframe | None = None
    validity_day_of_week: list[int] | None = None
    active: StrictBool
    category_id: str | None = None
    object: Literal["campaign"] = "campaign"


class TierDefinition(WireModel):
    __omit_if_none__ = frozenset({"updated_at", "banner", "category_id", "categories"})

    id: str = Field(min_length=1)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    name: str
    banner: str | None = None
    action: TierAction
    metadata: Metadata = Field(default_factory=dict)
    hierarchy: Int64
    promotion_id: str
    campaign: TierDefinitionCampaign
    campaign_id: str
    active: StrictBool
    object: Literal["promotion_tier"] = "promotion_tier"
    #: null when no rule governs the tier (as the service's examples show).
    validation_rule_assignments: ValidationRuleAssignmentList | None = None
    #: The tier's own categories (absent: it is in its campaign's).
    category_id: str | None = None
    categories: list[Category] | None = None


class TierDefinitionList(WireModel):
    """A page of tiers under `tiers`; `has_more` where the list is a campaign's (as its example shows)."""

    __omit_if_none__ = frozenset({"has_more"})

    object: Literal["list"] = "list"
    data_ref: Literal["tiers"] = "tiers"
    tiers: list[TierDefinition]
    total: NonNegativeInt64
    has_more: StrictBool | None = None


class PromotionStackTiers(WireModel):
    ids: list[str] = Field(min_length=1)
    hierarchy_mode: Literal["MANUAL"] = "MANUAL"


class PromotionStack(WireModel):
    __omit_if_none__ = frozenset({"updated_at"})

    id: str
    name: str
    created_at: Timestamp
    updated_at: Timestamp | None = None
    campaign_id: str
    object: Literal["promotion_stack"] = "promotion_stack"
    tiers: PromotionStackTiers
    category_id: str | None = None
    categories: list[Category] = Field(default_factory=list)


class PromotionStackList(WireModel):
    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[PromotionStack]
    total: NonNegativeInt64
