"""Pricing one promotion tier against one order, one customer, one instant.

A pure function: no I/O, no clock reads (the instant is `ctx.now`), no global
state. `price_tier` = `normalize_order` (once per request) + `compile_tier`
(once per tier, cache it) + `price_normalized` (once per tier and request).
Steps: campaign checks (active, dates, timeframe, day of week), then the
tier's validation rules on the cart as sent, then the discount, then the wire
order. With `ctx.audience_only` only the customer rules run (campaign checks
and every other rule are skipped).

Rounding policy (docs/pricing.md). Every amount is an integer number of cents and
no float ever touches one: percentages are exact fractions, and a fractional
cent is rounded half up, once, per line (12.5 -> 13). A proportional split
(APPLY_TO_ITEMS_PROPORTIONALLY[_BY_QUANTITY]) rounds each share and hands the
remainder to the line with the largest amount (the first such line on ties), so
the shares add up exactly to the split amount. A line discount never exceeds
its line amount, an order discount never exceeds the order amount, and the
order's `total_amount` never goes below zero.

Field-presence policy. The service's responses omit fields rather than send
zeros, and clients (ours included) tell an order-level discount from an
item-level one by which fields exist; so we reproduce the examples' presence
exactly instead of always emitting every field: `amount` and `total_amount`
always; order-level `discount_amount`/`applied_discount_amount` only when an
order-level effect gave something; `items_*` only when item discounts are
> 0; `total_*discount_amount` when either exists; `initial_amount` only when a
UNIT effect added priced units. Items: discount fields only on discounted
lines, UNIT bookkeeping (`discount_quantity`, `initial_quantity`,
`initial_amount`) only on lines a UNIT effect touched, and no amounts on a
line without a price. The tier's `discount_amount`/`applied_discount_amount`
are present when the discount is monetary (always for AMOUNT/PERCENT/FIXED,
for UNIT when a discounted unit has a price) and equal the order's
`total_discount_amount`. Details: `order.py`.

Performance. A validation request prices every active tier, so everything
that does not depend on the order is computed once and reused (results never
depend on it; tests/engine/test_pricing_fast_paths.py checks each
shortcut against its plain definition):
- per tier (`compile_tier`): discount, rules as closures (with fast paths for
  the common operators, `conditions.compile_predicates`), scope;
- per tier and catalogue (`CompiledTier.static_wire`): the wire shapes of
  applicable_to, inapplicable_to, discount and campaign, copied per outcome;
- per catalogue and item ids (`items._resolve`): product, SKU, collections,
  wire shapes, catalogue metadata and price;
- per scope / rule target list and product identity (`Line.match_key`): which
  entries match a line (`Scope.line_scope`, `item_rules._Targets.matches`);
- per plain item and position (`items._plain_line`): the line, with its
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
Outcomes settle the amounts and build their wire parts when first read
(`TierOutcome`). Every outcome owns all its dicts and lists: callers may
mutate them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .campaign import CampaignCheck, compile_campaign
from .discounts import EFFECTS, AmountDiscount, compile_amount_discount, default_effect
from .input_errors import TierConfigError
from .inputs import Catalogue, CustomerContext, PricingContext, TierSpec
from .items import NormalizedOrder, normalize_order
from .rule_env import RuleEnv
from .rules import RuleConfigError, RuleSet, compile_rules
from .scope import Scope, compile_scope
from .settle import Settlement, settle
from .tier_wire import StaticWire
from .unit_discounts import UnitSpec, compile_units

__all__ = [
    "CompiledTier",
    "TierOutcome",
    "compile_tier",
    "price_normalized",
    "price_running",
    "price_tier",
    "running_entries",
    "tier_entries",
]


@dataclass(frozen=True, slots=True)
class CompiledTier:
    """A tier with its discount, rules, scope and campaign checks pre-digested."""

    spec: TierSpec
    kind: str
    effect: str
    campaign: CampaignCheck
    rules: RuleSet
    scope: Scope
    amount_discount: AmountDiscount | None
    units: tuple[UnitSpec, ...]
    #: One-slot cache of `static_wire` (a tier is priced against one catalogue
    #: at a time); a list because the dataclass itself is frozen.
    _wire: list[StaticWire | None] = field(
        default_factory=lambda: [None], repr=False, compare=False
    )
    #: Identity of this tier in per-order memos (`NormalizedOrder.shared`): a
    #: fresh object, so that no other tier can ever take its place there.
    token: object = field(default_factory=object, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.spec.id

    def static_wire(self, catalogue: Catalogue) -> StaticWire:
        """The tier's order-independent wire parts for `catalogue`, built on
        first use (catalogues are immutable, so identity is a safe key)."""
        wire = self._wire[0]
        if wire is None or wire.catalogue is not catalogue:
            scope = self.scope
            wire = StaticWire(catalogue, self.spec, self.effect, scope.included, scope.excluded)
            self._wire[0] = wire
        return wire


class TierOutcome:
    """One tier priced against one order: the verdict and the amounts, with
    the wire parts (order, applicable_to, inapplicable_to, discount, campaign)
    built on first access.

    Why lazy: the amounts are the engine's answer, the wire objects are their
    presentation, and building them is most of a tier's cost (fresh dicts for
    every item, product and list entry). The validate operation reads them for
    the valid tiers it answers with; the analysis layer (compare_tiers, the
    sweep's engine fallback) reads only `valid`, the amounts and the reason,
    and so never pays for them. What a part shows is fixed when the outcome is
    made (its inputs are immutable), so building it later gives the same
    bytes; each part is built once per outcome and then owned by the caller,
    who may mutate it.

    Not a frozen dataclass on purpose: one is built per tier per request.
    """

    __slots__ = (
        "_assembly",
        "_expand",
        "_order",
        "_parts",
        "_static",
        "applied_discount_amount",
        "discount_amount",
        "reason",
        "reason_key",
        "tier_id",
        "total_amount",
        "valid",
    )

    tier_id: str
    valid: bool
    #: machine key when not valid, e.g. "order_rules_violated", "promotion_inactive"
    reason_key: str | None
    #: human text when not valid, e.g. "order.amount must be more than 10000"
    reason: str | None
    #: None when not valid or when the discount has no monetary value (price-less UNIT)
    discount_amount: int | None
    applied_discount_amount: int | None
    #: the order's total_amount with this tier applied (None when not valid)
    total_amount: int | None

    def __init__(
        self,
        tier_id: str,
        valid: bool,
        reason_key: str | None,
        reason: str | None,
        discount_amount: int | None,
        total_amount: int | None,
        static: StaticWire,
        expand_category: bool,
        assembly: tuple[Settlement, NormalizedOrder] | None,
    ) -> None:
        self.tier_id = tier_id
        self.valid = valid
        self.reason_key = reason_key
        self.reason = reason
        self.discount_amount = discount_amount
        self.applied_discount_amount = discount_amount
        self.total_amount = total_amount
        self._static = static
        self._expand = expand_category
        self._assembly = assembly
        self._order: dict[str, Any] | None = None
        self._parts: tuple[dict[str, Any], ...] | None = None

    @property
    def order(self) -> dict[str, Any] | None:
        """The wire order as if only this tier applied (None when not valid)."""
        if self._order is None and self._assembly is not None:
            settlement, order = self._assembly
            self._order = settlement.wire_order(order)
        return self._order

    def _part(self, k: int) -> dict[str, Any]:
        parts = self._parts
        if parts is None:
            parts = self._parts = self._static.fresh(self._expand)
        return parts[k]

    @property
    def applicable_to(self) -> dict[str, Any]:
        return self._part(0)

    @property
    def inapplicable_to(self) -> dict[str, Any]:
        return self._part(1)

    @property
    def discount(self) -> dict[str, Any]:
        return self._part(2)

    @property
    def campaign(self) -> dict[str, Any]:
        return self._part(3)

    def entry(self, tracking_id: str) -> dict[str, Any]:
        """This valid outcome as a `promotions[]` entry of a validation
        response: `wire.promotion_tier_wire(spec, self, tracking_id)`, built
        from the tier's planned template (fresh copies of its parts, not the
        ones `applicable_to` & co. hand out) plus the order and the amounts."""
        if not self.valid:
            raise ValueError(f"tier {self.tier_id} is not valid: it has no promotions[] entry")
        entry = self._static.entry(self._expand)
        return _entry(entry, tracking_id, self.order, self.discount_amount)

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.tier_id, self.valid, self.reason_key, self.reason, self.order,
            self.discount_amount, self.applied_discount_amount, self.total_amount,
            self.applicable_to, self.inapplicable_to, self.discount, self.campaign,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TierOutcome):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable parts, like the dataclass it replaces

    def __repr__(self) -> str:
        if self.valid:
            return (
                f"TierOutcome(tier_id={self.tier_id!r}, valid=True, "
                f"discount_amount={self.discount_amount!r}, total_amount={self.total_amount!r})"
            )
        return (
            f"TierOutcome(tier_id={self.tier_id!r}, valid=False, "
            f"reason_key={self.reason_key!r}, reason={self.reason!r})"
        )


def compile_tier(tier: TierSpec) -> CompiledTier:
    """Check and pre-digest a tier; raises `TierConfigError` naming the problem."""
    discount = tier.discount
    try:
        if not isinstance(discount, Mapping):
            raise ValueError("discount must be an object")  # noqa: TRY004 - reported as TierConfigError
        kind = discount.get("type")
        if not isinstance(kind, str) or kind not in EFFECTS:
            raise ValueError(f"discount type must be one of {tuple(EFFECTS)}, got {kind!r}")
        scope = compile_scope(tier.applicable_to)
        effect = discount.get("effect") or default_effect(kind, scope)
        if not isinstance(effect, str) or effect not in EFFECTS[kind]:
            raise ValueError(f"effect {effect!r} is not allowed for {kind} discounts")
        amount_discount = None
        units: tuple[UnitSpec, ...] = ()
        if kind == "UNIT":
            units = compile_units(effect, discount)
        else:
            amount_discount = compile_amount_discount(kind, effect, discount)
        rules = compile_rules(tier.rules)
        campaign = compile_campaign(tier.campaign)
    except (ValueError, RuleConfigError) as exc:
        raise TierConfigError(tier.id, str(exc)) from None
    return CompiledTier(tier, kind, effect, campaign, rules, scope, amount_discount, units)


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
        failure = tier.rules.evaluate(
            order, customer, ctx.now, ctx.redemption_metadata, ctx.audience_only
        )
    if failure is not None:
        return TierOutcome(
            tier.spec.id, False, failure.key, failure.message, None, None,
            static, expand_category, None,
        )  # fmt: skip

    return _priced(catalogue, tier, order, static, expand_category)


def _priced(
    catalogue: Catalogue,
    tier: CompiledTier,
    order: NormalizedOrder,
    static: StaticWire,
    expand_category: bool,
) -> TierOutcome:
    """The valid outcome of a tier whose checks passed: the discount and the
    total are settled now (or were, for an order with the same lines), the wire
    order (built from the same numbers) only when someone reads it."""
    settlement = settle(catalogue, tier, order)
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
        _priced(catalogue, tier, order, tier.static_wire(catalogue), expand_category)
        for tier in _passing(
            tiers, order, customer, ctx.now, ctx.redemption_metadata, ctx.audience_only
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
        ctx.audience_only, "category" in ctx.expand, tracking_id,
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
) -> list[dict[str, Any]]:
    """`running_entries` with the context's fields given one by one (the
    validate operation's request needs no `PricingContext` object)."""
    out = []
    for tier in _passing(tiers, order, customer, now, redemption_metadata, audience_only):
        settlement = settle(catalogue, tier, order)
        entry = tier.static_wire(catalogue).entry(expand_category)
        out.append(_entry(entry, tracking_id, settlement.wire_order(order), settlement.discount))
    return out


def _passing(
    tiers: Iterable[CompiledTier],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    now: datetime,
    redemption_metadata: Mapping[str, Any],
    audience_only: bool,
) -> list[CompiledTier]:
    """The tiers whose rules (all, or the audience ones) pass, evaluated in
    one rule environment; the verdict of rules that read the order's lines
    and amounts only is kept with the order's shared results."""
    env = RuleEnv(order, customer, now, redemption_metadata)
    shared = order.shared
    passing = []
    for tier in tiers:
        rules = tier.rules
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


def _entry(
    entry: dict[str, Any], tracking_id: str, order: dict[str, Any] | None, discount: int | None
) -> dict[str, Any]:
    """A tier's entry template (`StaticWire.entry`) completed with the
    request's tracking id, the wire order and the discount amounts."""
    entry["tracking_id"] = tracking_id
    entry["order"] = order
    if discount is None:  # a free-shipping unit without a price
        del entry["discount_amount"], entry["applied_discount_amount"]
    else:
        entry["discount_amount"] = entry["applied_discount_amount"] = discount
    return entry


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
