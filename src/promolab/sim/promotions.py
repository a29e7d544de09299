"""The bridge between simulator state and the pure pricing engine.

The engine wants a `Catalogue` and compiled tiers; building them costs far
more than pricing one order, so they are built once per state object and
cached on the simulator. Nothing in the interface changes products or tiers
after a scenario loads, and restore/reset replace the state object, which
invalidates the cache by identity.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..engine import (
    CampaignInfo,
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    CompiledTier,
    CustomerContext,
    PricingInputError,
    RunningTiers,
    TierSpec,
    compile_tier,
)
from ..models import StackingRules
from .clock import format_instant
from .refusals import InvalidPayload
from .state import derived

if TYPE_CHECKING:
    from .records import Campaign, PromotionTier, Voucher
    from .simulator import Simulator
    from .state import State

__all__ = [
    "CodeTerms", "PricingView", "campaign_categories", "campaign_info", "categories_wire", "code_spec", "code_terms",
    "customer_context", "invalid_payload", "pricing_view", "tier_categories", "tier_spec", "tracking_id",
    "with_stacking_types",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class CodeTerms:
    """What a code prices with, each part its own or its campaign's (`code_terms`)."""

    discount: dict[str, Any] | None
    validation_rules: dict[str, Any] | None
    applicable_to: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class PricingView:
    catalogue: Catalogue
    #: Active tiers in response order: campaign creation order, then hierarchy.
    tiers: tuple[CompiledTier, ...]
    #: tier id -> (campaign id, tier metadata), for filters.
    tier_meta: dict[str, tuple[str, dict[str, Any]]]
    segments_of: dict[str, frozenset[str]]
    #: `tiers` whose campaign runs at an instant (remembered between instants)
    running: RunningTiers
    #: tier id -> its compiled tier (active tiers only), for requests that name tiers
    by_id: dict[str, CompiledTier]


def catalogue_of(state: State) -> Catalogue:
    return Catalogue(
        products=[CatalogueProduct(p.id, p.source_id, p.name, p.price, p.metadata) for p in state.products.values()],
        skus=[CatalogueSku(s.id, s.source_id, s.sku, s.product_id, s.price, s.metadata) for s in state.skus.values()],
        collections=[
            CatalogueCollection(c.id, c.name, frozenset(c.products), frozenset(c.skus)) for c in state.collections.values()
        ],
    )


def categories_wire(state: State, ids: Sequence[str]) -> tuple[dict[str, Any], ...]:
    """The categories `ids` names, as the service lists them (`{id, name,
    hierarchy, created_at, object}`, the order given); an id the state does
    not hold (the loader refuses one, a test may poke one in) is left out.
    A category without a creation instant is taken as created with the
    project's epoch, so the typed client can parse it."""
    out = []
    for category_id in ids:
        category = state.categories.get(category_id)
        if category is not None:
            out.append({
                "id": category.id, "name": category.name, "hierarchy": category.hierarchy,
                "created_at": format_instant(category.created_at or _EPOCH), "object": "category",
            })
    return tuple(out)


def campaign_categories(state: State, campaign: Campaign) -> tuple[dict[str, Any], ...]:
    """The campaign's categories as `options.expand: ["category"]` lists them."""
    return categories_wire(state, campaign.categories)


def tier_categories(state: State, tier: PromotionTier, campaign: Campaign) -> tuple[dict[str, Any], ...]:
    """A tier's categories: its own, else its campaign's (decision:
    docs/decisions.md § Stacked validations and redemptions)."""
    return categories_wire(state, tier.categories or campaign.categories)


def with_stacking_types(categories: Sequence[Mapping[str, Any]], rules: StackingRules) -> list[dict[str, Any]]:
    """`categories` as a stacked validation or a qualification lists them
    (`CategoryWithStackingRulesType`): `stacking_rules_type` EXCLUSIVE or
    JOINT after `object` when the rules in force name the category, left out
    for a common one (as in the service's examples)."""
    out = []
    for category in categories:
        shown = dict(category)
        if category["id"] in rules.exclusive_categories:
            shown["stacking_rules_type"] = "EXCLUSIVE"
        elif category["id"] in rules.joint_categories:
            shown["stacking_rules_type"] = "JOINT"
        out.append(shown)
    return out


def campaign_info(state: State, campaign: Campaign, index: int) -> CampaignInfo:
    categories = campaign_categories(state, campaign)
    return CampaignInfo(
        id=campaign.id,
        name=campaign.name,
        active=campaign.active,
        start_date=campaign.start_date,
        expiration_date=campaign.expiration_date,
        validity_timeframe=campaign.validity_timeframe.model_dump() if campaign.validity_timeframe else None,
        validity_day_of_week=tuple(campaign.validity_day_of_week) if campaign.validity_day_of_week else None,
        created_index=index,
        categories=categories,
    )


def tier_spec(tier: PromotionTier, campaign: CampaignInfo) -> TierSpec:
    """The engine's view of a tier record (the scenario loader compiles the
    same spec to refuse a tier the engine cannot evaluate)."""
    return TierSpec(
        id=tier.id, campaign=campaign, discount=tier.discount, name=tier.name, banner=tier.banner,
        hierarchy=tier.hierarchy, rules=tier.validation_rules, applicable_to=tier.applicable_to,
        metadata=tier.metadata,
    )


