"""Which redeemables qualify for a customer and a cart, and why the others do not.

The qualifications operation (`operations/qualifications.py`) asks this
module for every redeemable its scenario considers, each judged alone on the
cart as sent: a promotion tier or discount code is priced by the single-tier
engine (`price_normalized`: exactly its order in `validate_promotions`), a
gift card offers what of its balance the order can use. A redeemable is
resolved against state by `stack_redeemables` (the stacked validation's own
checks: exists, active, within its dates, uses left), so a code refused there
is refused here for the same reason.

The rules qualifications do not check (`engine.QUALIFICATION_IGNORED`) count
as satisfied; every other rule and limit is checked. Each redeemable
considered and not qualifying keeps its reason (key and message): the answer
does not show them, `exclusions` does.

Every choice where the service's documents are silent is in
docs/decisions.md § Qualifications, and each is made in one place here:
`SCENARIOS` (what each scenario considers), `_judge` (the order of the
checks), `_product_reason` (the product scenarios).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from .. import models
from ..engine import (
    QUALIFICATION_IGNORED,
    CompiledTier,
    CustomerContext,
    NormalizedOrder,
    PricingContext,
    PricingInputError,
    StackResult,
    TierOutcome,
    alone_failure,
    evaluate_stack,
    normalize_order,
    price_normalized,
)
from .promotions import PricingView, customer_context, invalid_payload, pricing_view
from .publishing_lookups import customer_codes, standalone_codes
from .sessions import Held, held
from .stack_redeemables import ResolvedRedeemable, resolve_redeemables
from .state import derived
from .usage import usage_of

if TYPE_CHECKING:
    from .records import Campaign, PromotionStack
    from .simulator import Simulator

__all__ = ["SCENARIOS", "Qualified", "QualifiedStack", "Qualifying", "ScenarioScope", "qualify"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class ScenarioScope:
    """What one scenario considers and how it judges it."""

    tiers: bool = False
    #: codes the customer holds (published to them)
    wallet: bool = False
    #: codes outside any campaign, held or not
    generic: bool = False
    #: the rules see the request's customer (False: judged as without one)
    customer: bool = True
    audience_only: bool = False
    #: None, "items" (discount or rules reach a cart product), "discount" (discount does)
    products: str | None = None
    #: the scenario's promotion stacks, each priced as its tiers stacked
    stacks: bool = False


#: The one table of what each scenario considers (docs/decisions.md § Qualifications).
SCENARIOS: dict[str, ScenarioScope] = {
    "ALL": ScenarioScope(tiers=True, wallet=True, generic=True),
    "CUSTOMER_WALLET": ScenarioScope(wallet=True),
    "AUDIENCE_ONLY": ScenarioScope(tiers=True, wallet=True, generic=True, audience_only=True),
    "PRODUCTS": ScenarioScope(tiers=True, generic=True, customer=False, products="items"),
    "PRODUCTS_DISCOUNT": ScenarioScope(tiers=True, generic=True, customer=False, products="discount"),
    "PRODUCTS_BY_CUSTOMER": ScenarioScope(tiers=True, wallet=True, generic=True, products="items"),
    "PRODUCTS_DISCOUNT_BY_CUSTOMER": ScenarioScope(tiers=True, wallet=True, generic=True, products="discount"),
    "PROMOTION_STACKS": ScenarioScope(stacks=True),
}

#: Rules whose `$in`/`$is` targets are products the cart must hold ("the rules require an item").
_PRODUCT_RULES = frozenset({"product.id", "sku.id", "products_collection.id", "order.items.any", "order.items.every"})


@dataclass(frozen=True, slots=True)
class Qualified:
    """A redeemable that qualifies: its discount outcome, or a gift card's credits."""

    resolved: ResolvedRedeemable
    created_at: datetime
    #: cents the redeemable takes off the cart alone (a gift card: its usable credits)
    deal: int
    outcome: TierOutcome | None
    gift_credits: int | None

    @property
    def id(self) -> str:
        return self.resolved.entry.id


@dataclass(frozen=True, slots=True)
class QualifiedStack:
    """A promotion stack that qualifies: its tiers stacked on the cart, under
    the project's stacking rules (qualifications' ignore list ignored)."""

    stack: PromotionStack
    resolved: tuple[ResolvedRedeemable, ...]
    result: StackResult
    created_at: datetime
    #: cents the stack takes off the cart
    deal: int

    @property
    def id(self) -> str:
        return self.stack.id


@dataclass(slots=True)
class Qualifying:
    """One request judged: what qualified, what did not and why, and what
    rendering the answer needs."""

    body: models.QualificationRequest
    view: PricingView
    order: NormalizedOrder
    customer: CustomerContext | None
    source: str | None
    ctx: PricingContext
    qualified: list[Qualified | QualifiedStack]
    exclusions: list[dict[str, Any]]


