"""A tier's settlement of an order: the discount, the total and the wire order.

Once a tier's checks passed, what it does to an order depends on nothing but
the order's lines and amounts, the tier's compiled discount and the catalogue.
So the settlement is kept in `NormalizedOrder.shared` under the tier's token:
the orders that share their lines (the same plain items and amounts, see
`normalize.normalize_order`) share it, and a shop's frequent carts are settled
once per tier instead of once per request.

The wire order also shows the order's `metadata`, `customer_id` and
`referrer_id`, which belong to each request: from the second order read on,
the settlement keeps the wire order without them as a template, and each
read copies it (fresh objects, the caller's to mutate: `order.copy_order`)
and stamps the request's three values in their places (`stamp`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .lines import NormalizedOrder
from .unit_discounts import apply_units
from .wire_order import (
    assemble_items,
    assemble_order_level,
    assemble_units,
    copy_order,
    unit_totals,
)

if TYPE_CHECKING:
    from .catalogue import Catalogue
    from .compiled_tier import CompiledTier

__all__ = ["Settlement", "settle", "stamp"]


class Settlement:
    """What a valid tier does to an order's lines and amounts."""

    __slots__ = ("_args", "_assemble", "_reads", "_template", "catalogue", "discount", "total")

    def __init__(
        self,
        catalogue: Catalogue,
        discount: int | None,
        total: int,
        assemble: Callable[..., tuple[dict[str, Any], int]],
        args: tuple[Any, ...],
    ) -> None:
        self.catalogue = catalogue
        #: the tier's discount_amount (None: a UNIT discount without a price)
        self.discount = discount
        #: the order's total_amount with the tier applied
        self.total = total
        #: `assemble(order, *args)` builds the wire order
        self._assemble = assemble
        self._args = args
        self._template: dict[str, Any] | None = None
        self._reads = 0

    def wire_order(self, order: NormalizedOrder) -> dict[str, Any]:
        """The wire order of `order` (an order with the lines and amounts this
        settles) with the tier applied; fresh objects."""
        template = self._template
        if template is not None:
            return stamp(copy_order(template), order)
        built = self._assemble(order, *self._args)[0]
        if not self._reads:  # the first order read: many carts are never seen again
            self._reads = 1
            return built
        # A second order with these lines: keep the template (the built order,
        # private from now on, without the request's own values).
        built["metadata"] = built["customer_id"] = built["referrer_id"] = None
        self._template = built
        return stamp(copy_order(built), order)


def stamp(wire_order: dict[str, Any], order: NormalizedOrder) -> dict[str, Any]:
    """Put `order`'s own values in a wire order built for its lines and amounts
    (the keys exist already, so they keep their places)."""
    wire_order["metadata"] = dict(order.metadata)
    wire_order["customer_id"] = order.customer_id
    wire_order["referrer_id"] = order.referrer_id
    return wire_order


def settle(
    catalogue: Catalogue, tier: CompiledTier, order: NormalizedOrder, left: Mapping[str, int] | None = None
) -> Settlement:
    """The settlement of a tier whose checks passed on `order`, computed once
    per order lines and amounts (kept in `order.shared`). `left`: a tier with
    unit budgets, the units it may still discount (`unit_allowance`): its
    settlement belongs to this request and is not kept."""
    if left is not None:
        assert tier.amount_discount is not None  # unit budgets are refused on UNIT discounts
        line_discounts, _ = tier.amount_discount.budgeted_discounts(order, tier.scope, left)
        discount = min(sum(line_discounts), order.amount)
        return Settlement(catalogue, discount, order.amount - discount, assemble_items, (line_discounts,))
    shared = order.shared
    found: Settlement | None = shared.get(tier.token)
    if found is not None and found.catalogue is catalogue:
        return found
    settlement = _compute(catalogue, tier, order)
    shared[tier.token] = settlement
    return settlement


def _compute(catalogue: Catalogue, tier: CompiledTier, order: NormalizedOrder) -> Settlement:
    amount_discount = tier.amount_discount
    if amount_discount is None:
        units = apply_units(order, catalogue, tier.units)
        discount, total = unit_totals(order, units)
        return Settlement(
            catalogue, discount if units.monetary else None, total, assemble_units, (units,)
        )
    if amount_discount.order_level:
        discount = amount_discount.order_discount(order.amount)  # at most the amount
        return Settlement(
            catalogue, discount, order.amount - discount, assemble_order_level, (discount,)
        )
    line_discounts = amount_discount.line_discounts(order, tier.scope)
    discount = min(sum(line_discounts), order.amount)
    return Settlement(
        catalogue, discount, order.amount - discount, assemble_items, (line_discounts,)
    )
