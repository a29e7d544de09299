"""A tier's settlement of an order: its `OrderPricing`, computed once per order lines.

Once a tier's checks passed, what it does to an order depends on nothing but
the order's lines and amounts, the tier's compiled discount and the catalogue.
So the pricing is kept in `NormalizedOrder.shared` under the tier's token:
the orders that share their lines (the same plain items and amounts, see
`normalize.normalize_order`) share it, and a shop's frequent carts are settled
once per tier instead of once per request (the renderer keeps its wire
template with the pricing, `OrderPricing.wire_template`, so it is shared alike).

Computing only: every clamp and trim happens here; nothing here knows the
wire shapes (`engine.render` renders the pricing; an import-linter contract
keeps this module from importing it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .lines import NormalizedOrder
from .order_pricing import OrderPricing, trim_from_last
from .unit_discounts import UnitLine, apply_units

if TYPE_CHECKING:
    from .catalogue import Catalogue
    from .compiled_tier import CompiledTier

__all__ = ["settle"]


def settle(
    catalogue: Catalogue, tier: CompiledTier, order: NormalizedOrder, left: Mapping[str, int] | None = None
) -> OrderPricing:
    """The pricing of a tier whose checks passed on `order`, computed once
    per order lines and amounts (kept in `order.shared` with its catalogue).
    `left`: a tier with unit budgets, the units it may still discount
    (`unit_allowance`): its pricing belongs to this request and is not kept."""
    if left is not None:
        assert tier.amount_discount is not None  # unit budgets are refused on UNIT discounts
        line_discounts, _ = tier.amount_discount.budgeted_discounts(order, tier.scope, left)
        return _items(order.amount, list(line_discounts))
    shared = order.shared
    found: tuple[Catalogue, OrderPricing] | None = shared.get(tier.token)
    if found is not None and found[0] is catalogue:
        return found[1]
    pricing = _compute(catalogue, tier, order)
    shared[tier.token] = (catalogue, pricing)
    return pricing


def _compute(catalogue: Catalogue, tier: CompiledTier, order: NormalizedOrder) -> OrderPricing:
    amount_discount = tier.amount_discount
    amount = order.amount
    if amount_discount is None:
        return _units(catalogue, tier, order)
    if amount_discount.order_level:
        discount = amount_discount.order_discount(amount)  # at most the amount
        return OrderPricing(amount, None, discount, 0, None, discount, None)
    return _items(amount, list(amount_discount.line_discounts(order, tier.scope)))


def _items(amount: int, line_discounts: list[int]) -> OrderPricing:
    """Item discounts, one per line, trimmed from the last line when they
    exceed the order amount (an order amount sent below its items' discounts)."""
    items_discount = sum(line_discounts)
    if items_discount > amount:
        trim_from_last(line_discounts, items_discount - amount)
        items_discount = amount
    return OrderPricing(amount, None, 0, items_discount, tuple(line_discounts), 0, None)


def _units(catalogue: Catalogue, tier: CompiledTier, order: NormalizedOrder) -> OrderPricing:
    """A UNIT discount: the lines it touched or appended, each discounted by
    its free units' price (at most the line amount), trimmed from the last
    line when the whole exceeds the order amount."""
    units = apply_units(order, catalogue, tier.units)
    changed = units.changed
    states: list[UnitLine | None] = [changed.get(line.index) for line in order.lines]
    states.extend(units.appended)
    amount = order.amount + units.added_amount
    # None: the line has no price, so no discount amount at all
    priced = [s.discount_amount if s is not None else 0 for s in states]
    discounts = [d or 0 for d in priced]
    items_discount = sum(discounts)
    if items_discount > amount:
        trim_from_last(discounts, items_discount - amount)
        items_discount = amount
    shown = tuple(None if p is None else d for p, d in zip(priced, discounts, strict=True))
    initial_amount = order.amount if units.added_priced else None
    return OrderPricing(
        amount, initial_amount, 0, items_discount, shown, 0, None, tuple(states), units.monetary
    )
