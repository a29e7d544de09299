"""A tier checked and pre-digested once: `compile_tier` and `CompiledTier`.

Everything about a tier that does not depend on the order is computed here,
once per tier (cache the result): the discount (`amount_discounts` or
`unit_discounts`), the rules as closures (`rules`), the scope (`scope`), the
campaign checks (`campaign`); the renderer keeps the tier's own wire parts
per catalogue in its `wire_cache` (`render.tier.static_wire`). A tier the engine cannot evaluate is refused here,
with `TierConfigError`, so that a scenario fails when it loads rather than in
the middle of a validation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .amount_discounts import AmountBenefit, compile_amount_discount
from .campaign import CampaignCheck, compile_campaign
from .errors import TierConfigError
from .rules import RuleConfigError, RuleSet, compile_rules
from .scope import Scope, compile_scope
from .tier_spec import TierSpec
from .total_amount import OwnTotal
from .unit_discounts import UnitSpec, compile_units

if TYPE_CHECKING:
    from .render.tier import StaticWire

__all__ = ["EFFECTS", "CompiledTier", "compile_tier", "default_effect"]

#: The effects each discount type allows.
EFFECTS: Mapping[str, tuple[str, ...]] = {
    "AMOUNT": (
        "APPLY_TO_ORDER",
        "APPLY_TO_ITEMS",
        "APPLY_TO_ITEMS_PROPORTIONALLY",
        "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY",
        "APPLY_TO_ITEMS_BY_QUANTITY",
    ),
    "PERCENT": ("APPLY_TO_ORDER", "APPLY_TO_ITEMS"),
    "FIXED": ("APPLY_TO_ORDER", "APPLY_TO_ITEMS"),
    "UNIT": ("ADD_MISSING_ITEMS", "ADD_NEW_ITEMS", "ADD_MANY_ITEMS"),
}


def default_effect(kind: str, scope: Scope) -> str:
    """Semantics §2: items when applicable_to is defined, else order; UNIT adds missing."""
    if kind == "UNIT":
        return "ADD_MISSING_ITEMS"
    return "APPLY_TO_ITEMS" if scope.defined else "APPLY_TO_ORDER"


@dataclass(frozen=True, slots=True)
class CompiledTier:
    """A tier with its discount, rules, scope and campaign checks pre-digested."""

    spec: TierSpec
    kind: str
    effect: str
    campaign: CampaignCheck
    rules: RuleSet
    scope: Scope
    amount_discount: AmountBenefit | None
    units: tuple[UnitSpec, ...]
    #: The renderer's one-slot cache of the tier's wire parts for one
    #: catalogue (`render.tier.static_wire`); a list because the dataclass
    #: itself is frozen. Never part of what the tier computes.
    wire_cache: list[StaticWire | None] = field(
        default_factory=lambda: [None], repr=False, compare=False
    )
    #: Identity of this tier in per-order memos (`NormalizedOrder.shared`): a
    #: fresh object, so that no other tier can ever take its place there.
    token: object = field(default_factory=object, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.spec.id


def _own_total(benefit: AmountBenefit | None, scope: Scope) -> OwnTotal | None:
    """What the tier's `order.total_amount` rules read when priced alone on
    an order (a single validation): its amount less this discount alone."""
    if benefit is None:
        return None
    return lambda order: order.amount - benefit.alone(order, scope)


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
        if scope.budgeted and (kind == "UNIT" or effect == "APPLY_TO_ORDER"):
            # decision: docs/decisions.md § Unit budgets
            raise ValueError(
                f"unit budgets (product_*_quantity_limit) cap the units an item discount reaches; "
                f"a {kind} {effect} discount has none to cap"
            )
        amount_discount = None
        units: tuple[UnitSpec, ...] = ()
        if kind == "UNIT":
            units = compile_units(effect, discount)
        else:
            amount_discount = compile_amount_discount(kind, effect, discount)
        rules = compile_rules(tier.rules, _own_total(amount_discount, scope))
        if rules.reads_total and amount_discount is None:
            raise ValueError("order.total_amount rules are not supported on UNIT discounts")
        if rules.reads_total and scope.budgeted:
            # its own total would depend on the units left (docs/decisions.md § Unit budgets)
            raise ValueError("order.total_amount rules are not supported on a tier with unit budgets")
        campaign = compile_campaign(tier.campaign)
    except (ValueError, RuleConfigError) as exc:
        raise TierConfigError(tier.id, str(exc)) from None
    return CompiledTier(tier, kind, effect, campaign, rules, scope, amount_discount, units)
