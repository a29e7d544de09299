"""What the client's promotion read methods send: categories, promotion tiers and stacks.

As `_read_builders.py` (whose `_read` and `Instant` these use): a list's
paging, order and filters become its query, named as the endpoint declares
them (`models.promotion_reads`), values left out when None.
"""

from __future__ import annotations

from .. import models
from ..models import promotion_reads as e
from ._read_builders import Instant, _read
from ._requests import Prepared

__all__ = [
    "get_promotion_tier",
    "list_campaign_promotion_stacks",
    "list_campaign_promotion_tiers",
    "list_categories",
    "list_promotion_stacks",
    "list_promotion_tiers",
]


def list_categories() -> Prepared[models.CategoryList]:
    """Every category of the project."""
    return _read(e.LIST_CATEGORIES, {})


def list_promotion_tiers(*, is_available: bool | None = None, limit: int | None = None, page: int | None = None,
                         order: str | None = None) -> Prepared[models.TierDefinitionList]:
    """A page of the tiers of every campaign (`is_available`: only those that run now, or only those that do not)."""
    return _read(e.LIST_PROMOTION_TIERS, {}, is_available=is_available, limit=limit, page=page, order=order)


def list_campaign_promotion_tiers(campaign_id: str) -> Prepared[models.TierDefinitionList]:
    """Every tier of one campaign."""
    return _read(e.LIST_CAMPAIGN_PROMOTION_TIERS, {"campaign_id": campaign_id})


def get_promotion_tier(tier_id: str) -> Prepared[models.TierDefinition]:
    """One promotion tier by id."""
    return _read(e.GET_PROMOTION_TIER, {"tier_id": tier_id})


def list_promotion_stacks(*, limit: int | None = None, page: int | None = None, order: str | None = None,
                          created_before: Instant = None, created_after: Instant = None,
                          updated_before: Instant = None,
                          updated_after: Instant = None) -> Prepared[models.PromotionStackList]:
    """A page of the stacks of every campaign, filtered by time (`created_at[before]` and so on)."""
    return _read(e.LIST_PROMOTION_STACKS, {}, limit=limit, page=page, order=order, created_before=created_before,
                 created_after=created_after, updated_before=updated_before, updated_after=updated_after)


def list_campaign_promotion_stacks(campaign_id: str) -> Prepared[models.PromotionStackList]:
    """Every stack of one campaign."""
    return _read(e.LIST_CAMPAIGN_PROMOTION_STACKS, {"campaign_id": campaign_id})
