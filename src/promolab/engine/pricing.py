"""Pricing compiled tiers against one order, one customer, one instant.

Pure functions: no I/O, no clock reads (the instant is `ctx.now`), no global
state. `price_tier` = `normalize_order` (once per request) + `compile_tier`
(once per tier, cache it) + `price_normalized` (once per tier and request).
Steps: campaign checks (active, dates, timeframe, day of week), then the
tier's validation rules on the cart as sent, then the discount, then the wire
order. With `ctx.audience_only` only the customer rules run (campaign checks
and every other rule are skipped).

Performance. A validation request prices every active tier, so everything
that does not depend on the order is computed once and reused (results never
depend on it; tests/engine/test_pricing_fast_paths.py checks each
shortcut against its plain definition):
- per tier (`compile_tier`): discount, rules as closures (with fast paths for
  the common operators, `conditions.compile_predicates`), scope;
- per tier and catalogue (`CompiledTier.static_wire`): the wire shapes of
  applicable_to, inapplicable_to, discount and campaign, copied per outcome;
- per catalogue and item ids (`item_resolution.resolve_item`): product,
  SKU, collections, wire shapes, catalogue metadata and price;
- per scope / rule target list and product identity (`Line.match_key`): which
  entries match a line (`Scope.line_scope`, `item_rules._Targets.matches`);
- per plain item and position (`normalize._plain_line`): the line, with its
  undiscounted order item (`Line.wire_item`), copied for every tier whose
  order is read;
- per order lines and amounts (`NormalizedOrder.shared`, shared by the
  orders with the same plain items): the lines a scope reaches with their
  discountable units, each valid tier's discount, total and wire order
  (`settle.Settlement`), and the verdict of each rule (and rule set) that
  reads nothing but the lines and amounts (`rules._order_only`);
- per request and rule leaf (`RuleEnv.results`): every other rule verdict;
  equal scopes and rules of different tiers are compiled to one object;
- per instant span (`schedule.RunningTiers`): which campaigns run.
Outcomes settle the amounts when made and build their wire parts when first
read (`outcome.TierOutcome`). Every outcome owns all its dicts and lists: callers may
mutate them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .budget_rules import Usage
from .catalogue import Catalogue
from .compiled_tier import CompiledTier, compile_tier
from .context import CustomerContext, PricingContext
from .lines import NormalizedOrder
from .normalize import normalize_order
from .outcome import TierOutcome
from .rule_evaluation import BudgetScope, RuleEnv
from .settle import settle
from .tier_spec import TierSpec
from .tier_wire import StaticWire
from .unit_allowance import allowance_of

__all__ = [
    "price_normalized",
    "price_running",
    "price_tier",
    "running_entries",
    "tier_entries",
]


def price_normalized(
    catalogue: Catalogue,
    tier: CompiledTier,
    order: NormalizedOrder,
    customer: CustomerContext | None,
    ctx: PricingContext,
) -> TierOutcome:
    """Evaluate a compiled tier on an already normalized order."""
    static = tier.static_wire(catalogue)
    expand_category = "category" in ctx.expand
    failure = None if ctx.audience_only else tier.campaign.evaluate(ctx.now)
    if failure is None:
        rules = tier.rules
        if rules.reads_usage or ctx.ignored_rules:
            failure = rules.evaluate(
                order, customer, ctx.now, ctx.redemption_metadata, ctx.audience_only,
                usage=ctx.usage, subject=(tier.id, tier.spec.campaign.id), ignored=ctx.ignored_rules,
            )  # fmt: skip
        else:  # the common case, per tier per request: no budget to count, nothing ignored
            failure = rules.evaluate(order, customer, ctx.now, ctx.redemption_metadata, ctx.audience_only)
    if failure is not None:
        return TierOutcome(
            tier.spec.id, False, failure.key, failure.message, None, None,
            static, expand_category, None,
        )  # fmt: skip

    return _priced(catalogue, tier, order, static, expand_category, ctx.usage)


def _priced(
    catalogue: Catalogue,
    tier: CompiledTier,
    order: NormalizedOrder,
    static: StaticWire,
    expand_category: bool,
    usage: Usage | None,
) -> TierOutcome:
    """The valid outcome of a tier whose checks passed: the discount and the
    total are settled now (or were, for an order with the same lines), the wire
    order (built from the same numbers) only when someone reads it."""
    settlement = settle(catalogue, tier, order, allowance_of(tier, order, usage))
    return TierOutcome(
        tier.spec.id, True, None, None, settlement.discount, settlement.total,
        static, expand_category, (settlement, order),
    )  # fmt: skip


def price_running(
    catalogue: Catalogue,
    tiers: Iterable[CompiledTier],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    ctx: PricingContext,
) -> list[TierOutcome]:
    """The valid outcomes of `tiers`, in order, for tiers whose campaign runs
    at `ctx.now` (`schedule.RunningTiers.at(ctx.now)`): the campaign checks
    are not repeated. For such tiers this is
    `[o for t in tiers if (o := price_normalized(catalogue, t, order, customer, ctx)).valid]`.

    What a validation request needs, without what it does not: no outcome
    object for a tier that fails (the endpoint lists the valid ones only), and
    one rule environment for all the tiers, so that a rule leaf shared by
    several tiers is evaluated once.
    """
    expand_category = "category" in ctx.expand
    return [
        _priced(catalogue, tier, order, tier.static_wire(catalogue), expand_category, ctx.usage)
        for tier in _passing(
            tiers, order, customer, ctx.now, ctx.redemption_metadata, ctx.audience_only, ctx.usage
        )
    ]


def running_entries(
    catalogue: Catalogue,
    tiers: Iterable[CompiledTier],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    ctx: PricingContext,
    tracking_id: str,
) -> list[dict[str, Any]]:
    """The `promotions[]` entries of a validation response:
    `[o.entry(tracking_id) for o in price_running(...)]`, built straight from
    each valid tier's settlement, without the outcome objects."""
    return tier_entries(
        catalogue, tiers, order, customer, ctx.now, ctx.redemption_metadata,
        ctx.audience_only, "category" in ctx.expand, tracking_id, ctx.usage,
    )  # fmt: skip


