"""Pricing compiled tiers against one order, one customer, one instant.

Pure functions: no I/O, no clock reads (the instant is `ctx.now`), no global
state. `price_tier` = `normalize_order` (once per request) + `compile_tier`
(once per tier, cache it) + `price_normalized` (once per tier and request).
Steps: campaign checks (active, dates, timeframe, day of week), then the
tier's validation rules on the cart as sent, then the discount
(`settle`: the tier's `OrderPricing`). With `ctx.audience_only` only the
customer rules run (campaign checks and every other rule are skipped).
Computing only: the answer is typed (`TierOutcome`, `OrderPricing`), and
`engine.render` renders it (`promotion_entries` is the validate operation's
`promotions[]` in one pass over `passing_tiers`).

Performance. A validation request prices every active tier, so everything
that does not depend on the order is computed once and reused (results never
depend on it; tests/engine/test_pricing_fast_paths.py checks each
shortcut against its plain definition):
- per tier (`compile_tier`): discount, rules as closures (with fast paths for
  the common operators, `conditions.compile_predicates`), scope;
- per tier and catalogue (`render.tier.static_wire`): the wire shapes of
  applicable_to, inapplicable_to, discount and campaign, copied per outcome;
- per catalogue and item ids (`item_resolution.resolve_item`): product,
  SKU, collections, wire shapes, catalogue metadata and price;
- per scope / rule target list and product identity (`Line.match_key`): which
  entries match a line (`Scope.line_scope`, `item_rules._Targets.matches`);
- per plain item and position (`normalize._plain_line`): the line, with its
  undiscounted order item (`Line.wire_item`), copied for every tier whose
  order is rendered;
- per order lines and amounts (`NormalizedOrder.shared`, shared by the
  orders with the same plain items): the lines a scope reaches with their
  discountable units, each valid tier's `OrderPricing` (`settle`) and the
  wire template rendered from it (`OrderPricing.wire_template`), and the verdict
  of each rule (and rule set) that reads nothing but the lines and amounts
  (`rules._order_only`);
- per request and rule leaf (`RuleEnv.results`): every other rule verdict;
  equal scopes and rules of different tiers are compiled to one object;
- per instant span (`schedule.RunningTiers`): which campaigns run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .catalogue import Catalogue
from .compiled_tier import CompiledTier, compile_tier
from .context import CustomerContext, PricingContext
from .lines import NormalizedOrder
from .normalize import normalize_order
from .outcome import TierOutcome
from .rule_evaluation import BudgetScope, RuleEnv
from .settle import settle
from .tier_spec import TierSpec
from .unit_allowance import allowance_of

__all__ = ["passing_tiers", "price_normalized", "price_running", "price_tier"]


def price_normalized(
    catalogue: Catalogue,
    tier: CompiledTier,
    order: NormalizedOrder,
    customer: CustomerContext | None,
    ctx: PricingContext,
) -> TierOutcome:
    """Evaluate a compiled tier on an already normalized order."""
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
        return TierOutcome(tier, catalogue, order, expand_category, failure, None)
    pricing = settle(catalogue, tier, order, allowance_of(tier, order, ctx.usage))
    return TierOutcome(tier, catalogue, order, expand_category, None, pricing)


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
        TierOutcome(tier, catalogue, order, expand_category, None,
                    settle(catalogue, tier, order, allowance_of(tier, order, ctx.usage)))
        for tier in passing_tiers(tiers, order, customer, ctx)
    ]


def passing_tiers(
    tiers: Iterable[CompiledTier],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    ctx: PricingContext,
) -> list[CompiledTier]:
    """The tiers (whose campaign runs at `ctx.now`) whose rules, all or the
    audience ones, pass, evaluated in one rule environment; the verdict of
    rules that read the order's lines and amounts only is kept with the
    order's shared results."""
    usage = ctx.usage
    audience_only = ctx.audience_only
    budget = BudgetScope(usage) if usage is not None else None
    env = RuleEnv(order, customer, ctx.now, ctx.redemption_metadata, budget=budget)
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