def qualify(sim: Simulator, body: models.QualificationRequest, request: Mapping[str, Any]) -> Qualifying:
    """Judge every redeemable the request's scenario considers."""
    view = pricing_view(sim)
    scope = SCENARIOS[body.scenario]
    customer, source = customer_context(sim, view, request.get("customer"))
    try:
        order = normalize_order(view.catalogue, request.get("order"), customer.id if customer else None)
    except PricingInputError as exc:
        raise invalid_payload(exc) from None
    ctx = PricingContext(
        sim.now, body.metadata or {}, audience_only=scope.audience_only, usage=usage_of(sim),
        ignored_rules=QUALIFICATION_IGNORED,
    )  # fmt: skip
    judged = Qualifying(body, view, order, customer, source, ctx, [], [])
    seen = customer if scope.customer else None
    keep = _filter(body.options.filters if body.options else None)
    for resolved in _candidates(sim, view, scope, customer):
        if keep is not None and not keep(resolved):
            continue  # filtered out by the caller: not considered
        try:
            verdict = _judge(sim, judged, scope, seen, resolved)
        except PricingInputError as exc:  # a UNIT tier's free units past 2^63-1
            raise invalid_payload(exc) from None
        if isinstance(verdict, Qualified):
            judged.qualified.append(verdict)
        else:
            entry = resolved.entry
            judged.exclusions.append({"id": entry.id, "object": entry.object, "key": verdict[0], "message": verdict[1]})
    if scope.stacks:
        for stack in sim.state.promotion_stacks.values():
            try:
                _judge_stack(sim, judged, seen, stack)
            except PricingInputError as exc:  # a UNIT tier's free units past 2^63-1
                raise invalid_payload(exc) from None
    return judged


def _judge_stack(sim: Simulator, judged: Qualifying, customer: CustomerContext | None, stack: PromotionStack) -> None:
    """A stack qualifies when its tiers, stacked on the cart under the
    project's rules, make a valid validation; else its exclusion is the first
    tier's reason (in application order) that did not apply."""
    tiers = [_input("promotion_tier", tier_id) for tier_id in stack.tier_ids]
    resolved = tuple(resolve_redeemables(sim, judged.view, tiers, Held()))
    rules = sim.state.stacking_rules or models.StackingRules()
    result = evaluate_stack(
        [r.entry for r in resolved], judged.order, customer, judged.ctx, rules, catalogue=judged.view.catalogue
    )
    if result.valid:
        created = stack.created_at or _EPOCH
        judged.qualified.append(QualifiedStack(stack, resolved, result, created, result.discount))
        return
    failed = next(r for p in result.tried if (r := result.redeemables[p]).status != "APPLICABLE")
    judged.exclusions.append({"id": stack.id, "object": "promotion_stack", "key": failed.reason_key,
                              "message": f"{failed.entry.id}: {failed.reason}"})


def _candidates(
    sim: Simulator, view: PricingView, scope: ScenarioScope, customer: CustomerContext | None
) -> list[ResolvedRedeemable]:
    """The redeemables the scenario considers, resolved against state: tiers
    (campaign creation order, then hierarchy; inactive ones too, refused as
    such), the customer's codes, the generic codes."""
    found: list[ResolvedRedeemable] = []
    if scope.tiers:
        found += derived(sim, "qualification_tiers", lambda state: _resolved_tiers(sim, view))
    codes: dict[str, None] = {}
    if scope.wallet and customer is not None and customer.id is not None:
        codes.update(dict.fromkeys(v.code for v in customer_codes(sim, customer.id)))
    if scope.generic:
        codes.update(dict.fromkeys(v.code for v in standalone_codes(sim)))
    # sessions hold uses and credits of codes: what they hold is taken as spent
    return found + resolve_redeemables(sim, view, [_input("voucher", code) for code in codes], held(sim))


def _resolved_tiers(sim: Simulator, view: PricingView) -> tuple[ResolvedRedeemable, ...]:
    """Every tier resolved, kept with the state's derived lookups (like the
    pricing view it resolves against): what resolving reads of a tier (its
    record, its campaign's categories, its compiled form) changes only when
    the view is rebuilt, and resolving 50 tiers per request was most of a
    qualification's cost (benchmarks/bench_qualifications.py)."""
    tiers = [_input("promotion_tier", tier_id) for tier_id in sim.state.tiers]
    return tuple(resolve_redeemables(sim, view, tiers, Held()))  # sessions hold no tier


def _input(kind: Literal["voucher", "promotion_tier"], redeemable_id: str) -> models.RedeemableInput:
    # Built from state, not from a request: nothing to validate.
    return models.RedeemableInput.model_construct(object=kind, id=redeemable_id, gift=None)


