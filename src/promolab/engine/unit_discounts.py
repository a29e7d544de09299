"""UNIT discounts: free units of a product or SKU, added to the cart if needed.

- ADD_MISSING_ITEMS (N of P): the first line of P is topped up to N units (a
  new last line of N units when P is absent); N units are discounted, also when
  the line already had more than N.
- ADD_NEW_ITEMS (N of P): N units are always added (to the first line of P, or
  a new last line) and exactly those N are discounted.
- ADD_MANY_ITEMS: `units[]` applied one after the other, each with its own
  effect; a later unit sees the lines as the earlier ones left them.

"Line of P": for a SKU unit, a line of that SKU; for a product unit, a line of
that product without a SKU. Duplicate lines are never merged: only the first
one is considered and modified. Added units are priced like the line (its
request price) or, for a new line, from the catalogue (SKU price wins). A unit
without any price (the built-in free shipping product) gives a line with
quantity / discount_quantity / initial_quantity and no amounts; it leaves the
order's totals unchanged. `applicable_to` caps do not apply to UNIT discounts.

Added units can take a line's quantity or amount, or the order amount, past
2^63-1, the bound of every such number on the wire: such an order is refused
(`PricingOverflowError`, 400 `invalid_payload`) rather than answered with
numbers the document forbids. Checked once, on the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalogue import Catalogue
from .errors import INT64_MAX, PricingOverflowError
from .item_resolution import product_wire, sku_wire
from .lines import NormalizedOrder

__all__ = ["UnitLine", "UnitResult", "UnitSpec", "apply_units", "compile_units"]

UNIT_EFFECTS = ("ADD_MISSING_ITEMS", "ADD_NEW_ITEMS")


@dataclass(frozen=True, slots=True)
class UnitSpec:
    effect: str
    unit_off: int
    unit_type: str


class UnitLine:
    """Working state of a line a UNIT effect touched (or created); once
    `apply_units` returns, the final state, read by `OrderPricing` (and so
    never changed again). Equal when every field is: two pricings of the same
    lines compare equal."""

    __slots__ = (
        "amount",
        "discount_quantity",
        "index",
        "initial_amount",
        "initial_quantity",
        "price",
        "product_id",
        "quantity",
        "sku_id",
        "wire_product",
        "wire_sku",
    )

    def __init__(
        self,
        index: int | None,
        product_id: str | None,
        sku_id: str | None,
        wire_product: Mapping[str, Any] | None,
        wire_sku: Mapping[str, Any] | None,
        price: int | None,
        quantity: int,
        amount: int | None,
    ) -> None:
        self.index = index
        self.product_id = product_id
        self.sku_id = sku_id
        self.wire_product = wire_product
        self.wire_sku = wire_sku
        self.price = price
        self.quantity = quantity
        self.initial_quantity = quantity
        self.amount = amount
        self.initial_amount = amount
        self.discount_quantity = 0

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnitLine):
            return NotImplemented
        return self._fields() == other._fields()

    # No __hash__: a class that defines __eq__ alone is unhashable.

    @property
    def discount_amount(self) -> int | None:
        if self.price is None:
            return None
        value = self.price * self.discount_quantity
        return min(value, self.amount) if self.amount is not None else value


# Not frozen: built per UNIT tier per request (see Line on frozen dataclasses' cost).
@dataclass(slots=True)
class UnitResult:
    #: touched original lines, by index
    changed: Mapping[int, UnitLine]
    #: new lines, in the order they were added
    appended: Sequence[UnitLine]
    #: cents added to the order amount by the added units
    added_amount: int
    #: whether any added unit had a price (the order then carries initial_amount)
    added_priced: bool
    #: whether any discounted unit had a price (the tier then has discount_amount)
    monetary: bool


def apply_units(
    order: NormalizedOrder, catalogue: Catalogue, units: Sequence[UnitSpec]
) -> UnitResult:
    changed: dict[int, UnitLine] = {}
    appended: list[UnitLine] = []
    added_amount = 0
    added_priced = False
    for unit in units:
        product, sku = catalogue.unit_target(unit.unit_type)
        state: UnitLine | None = None
        for line in order.lines:
            hit = (
                (line.sku_id == sku.id)
                if sku is not None
                else (line.product_id == product.id and line.sku_id is None)
            )
            if hit:
                state = changed.get(line.index)
                if state is None:
                    state = UnitLine(
                        line.index,
                        line.product_id,
                        line.sku_id,
                        line.wire_product,
                        line.wire_sku,
                        line.price,
                        line.quantity,
                        line.amount,
                    )
                    changed[line.index] = state
                break
        if state is None:
            for new in appended:
                same = (
                    (new.sku_id == sku.id)
                    if sku is not None
                    else (new.product_id == product.id and new.sku_id is None)
                )
                if same:
                    state = new
                    break
        if state is None:
            price = sku.price if sku is not None and sku.price is not None else product.price
            state = UnitLine(
                None,
                product.id or None,
                sku.id if sku is not None else None,
                product_wire(product, product.id or None),
                sku_wire(sku, None) if sku is not None else None,
                price,
                0,
                0 if price is not None else None,
            )
            appended.append(state)
        n = unit.unit_off
        add = n if unit.effect == "ADD_NEW_ITEMS" else max(0, n - state.quantity)
        state.quantity += add
        state.discount_quantity = min(state.discount_quantity + n, state.quantity)
        if add and state.price is not None:
            state.amount = (state.amount or 0) + state.price * add
            added_amount += state.price * add
            added_priced = True
    touched = list(changed.values()) + appended
    if order.amount + added_amount > INT64_MAX:
        raise PricingOverflowError(
            "order", f"the units a UNIT discount adds would take the order amount past {INT64_MAX}"
        )
    for s in touched:
        if s.quantity > INT64_MAX or (s.amount is not None and s.amount > INT64_MAX):
            where = "order.items" if s.index is None else f"order.items[{s.index}]"
            raise PricingOverflowError(
                where, f"the units a UNIT discount adds would take the line's quantity or amount past {INT64_MAX}"
            )
    monetary = any(s.price is not None and s.discount_quantity for s in touched)
    return UnitResult(changed, appended, added_amount, added_priced, monetary)


def _unit(raw: Mapping[str, Any], effect: str | None) -> UnitSpec:
    effect = raw.get("effect") or effect or "ADD_MISSING_ITEMS"
    if effect not in UNIT_EFFECTS:
        raise ValueError(f"unit effect must be one of {UNIT_EFFECTS}, got {effect!r}")
    unit_off = raw.get("unit_off")
    if isinstance(unit_off, bool) or not isinstance(unit_off, int) or unit_off < 0:
        raise ValueError(f"unit_off must be a non-negative integer, got {unit_off!r}")
    unit_type = raw.get("unit_type")
    if not isinstance(unit_type, str) or not unit_type:
        raise ValueError(f"unit_type must be a product or SKU id, got {unit_type!r}")
    return UnitSpec(effect, unit_off, unit_type)


def compile_units(effect: str, discount: Mapping[str, Any]) -> tuple[UnitSpec, ...]:
    if effect == "ADD_MANY_ITEMS":
        units = discount.get("units")
        if not isinstance(units, Sequence) or isinstance(units, str) or not units:
            raise ValueError("ADD_MANY_ITEMS needs a non-empty 'units' array")
        return tuple(_unit(u, None) if isinstance(u, Mapping) else _bad(u) for u in units)
    return (_unit(discount, effect),)


def _bad(value: Any) -> UnitSpec:
    raise ValueError(f"unit must be an object, got {value!r}")
