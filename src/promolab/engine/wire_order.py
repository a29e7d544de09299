"""Assembling the wire order of one tier, with each amount field only where it applies.

Order fields, in the interface's order: `amount`, `initial_amount`,
`discount_amount`, `items_discount_amount`, `total_discount_amount`,
`total_amount`, `applied_discount_amount`, `items_applied_discount_amount`,
`total_applied_discount_amount`, `items`, `metadata`, `customer_id`,
`referrer_id`, `object`. Presence (read off the service's examples):
- `amount`, `total_amount`: always.
- `initial_amount`: only when a UNIT effect added priced units (the amount then
  differs from the cart as sent); a price-less free-shipping line does not
  count (the example omits it).
- `discount_amount` / `applied_discount_amount`: an order-level effect gave > 0.
- `items_discount_amount` / `items_applied_discount_amount`: item discounts > 0.
- `total_discount_amount` / `total_applied_discount_amount`: either of the above.

Item fields: `object`, `product_id`, `sku_id`, `quantity`, then for lines a
UNIT effect touched `discount_quantity`, `initial_quantity`, then `amount`,
`discount_amount`, `initial_amount` (UNIT lines), `applied_discount_amount`,
`price`, `subtotal_amount`, `product`, `sku`. Lines without a discount omit the
discount fields but keep `subtotal_amount = amount`; lines without a price omit
`price`, `amount` and `subtotal_amount`.

If the request sent an order `amount` smaller than the item discounts, item
discounts are trimmed from the last line backwards so `total_amount` never goes
below zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .lines import Line, NormalizedOrder
from .unit_discounts import UnitLine, UnitResult

__all__ = [
    "assemble_items",
    "assemble_order",
    "assemble_order_level",
    "assemble_running",
    "assemble_units",
    "copy_order",
    "trim_from_last",
    "unit_totals",
]


class ItemTemplate:
    """A line as an undiscounted order item, and the same split around the
    place where discount fields go; built once per line (per request) and
    copied for every tier, instead of rebuilding each item key by key.

    The `product`/`sku` values are the line's shared wire dicts: every item
    handed out gets its own copies.
    """

    __slots__ = ("amount", "head", "plain", "product", "sku", "tail")

    def __init__(self, line: Line) -> None:
        head: dict[str, Any] = {"object": "order_item"}
        if line.product_id is not None:
            head["product_id"] = line.product_id
        if line.sku_id is not None:
            head["sku_id"] = line.sku_id
        if line.product_id is None and line.sku_id is None and line.source_id is not None:
            head["source_id"] = line.source_id
        head["quantity"] = line.quantity
        tail: dict[str, Any] = {}
        if line.amount is not None:
            head["amount"] = line.amount
        if line.price is not None:
            tail["price"] = line.price
        if line.amount is not None:
            tail["subtotal_amount"] = line.amount
        if line.wire_product is not None:
            tail["product"] = line.wire_product
        if line.wire_sku is not None:
            tail["sku"] = line.wire_sku
        #: object, ids, quantity, amount  |  price, subtotal_amount, product, sku
        self.head = head
        self.tail = tail
        self.plain = {**head, **tail}
        self.amount = line.amount
        # plain dicts, so that each item's copy is a (fast) dict.copy()
        self.product = dict(line.wire_product) if line.wire_product is not None else None
        self.sku = dict(line.wire_sku) if line.wire_sku is not None else None


def _template(line: Line) -> ItemTemplate:
    """The line's template, built and kept on the line on first use."""
    template = ItemTemplate(line)
    line.wire_item = template
    return template


def _items(
    lines: Sequence[Line], discounts: Sequence[int] | None, applied: Sequence[int | None] | None = None
) -> list[dict[str, Any]]:
    """Fresh order items for `lines`, with `discounts[k]` cents off line k
    (None: no discounts), of which `applied[k]` were applied by the step shown
    (None: all of them; a stack's running order, `assemble_running`; 0 or
    None: none). One loop
    for all lines rather than a call per line: this builds every item of
    every tier of a request."""
    items = []
    for k, line in enumerate(lines):
        template = line.wire_item or _template(line)
        discount = discounts[k] if discounts is not None else 0
        if not discount or template.amount is None:
            item = template.plain.copy()
        elif applied is None or applied[k]:
            item = {
                **template.head,
                "discount_amount": discount,
                "applied_discount_amount": discount if applied is None else applied[k],
                **template.tail,
            }
            item["subtotal_amount"] = template.amount - discount  # keeps its place after `price`
        else:
            item = {**template.head, "discount_amount": discount, **template.tail}
            item["subtotal_amount"] = template.amount - discount  # keeps its place after `price`
        if template.product is not None:
            item["product"] = template.product.copy()
        if template.sku is not None:
            item["sku"] = template.sku.copy()
        items.append(item)
    return items


