"""Rendering a tier's answer: its `promotions[]` entry, discount, campaign and scope lists.

Computing is the engine's (`pricing` gives each tier's verdict and
`OrderPricing`); this module writes the wire shapes of a tier from them, the
order itself being `render.order`'s. `promotion_entries` is the validate
operation's whole answer in one pass: the passing tiers, each settled and
rendered straight into its entry, with no outcome object in between.

- The discount is echoed with `type` and `effect` first (the effect filled in
  when the tier relied on the default); UNIT discounts gain
  `sku {id, source_id, sku}` and `product {id, source_id, name}` after
  `unit_type`, for each unit of ADD_MANY_ITEMS too (as in the service's
  examples).
- The campaign is `{id, start_date, expiration_date, active, categories?,
  object}`; `categories` only with `expand` holding "category" and a non-empty
  list.

These parts depend on the tier and the catalogue only, never on the order, so
`StaticWire` builds them once per (tier, catalogue) and every outcome gets
fresh copies (callers own what they receive and may mutate it). So is the
whole `promotions[]` entry of a validation response but for its tracking id,
order and amounts: `StaticWire.entry` copies it from one planned template.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from ..catalogue import Catalogue
from ..compiled_tier import CompiledTier
from ..context import CustomerContext, PricingContext
from ..item_resolution import entry_wire
from ..lines import NormalizedOrder
from ..outcome import TierOutcome
from ..pricing import passing_tiers
from ..scope import ScopeEntry, wire_list
from ..settle import settle
from ..tier_spec import CampaignInfo, TierSpec
from ..unit_allowance import allowance_of
from .order import order_wire

__all__ = [
    "OutcomeWire",
    "StaticWire",
    "campaign_wire",
    "copier",
    "discount_wire",
    "outcome_wire",
    "promotion_entries",
    "promotion_entry",
    "promotion_tier_wire",
    "static_wire",
    "wire_instant",
]


def wire_instant(moment: datetime) -> str:
    """An instant as the interface writes every timestamp: UTC, milliseconds,
    `Z` (`2026-01-01T00:00:00.000Z`), and always four digits of year
    (`strftime("%Y")` writes year 5 as `5`, which no reader takes for a date).
    The one writer of instants: the engine's, since the engine imports nothing
    of the simulator, and the simulator's `sim.clock.format_instant` is this."""
    m = moment.astimezone(UTC)
    return (f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}."
            f"{m.microsecond // 1000:03d}Z")


def _unit_refs(out: dict[str, Any], unit_type: str, catalogue: Catalogue) -> None:
    product, sku = catalogue.unit_target(unit_type)
    if sku is not None:
        out["sku"] = entry_wire(sku, ("source_id", "sku"))
    if product.id:
        out["product"] = entry_wire(product, ("source_id", "name"))


def _unit_wire(
    raw: Mapping[str, Any], catalogue: Catalogue, head: dict[str, Any]
) -> dict[str, Any]:
    out = head
    for key, value in raw.items():
        if key in ("type", "effect", "product", "sku", "units"):
            continue
        out[key] = value
    unit_type = raw.get("unit_type")
    if isinstance(unit_type, str):
        _unit_refs(out, unit_type, catalogue)
    return out


def discount_wire(discount: Mapping[str, Any], effect: str, catalogue: Catalogue) -> dict[str, Any]:
    kind = discount.get("type")
    head: dict[str, Any] = {"type": kind, "effect": effect}
    if kind != "UNIT":
        for key, value in discount.items():
            if key not in ("type", "effect"):
                head[key] = value
        return head
    if effect != "ADD_MANY_ITEMS":
        return _unit_wire(discount, catalogue, head)
    head["units"] = [
        _unit_wire(u, catalogue, {"effect": u.get("effect") or "ADD_MISSING_ITEMS"})
        for u in discount.get("units") or ()
    ]
    for key, value in discount.items():
        if key not in ("type", "effect", "units"):
            head[key] = value
    return head