def _judge(
    sim: Simulator, judged: Qualifying, scope: ScenarioScope, customer: CustomerContext | None,
    resolved: ResolvedRedeemable,
) -> Qualified | tuple[str, str]:
    """The redeemable qualified, or (key, message) of what excluded it, checked
    in this order: state (stack_redeemables), customer rules without a
    customer, the campaign, the rules, a gift card's balance, the scenario's
    products."""
    entry = resolved.entry
    if entry.refusal is not None:
        return entry.refusal.key, entry.refusal.message
    created = _created_at(sim, resolved)
    tier = entry.discount
    if tier is None:  # a gift card
        balance = entry.gift_credits or 0
        if balance == 0:
            return "gift_balance_empty", f"Gift card {entry.id} has no balance left"
        failure = alone_failure(entry, judged.order, customer, judged.ctx) if entry.gift_rules is not None else None
        if failure is not None:
            return failure.key, failure.message
        if scope.products is not None:
            return _NOT_PRODUCTS[scope.products]
        return Qualified(resolved, created, min(balance, judged.order.amount), None, min(balance, judged.order.amount))
    if customer is None and tier.rules.audience is not None:
        why = "it has customer rules and no customer was given"
        if judged.customer is not None:
            why = f"it has customer rules and the {judged.body.scenario} scenario does not read the customer"
        return "customer_rules_violated", f"Redeemable {entry.id} depends on the customer profile: {why}"
    ctx = judged.ctx
    if ctx.audience_only:  # the audience-only check skips the campaign; qualifications do not
        failure = tier.campaign.evaluate(ctx.now)
        if failure is not None:
            return failure.key, failure.message
    outcome = price_normalized(judged.view.catalogue, tier, judged.order, customer, ctx)
    if not outcome.valid:
        return outcome.reason_key or "order_rules_violated", outcome.reason or "order does not match validation rules"
    if scope.products is not None and not _reaches_products(tier, judged.order, scope.products):
        return _NOT_PRODUCTS[scope.products]
    return Qualified(resolved, created, outcome.discount_amount or 0, outcome, None)


_NOT_PRODUCTS = {
    "items": ("no_cart_product", "neither its discount nor its rules concern a product of the cart"),
    "discount": ("no_discounted_cart_product", "its discount does not apply to a product of the cart"),
}


def _reaches_products(tier: CompiledTier, order: NormalizedOrder, mode: str) -> bool:
    """PRODUCTS: the discount or a rule names a product of the cart.
    PRODUCTS_DISCOUNT: an item-level amount discount whose `applicable_to`
    reaches a line of the cart (a UNIT discount adds items, it does not
    discount the cart's)."""
    discounted = (
        tier.amount_discount is not None and tier.effect != "APPLY_TO_ORDER"
        and tier.scope.defined and bool(tier.scope.reached(order.lines))
    )  # fmt: skip
    if discounted or mode == "discount":
        return discounted
    rules = (tier.spec.rules or {}).get("rules") or {}
    return any(
        isinstance(rule, Mapping) and rule.get("name") in _PRODUCT_RULES and _names_cart_product(rule, order)
        for key, rule in rules.items() if key != "logic"
    )  # fmt: skip


def _names_cart_product(rule: Mapping[str, Any], order: NormalizedOrder) -> bool:
    conditions = rule.get("conditions") or {}
    targets: list[Any] = []
    for operator in ("$in", "$is"):
        value = conditions.get(operator)
        targets += value if isinstance(value, list) else [value] if value is not None else []
    ids = {t.get("id") if isinstance(t, Mapping) else t for t in targets}
    return any(
        line.product_id in ids or line.sku_id in ids or not ids.isdisjoint(line.collection_ids)
        for line in order.lines
    )  # fmt: skip


def _created_at(sim: Simulator, resolved: ResolvedRedeemable) -> datetime:
    """The record's creation instant, else its campaign's, else the epoch."""
    campaign: Campaign | None = resolved.campaign
    own = resolved.voucher.created_at if resolved.voucher is not None else None
    if own is None and resolved.voucher is None:
        tier = sim.state.tiers.get(resolved.entry.id)
        own = tier.created_at if tier is not None else None
    return own or (campaign.created_at if campaign is not None else None) or _EPOCH


def _filter(filters: Mapping[str, Any] | None) -> Any:
    """`options.filters` as a predicate on a resolved redeemable (None: keep all)."""
    if not filters:
        return None
    junction_any = str(filters.get("junction", "AND")).upper() == "OR"
    checks = [(name, spec["conditions"]) for name, spec in filters.items() if name != "junction"]

    def holds(resolved: ResolvedRedeemable) -> bool:
        verdicts = (_condition_holds(_field(resolved, name), conditions) for name, conditions in checks)
        return any(verdicts) if junction_any else all(verdicts)

    return holds


def _field(resolved: ResolvedRedeemable, name: str) -> str | None:
    campaign, voucher = resolved.campaign, resolved.voucher
    values = {
        "resource_type": resolved.entry.object,
        "resource_id": resolved.entry.id,
        "campaign_id": campaign.id if campaign is not None else None,
        "campaign_type": campaign.type if campaign is not None else None,
        "voucher_type": voucher.type if voucher is not None else None,
        "code": voucher.code if voucher is not None else None,
        "category_id": resolved.categories[0]["id"] if resolved.categories else None,
    }
    return values[name]


def _condition_holds(actual: str | None, conditions: Mapping[str, Any]) -> bool:
    for operator, value in conditions.items():
        values = value if isinstance(value, list) else [value]
        inside = actual in values
        if inside != (operator in ("$is", "$in")):
            return False
    return True