def code_terms(voucher: Voucher, campaign: Campaign | None) -> CodeTerms:
    """A code's discount, rules and scope: its own, else its campaign's
    (each part on its own: a code may override its campaign's rules and keep
    its discount). The one place a code's terms are read."""
    def own_or_campaign(mine: dict[str, Any] | None, field: str) -> dict[str, Any] | None:
        if mine is not None or campaign is None:
            return mine
        value: dict[str, Any] | None = getattr(campaign, field)
        return value

    return CodeTerms(
        own_or_campaign(voucher.discount, "discount"),
        own_or_campaign(voucher.validation_rules, "validation_rules"),
        own_or_campaign(voucher.applicable_to, "applicable_to"),
    )


def code_spec(voucher: Voucher, campaign: Campaign | None, terms: CodeTerms) -> TierSpec:
    """The engine's view of a discount code with a discount (`terms.discount`):
    a tier named by the voucher's id (budget rules count by it), with the
    code's rules and scope, compiled by `compile_tier` like any tier (the
    scenario loader compiles the same spec to refuse a code the engine
    cannot evaluate)."""
    assert terms.discount is not None
    info = CampaignInfo(id=voucher.campaign_id or voucher.id, name=campaign.name if campaign else None)
    return TierSpec(
        id=voucher.id, campaign=info, discount=terms.discount, rules=terms.validation_rules,
        applicable_to=terms.applicable_to, metadata=voucher.metadata,
    )


def build_view(state: State) -> PricingView:
    campaign_order = {cid: i for i, cid in enumerate(state.campaigns)}
    infos = {cid: campaign_info(state, c, campaign_order[cid]) for cid, c in state.campaigns.items()}
    ordered = sorted(
        (t for t in state.tiers.values() if t.active),
        key=lambda t: (campaign_order[t.campaign_id], t.hierarchy),
    )
    compiled = tuple(compile_tier(tier_spec(t, infos[t.campaign_id])) for t in ordered)
    segments_of: dict[str, set[str]] = {}
    for segment in state.segments.values():
        for customer_id in segment.customers:
            segments_of.setdefault(customer_id, set()).add(segment.id)
    return PricingView(
        catalogue=catalogue_of(state),
        tiers=compiled,
        tier_meta={t.id: (t.campaign_id, t.metadata) for t in ordered},
        segments_of={k: frozenset(v) for k, v in segments_of.items()},
        running=RunningTiers(compiled),
        by_id={t.id: t for t in compiled},
    )


def pricing_view(sim: Simulator) -> PricingView:
    """The view of the current state, built once per state object."""
    return derived(sim, "pricing_view", build_view)


def invalid_payload(exc: PricingInputError) -> InvalidPayload:
    """The simulator's refusal of request data the engine cannot price: 400
    `invalid_payload`, the details naming the offending value's path
    (`Property .order.items[2].price: must not be negative, got -1`).

    Raised wherever the simulator hands the engine a request's data: when the
    order is normalized, and when the tiers are settled (a UNIT tier's free
    units can take an amount past 2^63-1: `PricingOverflowError`). The
    engine's errors are its own; this is the one place they become the
    simulator's refusal, with the same body for both.
    """
    return InvalidPayload(f"Property .{exc.field}: {exc.message}")


@functools.lru_cache(maxsize=4096)
def tracking_id(project_id: str, source_id: str | None) -> str:
    """`track_` + a keyed hash of the customer's source_id: stable for a
    customer within a project, and not reversible to the source_id.
    (Memoised: a pure function of its arguments, asked for on every validation.)"""
    digest = hmac.new(project_id.encode(), (source_id or "").encode(), hashlib.sha256).digest()
    return "track_" + base64.urlsafe_b64encode(digest[:24]).decode().rstrip("=")


def customer_context(sim: Simulator, view: PricingView, given: dict[str, Any] | None) -> tuple[CustomerContext | None, str | None]:
    """The customer the rules see: the stored one (by id, else source_id) with
    the request's metadata laid over it; an unknown customer is evaluated as
    sent (validation reads, it never creates customers).
    Returns (context, source_id for the tracking id)."""
    if not given:
        return None, None
    st = sim.state
    record = None
    if given.get("id") is not None:
        record = st.customers.get(given["id"])
    if record is None and given.get("source_id") is not None:
        found = sim.indexes.customer_by_source.get(given["source_id"])
        record = st.customers.get(found) if found else None
    extra = given.get("metadata")
    if record is None:
        context = CustomerContext(
            given.get("id"), given.get("source_id"), given.get("name"), given.get("email"),
            dict(extra) if extra else {},
        )
    else:
        metadata = dict(record.metadata)
        if extra:
            metadata.update(extra)
        customer_id = record.id
        context = CustomerContext(
            customer_id, record.source_id, record.name, record.email, metadata,
            view.segments_of.get(customer_id, _NO_SEGMENTS),
        )  # fmt: skip
    return context, context.source_id or context.id


_NO_SEGMENTS: frozenset[str] = frozenset()