def campaign_wire(campaign: CampaignInfo, expand: frozenset[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": campaign.id,
        "start_date": wire_instant(campaign.start_date) if campaign.start_date else None,
        "expiration_date": (
            wire_instant(campaign.expiration_date) if campaign.expiration_date else None
        ),
        "active": campaign.active,
    }
    if "category" in expand and campaign.categories:
        out["categories"] = [dict(c) for c in campaign.categories]
    out["object"] = "campaign"
    return out


def promotion_tier_wire(tier: TierSpec, outcome: TierOutcome, tracking_id: str) -> dict[str, Any]:
    """The `promotions[]` entry of a validation response for a valid outcome.

    `outcome` is a `TierOutcome` of this tier; keys follow the service's
    example. The plain definition, key by key (tests check the planned
    `promotion_entry` / `promotion_entries` against it).
    """
    parts = outcome_wire(outcome)
    out: dict[str, Any] = {
        "valid": outcome.valid,
        "applicable_to": parts.applicable_to,
        "inapplicable_to": parts.inapplicable_to,
        "tracking_id": tracking_id,
        "order": parts.order,
        "id": tier.id,
        "name": tier.name,
    }
    if tier.banner is not None:
        out["banner"] = tier.banner
    out["discount"] = parts.discount
    out["campaign"] = parts.campaign
    out["hierarchy"] = tier.hierarchy
    if outcome.discount_amount is not None:
        out["discount_amount"] = outcome.discount_amount
        out["applied_discount_amount"] = outcome.applied_discount_amount
    out["metadata"] = dict(tier.metadata)
    out["object"] = "promotion_tier"
    return out


_CONTAINERS = (dict, list)


def copier(value: Any) -> Callable[[], Any]:
    """A function returning fresh copies of the JSON-like `value` (new dicts and
    lists all the way down, scalars shared). The copy is planned once: a flat
    dict or list is copied by its own `.copy`, and only nested containers get
    copied separately, without re-inspecting every value on each copy."""
    if type(value) is dict:
        nested = [(k, copier(v)) for k, v in value.items() if type(v) in _CONTAINERS]
        if not nested:
            return value.copy

        def copy_dict() -> dict[str, Any]:
            out = value.copy()
            for key, copy_value in nested:
                out[key] = copy_value()
            return out

        return copy_dict
    if type(value) is list:
        if not any(type(v) in _CONTAINERS for v in value):
            return value.copy
        if all(
            type(v) is dict and not any(type(x) in _CONTAINERS for x in v.values()) for v in value
        ):
            return lambda: [v.copy() for v in value]  # a list of flat objects: the usual case
        parts = [copier(v) for v in value]
        return lambda: [copy_part() for copy_part in parts]
    return lambda: value


def _empty_list() -> dict[str, Any]:
    """applicable_to / inapplicable_to of a tier without scope (most tiers)."""
    return {"data": [], "total": 0, "data_ref": "data", "object": "list"}


class StaticWire:
    """A tier's applicable_to, inapplicable_to, discount and campaign wire
    shapes for one catalogue, built once; `fresh()` hands out copies."""

    __slots__ = (
        "_campaign",
        "_campaign_expanded",
        "_discount",
        "_entry",
        "_entry_expanded",
        "_excluded",
        "_included",
        "catalogue",
    )

    def __init__(
        self,
        catalogue: Catalogue,
        spec: TierSpec,
        effect: str,
        included: Sequence[ScopeEntry],
        excluded: Sequence[ScopeEntry],
    ) -> None:
        self.catalogue = catalogue
        self._included = copier(wire_list(included, catalogue)) if included else _empty_list
        self._excluded = copier(wire_list(excluded, catalogue)) if excluded else _empty_list
        self._discount = copier(discount_wire(spec.discount, effect, catalogue))
        self._campaign = copier(campaign_wire(spec.campaign, frozenset()))
        self._campaign_expanded = copier(campaign_wire(spec.campaign, frozenset({"category"})))
        self._entry = copier(self._entry_template(spec, self._campaign()))
        self._entry_expanded = copier(self._entry_template(spec, self._campaign_expanded()))

    def _entry_template(self, spec: TierSpec, campaign: dict[str, Any]) -> dict[str, Any]:
        """`promotion_tier_wire`'s object with the per-request values
        (tracking_id, order, the amounts) left as None, in their places."""
        out: dict[str, Any] = {
            "valid": True,
            "applicable_to": self._included(),
            "inapplicable_to": self._excluded(),
            "tracking_id": None,
            "order": None,
            "id": spec.id,
            "name": spec.name,
        }
        if spec.banner is not None:
            out["banner"] = spec.banner
        out["discount"] = self._discount()
        out["campaign"] = campaign
        out["hierarchy"] = spec.hierarchy
        out["discount_amount"] = None
        out["applied_discount_amount"] = None
        out["metadata"] = dict(spec.metadata)
        out["object"] = "promotion_tier"
        return out

    def entry(
        self, expand_category: bool, tracking_id: str, order: dict[str, Any] | None, discount: int | None
    ) -> dict[str, Any]:
        """A fresh `promotions[]` entry: the tier's own parts, copied from the
        planned template, completed with the request's tracking id, the wire
        order and the discount amounts."""
        entry: dict[str, Any] = self._entry_expanded() if expand_category else self._entry()
        entry["tracking_id"] = tracking_id
        entry["order"] = order
        if discount is None:  # a free-shipping unit without a price
            del entry["discount_amount"], entry["applied_discount_amount"]
        else:
            entry["discount_amount"] = entry["applied_discount_amount"] = discount
        return entry

    def fresh(
        self, expand_category: bool
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """(applicable_to, inapplicable_to, discount, campaign), new objects."""
        campaign = self._campaign_expanded if expand_category else self._campaign
        return self._included(), self._excluded(), self._discount(), campaign()


def static_wire(tier: CompiledTier, catalogue: Catalogue) -> StaticWire:
    """The tier's order-independent wire parts for `catalogue`, built on
    first use and kept in the tier's one-slot cache (a tier is priced against
    one catalogue at a time; catalogues are immutable, so identity is a safe
    key)."""
    cache = tier.wire_cache
    wire = cache[0]
    if wire is None or wire.catalogue is not catalogue:
        scope = tier.scope
        wire = StaticWire(catalogue, tier.spec, tier.effect, scope.included, scope.excluded)
        cache[0] = wire
    return wire


class OutcomeWire(NamedTuple):
    """A tier outcome's wire parts, each a fresh object (the caller's).

    A named tuple rather than a frozen dataclass: one is made per rendered
    outcome, and a frozen dataclass costs about 4x to build (each field set
    through object.__setattr__)."""

    #: The wire order as if only this tier applied (None when not valid).
    order: dict[str, Any] | None
    applicable_to: dict[str, Any]
    inapplicable_to: dict[str, Any]
    discount: dict[str, Any]
    campaign: dict[str, Any]


def outcome_wire(outcome: TierOutcome) -> OutcomeWire:
    """Every wire part of `outcome`, rendered in one pass."""
    parts = static_wire(outcome.tier, outcome.catalogue).fresh(outcome.expand_category)
    pricing = outcome.pricing
    order = order_wire(outcome.normalized, pricing) if pricing is not None else None
    included, excluded, discount, campaign = parts
    return OutcomeWire(order, included, excluded, discount, campaign)


def promotion_entry(outcome: TierOutcome, tracking_id: str) -> dict[str, Any]:
    """A valid outcome as a `promotions[]` entry of a validation response:
    `promotion_tier_wire(spec, outcome, tracking_id)`, built from the tier's
    planned template plus the order and the amounts."""
    pricing = outcome.pricing
    if pricing is None:
        raise ValueError(f"tier {outcome.tier_id} is not valid: it has no promotions[] entry")
    static = static_wire(outcome.tier, outcome.catalogue)
    return static.entry(
        outcome.expand_category, tracking_id, order_wire(outcome.normalized, pricing), pricing.discount
    )


def promotion_entries(
    catalogue: Catalogue,
    tiers: Iterable[CompiledTier],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    ctx: PricingContext,
    tracking_id: str,
) -> list[dict[str, Any]]:
    """The `promotions[]` entries of a validation response:
    `[promotion_entry(o, tracking_id) for o in price_running(...)]`, built
    straight from each passing tier's pricing, without the outcome objects."""
    expand_category = "category" in ctx.expand
    out = []
    for tier in passing_tiers(tiers, order, customer, ctx):
        pricing = settle(catalogue, tier, order, allowance_of(tier, order, ctx.usage))
        # the tier's discount (`pricing.discount`), written out: once per tier per request
        discount = pricing.order_discount + pricing.items_discount if pricing.monetary else None
        out.append(static_wire(tier, catalogue).entry(expand_category, tracking_id, order_wire(order, pricing), discount))
    return out
