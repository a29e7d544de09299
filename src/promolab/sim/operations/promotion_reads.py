"""Reading a project's promotions: categories, promotion tiers, promotion stacks.

Each list declares its `Listing` (sim/listing.py); paging, ordering and the
envelope are the listing's. A tier is listed with its campaign and whether
it runs now (`is_available`), computed once per call from the simulated
clock, so the listing filters on a plain field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...models import promotion_reads
from ..fast_validate import validated
from ..listing import Listing, at_or_after, at_or_before, equals
from ..operation import bind
from ..records import Campaign, Category, PromotionStack, PromotionTier
from ..refusals import NotFound
from ..render.promotion import category_body, stack_body, tier_definition_body
from ..validation_rule_objects import assignment_body, tier_owner

if TYPE_CHECKING:
    from ..simulator import Simulator
    from ..state import State


@dataclass(frozen=True, slots=True)
class ListedTier:
    """A tier as its lists read it: with its campaign, and whether it runs at the instant asked."""

    tier: PromotionTier
    campaign: Campaign
    available: bool


def is_available(tier: PromotionTier, campaign: Campaign, now: datetime) -> bool:
    """The tier is active, its campaign is active, and `now` is within the
    campaign's dates (both inclusive, as a validation reads them; a tier has
    no dates of its own). A recurring timeframe or days of the week do not
    count (docs/decisions.md)."""
    return (tier.active and campaign.active
            and (campaign.start_date is None or campaign.start_date <= now)
            and (campaign.expiration_date is None or now <= campaign.expiration_date))


def _tier_created(listed: ListedTier) -> datetime | None:
    return listed.tier.created_at


def _stack_created(stack: PromotionStack) -> datetime | None:
    return stack.created_at


#: Nothing changes a tier or stack after the scenario made it, so
#: `updated_at` sorts (and filters) like `created_at` (docs/decisions.md, "Lists").
_TIER_BY_TIME: Mapping[str, Callable[[ListedTier], Any]] = {"created_at": _tier_created, "updated_at": _tier_created}

TIERS: Listing[ListedTier] = Listing(
    promotion_reads.LIST_PROMOTION_TIERS, "tiers",
    sort=_TIER_BY_TIME, filters={"is_available": equals(lambda listed: listed.available)},
)
CAMPAIGN_TIERS: Listing[ListedTier] = Listing(promotion_reads.LIST_CAMPAIGN_PROMOTION_TIERS, "tiers", has_more=True)
STACKS: Listing[PromotionStack] = Listing(
    promotion_reads.LIST_PROMOTION_STACKS, "data",
    sort={"created_at": _stack_created, "updated_at": _stack_created, "name": lambda s: s.name},
    filters={"created_before": at_or_before(_stack_created), "created_after": at_or_after(_stack_created),
             "updated_before": at_or_before(_stack_created), "updated_after": at_or_after(_stack_created)},
)
CAMPAIGN_STACKS: Listing[PromotionStack] = Listing(promotion_reads.LIST_CAMPAIGN_PROMOTION_STACKS, "data")
CATEGORIES: Listing[Category] = Listing(promotion_reads.LIST_CATEGORIES, "data")


def _listed(sim: Simulator, tiers: Iterable[PromotionTier]) -> list[ListedTier]:
    campaigns, now = sim.state.campaigns, sim.now
    return [ListedTier(t, campaigns[t.campaign_id], is_available(t, campaigns[t.campaign_id], now)) for t in tiers]


def _tier_body(state: State, tier: PromotionTier, campaign: Campaign) -> dict[str, Any]:
    owner = tier_owner(tier)
    return tier_definition_body(state, tier, campaign, None if owner is None else assignment_body(owner))


def _render(state: State) -> Callable[[ListedTier], dict[str, Any]]:
    return lambda listed: _tier_body(state, listed.tier, listed.campaign)


def _campaign(state: State, campaign_id: str) -> Campaign:
    found = state.campaigns.get(campaign_id)
    if found is None:
        raise NotFound("campaign", campaign_id)
    return found


def list_categories(sim: Simulator, /) -> models.CategoryList:
    state = sim.state
    return validated(models.CategoryList, CATEGORIES.answer(state.categories.values(), {},
                                                            lambda c: category_body(state, c)))


def list_promotion_tiers(sim: Simulator, /, **query: object) -> models.TierDefinitionList:
    body = TIERS.answer(_listed(sim, sim.state.tiers.values()), query, _render(sim.state))
    return validated(models.TierDefinitionList, body)


def list_campaign_promotion_tiers(sim: Simulator, /, *, campaign_id: str) -> models.TierDefinitionList:
    """A campaign's tiers, all of them (the document gives this list no paging), in the state's order."""
    campaign = _campaign(sim.state, campaign_id)
    tiers = [t for t in sim.state.tiers.values() if t.campaign_id == campaign.id]
    return validated(models.TierDefinitionList, CAMPAIGN_TIERS.answer(_listed(sim, tiers), {}, _render(sim.state)))


def get_promotion_tier(sim: Simulator, *, tier_id: str) -> models.TierDefinition:
    state = sim.state
    tier = state.tiers.get(tier_id)
    if tier is None:
        raise NotFound("promotion_tier", tier_id)
    return validated(models.TierDefinition, _tier_body(state, tier, state.campaigns[tier.campaign_id]))


def list_promotion_stacks(sim: Simulator, /, **query: object) -> models.PromotionStackList:
    return validated(models.PromotionStackList, STACKS.answer(sim.state.promotion_stacks.values(), query, stack_body))


def list_campaign_promotion_stacks(sim: Simulator, /, *, campaign_id: str) -> models.PromotionStackList:
    campaign = _campaign(sim.state, campaign_id)
    stacks = [s for s in sim.state.promotion_stacks.values() if s.campaign_id == campaign.id]
    return validated(models.PromotionStackList, CAMPAIGN_STACKS.answer(stacks, {}, stack_body))


LIST_PROMOTION_TIERS = bind(promotion_reads.LIST_PROMOTION_TIERS, list_promotion_tiers, write=False)
LIST_CAMPAIGN_PROMOTION_TIERS = bind(promotion_reads.LIST_CAMPAIGN_PROMOTION_TIERS, list_campaign_promotion_tiers,
                                     write=False)
GET_PROMOTION_TIER = bind(promotion_reads.GET_PROMOTION_TIER, get_promotion_tier, write=False)
LIST_PROMOTION_STACKS = bind(promotion_reads.LIST_PROMOTION_STACKS, list_promotion_stacks, write=False)
LIST_CAMPAIGN_PROMOTION_STACKS = bind(promotion_reads.LIST_CAMPAIGN_PROMOTION_STACKS, list_campaign_promotion_stacks,
                                      write=False)
LIST_CATEGORIES = bind(promotion_reads.LIST_CATEGORIES, list_categories, write=False)

#: This family's operations, in the order of `promotion_reads.READS`.
READS = (LIST_PROMOTION_TIERS, LIST_CAMPAIGN_PROMOTION_TIERS, GET_PROMOTION_TIER, LIST_PROMOTION_STACKS,
         LIST_CAMPAIGN_PROMOTION_STACKS, LIST_CATEGORIES)