def _unit_item(state: UnitLine, discount: int | None, applied: int | None) -> dict[str, Any]:
    """A line a UNIT effect touched: `discount` cents off it (None: it has no
    price), of which `applied` by the step shown (None: the step did not
    touch it; a stack's running order)."""
    item: dict[str, Any] = {"object": "order_item"}
    if state.product_id is not None:
        item["product_id"] = state.product_id
    if state.sku_id is not None:
        item["sku_id"] = state.sku_id
    item["quantity"] = state.quantity
    item["discount_quantity"] = state.discount_quantity
    item["initial_quantity"] = state.initial_quantity
    if state.amount is not None:
        item["amount"] = state.amount
        if discount is not None:
            item["discount_amount"] = discount
        if state.initial_amount is not None:
            item["initial_amount"] = state.initial_amount
        if applied is not None:
            item["applied_discount_amount"] = applied
    if state.price is not None:
        item["price"] = state.price
    if state.amount is not None:
        item["subtotal_amount"] = state.amount - (discount or 0)
    if state.wire_product is not None:
        item["product"] = dict(state.wire_product)
    if state.wire_sku is not None:
        item["sku"] = dict(state.wire_sku)
    return item


def trim_from_last(discounts: list[int], excess: int) -> None:
    """Take `excess` cents back from the last discounted lines first."""
    for i in range(len(discounts) - 1, -1, -1):
        if excess <= 0:
            return
        step = min(discounts[i], excess)
        discounts[i] -= step
        excess -= step


def assemble_order(
    order: NormalizedOrder,
    *,
    order_discount: int = 0,
    line_discounts: Sequence[int] | None = None,
    units: UnitResult | None = None,
) -> tuple[dict[str, Any], int]:
    """The wire order and its total discount (order-level + item-level).

    The engine gives one kind of discount per tier and calls the matching
    `assemble_*` function directly; this entry point also combines them.
    """
    if units is None and line_discounts is None:
        return assemble_order_level(order, order_discount)
    if units is None and not order_discount:
        assert line_discounts is not None
        return assemble_items(order, line_discounts)
    lines = order.lines
    unit_discounts: list[int | None] = []
    if units is not None:
        amount = order.amount + units.added_amount
        states: list[UnitLine | None] = [units.changed.get(line.index) for line in lines]
        states.extend(units.appended)
        # None: the line has no price, so no discount amount at all
        unit_discounts = [s.discount_amount if s is not None else None for s in states]
        discounts = [d or 0 for d in unit_discounts]
    else:
        amount = order.amount
        states = []
        discounts = list(line_discounts) if line_discounts is not None else [0] * len(lines)
    items_discount = sum(discounts)
    if items_discount > amount:
        trim_from_last(discounts, items_discount - amount)
        items_discount = amount
    if units is not None:
        items = _items(lines, None)  # the lines no unit touched are as sent
        for k, state in enumerate(states):
            if state is not None:
                shown = discounts[k] if unit_discounts[k] is not None else None
                item = _unit_item(state, shown, shown)  # one tier: all of it applied by it
                if k < len(items):
                    items[k] = item
                else:
                    items.append(item)
    else:
        items = _items(lines, discounts)
    order_discount = max(0, min(order_discount, amount - items_discount))
    initial_amount = order.amount if units is not None and units.added_priced else None
    out = _order_object(order, amount, initial_amount, order_discount, items_discount, items)
    return out, order_discount + items_discount


def assemble_units(order: NormalizedOrder, units: UnitResult) -> tuple[dict[str, Any], int]:
    """The wire order of a UNIT result (`assemble_order` with units only)."""
    return assemble_order(order, units=units)


def unit_totals(order: NormalizedOrder, units: UnitResult) -> tuple[int, int]:
    """(total discount, order total_amount) of a UNIT result: the figures
    `assemble_units` puts in the wire order, without building it."""
    amount = order.amount + units.added_amount
    discount = 0
    for state in (*units.changed.values(), *units.appended):
        value = state.discount_amount
        if value:
            discount += value
    discount = min(discount, amount)
    return discount, amount - discount


def assemble_order_level(order: NormalizedOrder, discount: int) -> tuple[dict[str, Any], int]:
    """An order-level discount: every item as sent, at most the order amount off."""
    amount = order.amount
    discount = max(0, min(discount, amount))
    items = _items(order.lines, None)
    return _order_object(order, amount, None, discount, 0, items), discount


def assemble_items(
    order: NormalizedOrder, line_discounts: Sequence[int]
) -> tuple[dict[str, Any], int]:
    """Item-level discounts, one per line (trimmed if they exceed the order amount)."""
    amount = order.amount
    items_discount = sum(line_discounts)
    if items_discount > amount:
        trimmed = list(line_discounts)
        trim_from_last(trimmed, items_discount - amount)
        line_discounts, items_discount = trimmed, amount
    items = _items(order.lines, line_discounts)
    return _order_object(order, amount, None, 0, items_discount, items), items_discount


