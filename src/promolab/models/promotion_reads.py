"""The read endpoints of a pull's promotions: categories, promotion tiers, promotion stacks.

Query declared here (from `list_params`), carried out by `sim/listing.py`;
what each answers is in docs/reads.md, what the documents leave open in
docs/decisions.md ("Promotion tiers, stacks and categories of a pull").
"""

from __future__ import annotations

from typing import Any

from .categories import CategoryList
from .endpoint import Endpoint, Param
from .list_params import LIMIT, PAGE, instant_param, order_param
from .tier_definitions import PromotionStackList, TierDefinition, TierDefinitionList

__all__ = [
    "GET_PROMOTION_TIER",
    "LIST_CAMPAIGN_PROMOTION_STACKS",
    "LIST_CAMPAIGN_PROMOTION_TIERS",
    "LIST_CATEGORIES",
    "LIST_PROMOTION_STACKS",
    "LIST_PROMOTION_TIERS",
    "READS",
]

_CAMPAIGN_ID = Param("campaignId", "campaign_id")

LIST_CATEGORIES: Endpoint[CategoryList] = Endpoint(
    "list_categories", "GET", "/v1/categories", "app", "listCategories", "List the project's categories",
    CategoryList, tags=("categories",), idempotent=True,
)
LIST_PROMOTION_TIERS: Endpoint[TierDefinitionList] = Endpoint(
    "list_promotion_tiers", "GET", "/v1/promotions/tiers", "app", "listPromotionTiers",
    "List the promotion tiers of every campaign", TierDefinitionList,
    query=(Param("is_available", "is_available", "boolean",
                 "Only tiers that run now (true) or only those that do not (false)."),
           LIMIT, PAGE, order_param("created_at", "updated_at")),
    tags=("promotions",), idempotent=True,
)
LIST_CAMPAIGN_PROMOTION_TIERS: Endpoint[TierDefinitionList] = Endpoint(
    "list_campaign_promotion_tiers", "GET", "/v1/promotions/{campaignId}/tiers", "app",
    "listPromotionTiersFromCampaign", "List a campaign's promotion tiers", TierDefinitionList,
    path_params=(_CAMPAIGN_ID,), tags=("promotions",), idempotent=True,
)
GET_PROMOTION_TIER: Endpoint[TierDefinition] = Endpoint(
    "get_promotion_tier", "GET", "/v1/promotions/tiers/{promotionTierId}", "app", "getPromotionTier",
    "Get a promotion tier", TierDefinition, path_params=(Param("promotionTierId", "tier_id"),),
    tags=("promotions",), idempotent=True,
)
LIST_PROMOTION_STACKS: Endpoint[PromotionStackList] = Endpoint(
    "list_promotion_stacks", "GET", "/v1/promotions/stacks", "app", "listAllPromotionStacks",
    "List the promotion stacks of every campaign", PromotionStackList,
    query=(
        LIMIT, PAGE, order_param("created_at", "updated_at", "name"),
        instant_param("created_at[before]", "created_before", "Only those created at or before this instant."),
        instant_param("created_at[after]", "created_after", "Only those created at or after this instant."),
        instant_param("updated_at[before]", "updated_before", "Only those updated at or before this instant."),
        instant_param("updated_at[after]", "updated_after", "Only those updated at or after this instant."),
    ), tags=("promotions",), idempotent=True,
)
LIST_CAMPAIGN_PROMOTION_STACKS: Endpoint[PromotionStackList] = Endpoint(
    "list_campaign_promotion_stacks", "GET", "/v1/promotions/{campaignId}/stacks", "app",
    "listPromotionStacksInCampaign", "List a campaign's promotion stacks", PromotionStackList,
    path_params=(_CAMPAIGN_ID,), tags=("promotions",), idempotent=True,
)

#: This family's read endpoints, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (
    LIST_PROMOTION_TIERS, LIST_CAMPAIGN_PROMOTION_TIERS, GET_PROMOTION_TIER, LIST_PROMOTION_STACKS,
    LIST_CAMPAIGN_PROMOTION_STACKS, LIST_CATEGORIES,
)
