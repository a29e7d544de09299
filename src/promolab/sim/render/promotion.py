"""A project's promotion tiers, stacks and categories as the read endpoints of a pull show them.

A tier keeps its discount in the service's wire shape (records/campaigns.py),
so `action.discount` is that mapping as the tier holds it: a pull writes it
back unchanged. Its validation rules are the rule object synthesized from
the tier (`validation_rule_objects`: `val_<tier id>`, assigned as
`asgm_<tier id>`), listed by their assignment, or null when the tier holds
neither rules nor a scope (as the service's examples show); the caller
passes that assignment in, as `validation_rule_objects` writes it (which
imports this package, so this package does not import it). Categories are
written by `promotions.categories_wire`, the one writer of a category.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..promotions import categories_wire
from ._time import iso

if TYPE_CHECKING:
    from ..records import Campaign, Category, PromotionStack, PromotionTier
    from ..state import State

__all__ = ["category_body", "stack_body", "tier_definition_body"]

#: What a record without a creation instant (none a scenario builds) is taken as created at.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def category_body(state: State, category: Category) -> dict[str, Any]:
    """One category of the project, as every answer that names it writes it."""
    (body,) = categories_wire(state, [category.id])
    return body


def _campaign_part(campaign: Campaign) -> dict[str, Any]:
    """The tier's `campaign`: what decides whether the tier runs, and the
    campaign's first category (left out without one: the schema wants a
    string, the examples always show one)."""
    out: dict[str, Any] = {"id": campaign.id, "start_date": iso(campaign.start_date),
                           "expiration_date": iso(campaign.expiration_date)}
    if campaign.validity_timeframe is not None:
        out["validity_timeframe"] = campaign.validity_timeframe.model_dump()
    if campaign.validity_day_of_week is not None:
        out["validity_day_of_week"] = list(campaign.validity_day_of_week)
    out["active"] = campaign.active
    if campaign.categories:
        out["category_id"] = campaign.categories[0]
    out["object"] = "campaign"
    return out


def tier_definition_body(state: State, tier: PromotionTier, campaign: Campaign,
                         assignment: dict[str, Any] | None) -> dict[str, Any]:
    """The tier in the service's field order (its example's); `assignment`:
    its rule's, or None when no rule governs it."""
    body: dict[str, Any] = {"id": tier.id, "created_at": iso(tier.created_at or _EPOCH), "name": tier.name}
    if tier.banner is not None:
        body["banner"] = tier.banner
    body["action"] = {"discount": copy.deepcopy(tier.discount)}
    body["metadata"] = copy.deepcopy(tier.metadata)
    body["hierarchy"] = tier.hierarchy
    body["promotion_id"] = campaign.id
    body["campaign"] = _campaign_part(campaign)
    body["campaign_id"] = campaign.id
    body["active"] = tier.active
    body["object"] = "promotion_tier"
    body["validation_rule_assignments"] = None if assignment is None else {
        "object": "list", "data_ref": "data", "data": [assignment], "total": 1}
    if tier.categories:
        body["category_id"] = tier.categories[0]
        body["categories"] = list(categories_wire(state, tier.categories))
    return body


def stack_body(stack: PromotionStack) -> dict[str, Any]:
    """A stack: its tiers in the order it applies them. A scenario's stack
    has no category of its own (`category_id: null`, `categories: []`)."""
    return {
        "id": stack.id, "name": stack.name, "created_at": iso(stack.created_at or _EPOCH),
        "campaign_id": stack.campaign_id, "object": "promotion_stack",
        "tiers": {"ids": list(stack.tier_ids), "hierarchy_mode": "MANUAL"},
        "category_id": None, "categories": [],
    }