def assemble_running(
    order: NormalizedOrder,
    line_discounts: Sequence[int],
    order_discount: int,
    applied_lines: Sequence[int | None] | None,
    applied_order: int,
    units: Mapping[int, UnitLine] | None = None,
    initial_amount: int | None = None,
) -> dict[str, Any]:
    """A stack's running order: `line_discounts` and `order_discount` are the
    discounts so far, `applied_*` those of the step shown (the service's
    `applied_*` fields; on an item, `applied_discount_amount` only where the
    step discounted it: a 0 or None there is "not this step"). `units`: the
    lines UNIT discounts touched (shown with their unit fields, `_unit_item`),
    `initial_amount` the order's when they added priced units. With one
    step, the single-tier order exactly."""
    applied = applied_lines if applied_lines is not None else [0] * len(order.lines)
    items = _items(order.lines, line_discounts, applied)
    if units:
        for k, state in units.items():
            priced = state.price is not None
            items[k] = _unit_item(state, line_discounts[k] if priced else None, applied[k] if priced else None)
    return _general_object(
        order, order.amount, initial_amount, order_discount, sum(line_discounts), applied_order,
        sum(a or 0 for a in applied), items,
    )  # fmt: skip


def copy_order(order: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of a wire order built here: the order's own containers
    are `items` (order items, whose only containers are their `product` and
    `sku` objects, flat) and `metadata` (copied shallowly, as `_order_object`
    copies the request's)."""
    out = order.copy()
    items = []
    for item in order["items"]:
        copied = item.copy()
        product = copied.get("product")
        if product is not None:
            copied["product"] = product.copy()
        sku = copied.get("sku")
        if sku is not None:
            copied["sku"] = sku.copy()
        items.append(copied)
    out["items"] = items
    metadata = out["metadata"]
    if metadata is not None:
        out["metadata"] = dict(metadata)
    return out


def _order_object(
    order: NormalizedOrder,
    amount: int,
    initial_amount: int | None,
    order_discount: int,
    items_discount: int,
    items: list[dict[str, Any]],
) -> dict[str, Any]:
    """The order object with each amount field present only where it applies.

    The three shapes of (almost) every tier, no discount / order-level only /
    items only, are written out as literals: one dict build instead of up to
    fifteen conditional insertions, for an object built per tier per request.
    Any other combination takes the general path, which states the rules.
    """
    metadata = dict(order.metadata)
    customer_id, referrer_id = order.customer_id, order.referrer_id
    if initial_amount is None:
        if not order_discount and not items_discount:
            return {
                "amount": amount,
                "total_amount": amount,
                "items": items,
                "metadata": metadata,
                "customer_id": customer_id,
                "referrer_id": referrer_id,
                "object": "order",
            }
        if not items_discount:
            d = order_discount
            return {
                "amount": amount,
                "discount_amount": d,
                "total_discount_amount": d,
                "total_amount": amount - d,
                "applied_discount_amount": d,
                "total_applied_discount_amount": d,
                "items": items,
                "metadata": metadata,
                "customer_id": customer_id,
                "referrer_id": referrer_id,
                "object": "order",
            }
        if not order_discount:
            d = items_discount
            return {
                "amount": amount,
                "items_discount_amount": d,
                "total_discount_amount": d,
                "total_amount": amount - d,
                "items_applied_discount_amount": d,
                "total_applied_discount_amount": d,
                "items": items,
                "metadata": metadata,
                "customer_id": customer_id,
                "referrer_id": referrer_id,
                "object": "order",
            }
    return _general_object(
        order, amount, initial_amount, order_discount, items_discount, order_discount, items_discount, items
    )


def _general_object(
    order: NormalizedOrder,
    amount: int,
    initial_amount: int | None,
    order_discount: int,
    items_discount: int,
    applied_order: int,
    applied_items: int,
    items: list[dict[str, Any]],
) -> dict[str, Any]:
    """The order object, every presence rule stated: the discounts so far
    (`*discount_amount`) and those of the step shown (`*applied*`), each
    present when it is not zero."""
    total_discount = order_discount + items_discount
    out: dict[str, Any] = {"amount": amount}
    if initial_amount is not None:
        out["initial_amount"] = initial_amount
    if order_discount:
        out["discount_amount"] = order_discount
    if items_discount:
        out["items_discount_amount"] = items_discount
    if total_discount:
        out["total_discount_amount"] = total_discount
    out["total_amount"] = amount - total_discount
    if applied_order:
        out["applied_discount_amount"] = applied_order
    if applied_items:
        out["items_applied_discount_amount"] = applied_items
    if applied_order or applied_items:
        out["total_applied_discount_amount"] = applied_order + applied_items
    out["items"] = items
    out["metadata"] = dict(order.metadata)
    out["customer_id"] = order.customer_id
    out["referrer_id"] = order.referrer_id
    out["object"] = "order"
    return out