def tier_entries(
    catalogue: Catalogue,
    tiers: Iterable[CompiledTier],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    now: datetime,
    redemption_metadata: Mapping[str, Any],
    audience_only: bool,
    expand_category: bool,
    tracking_id: str,
    usage: Usage | None = None,
) -> list[dict[str, Any]]:
    """`running_entries` with the context's fields given one by one (the
    validate operation's request needs no `PricingContext` object)."""
    out = []
    for tier in _passing(tiers, order, customer, now, redemption_metadata, audience_only, usage):
        settlement = settle(catalogue, tier, order, allowance_of(tier, order, usage))
        static = tier.static_wire(catalogue)
        out.append(static.entry(expand_category, tracking_id, settlement.wire_order(order), settlement.discount))
    return out


def _passing(
    tiers: Iterable[CompiledTier],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    now: datetime,
    redemption_metadata: Mapping[str, Any],
    audience_only: bool,
    usage: Usage | None = None,
) -> list[CompiledTier]:
    """The tiers whose rules (all, or the audience ones) pass, evaluated in
    one rule environment; the verdict of rules that read the order's lines
    and amounts only is kept with the order's shared results."""
    budget = BudgetScope(usage) if usage is not None else None
    env = RuleEnv(order, customer, now, redemption_metadata, budget=budget)
    shared = order.shared
    passing = []
    for tier in tiers:
        rules = tier.rules
        if budget is not None and rules.reads_usage:
            budget.subject = (tier.spec.id, tier.spec.campaign.id)
        check = rules.audience if audience_only else rules.full
        if check is None:
            passing.append(tier)
        elif audience_only or not rules.order_only:
            if check(env):
                passing.append(tier)
        else:
            passed = shared.get(rules.token)
            if passed is None:
                passed = shared[rules.token] = bool(check(env))
            if passed:
                passing.append(tier)
    return passing


def price_tier(
    catalogue: Catalogue,
    tier: TierSpec | CompiledTier,
    order_input: Mapping[str, Any] | None,
    customer: CustomerContext | None,
    ctx: PricingContext,
) -> TierOutcome:
    """One-shot convenience: normalize the order, compile the tier, price it.

    Raises `PricingInputError` for a malformed order, `TierConfigError` for a
    tier this engine cannot evaluate.
    """
    compiled = tier if isinstance(tier, CompiledTier) else compile_tier(tier)
    customer_id = customer.id if customer is not None else None
    order = normalize_order(catalogue, order_input, customer_id)
    return price_normalized(catalogue, compiled, order, customer, ctx)
