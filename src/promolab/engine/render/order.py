"""Rendering an `OrderPricing` as the wire order, each amount field only where it applies.

The engine computes (`settle`, `unit_discounts`, `stacking.running_order`
give an `OrderPricing` whose every figure is final); this module only writes
them down, in one pass over the lines (`order_wire`). It is the one place of
the order's presence rules:

Order fields, in the interface's order: `amount`, `initial_amount`,
`discount_amount`, `items_discount_amount`, `total_discount_amount`,
`total_amount`, `applied_discount_amount`, `items_applied_discount_amount`,
`total_applied_discount_amount`, `items`, `metadata`, `customer_id`,
`referrer_id`, `object`. Presence (read off the service's examples):
- `amount`, `total_amount`: always.
- `initial_amount`: only when a UNIT effect added priced units (the amount then
  differs from the cart as sent); a price-less free-shipping line does not
  count (the example omits it).
- `discount_amount` / `applied_discount_amount`: an order-level effect gave > 0
  (so far / in the step shown, for a stack's running order).
- `items_discount_amount` / `items_applied_discount_amount`: item discounts > 0.
- `total_discount_amount` / `total_applied_discount_amount`: either of the above.

Item fields: `object`, `product_id`, `sku_id`, `quantity`, then for lines a
UNIT effect touched `discount_quantity`, `initial_quantity`, then `amount`,
`discount_amount`, `initial_amount` (UNIT lines), `applied_discount_amount`,
`price`, `subtotal_amount`, `product`, `sku`. Lines without a discount omit the
discount fields but keep `subtotal_amount = amount`; lines without a price omit
`price`, `amount` and `subtotal_amount`; in a stack's running order an item
shows `applied_discount_amount` only where the step shown discounted it.

Speed (a wire order is built per valid tier per request): each line's
undiscounted item is planned once (`ItemTemplate`, kept on the line), and a
pricing shared by the orders with the same lines (`settle`) keeps, from its
second read on, its wire order without the request's own values as a
template (`OrderPricing.wire_template`): each read copies it (`copy_order`) and
stamps the request's metadata, customer and referrer in (`stamp`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..lines import Line, NormalizedOrder
from ..order_pricing import OrderPricing
from ..unit_discounts import UnitLine

__all__ = ["ItemTemplate", "copy_order", "order_wire", "stamp"]


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


def _item_template(line: Line) -> ItemTemplate:
    """The line's template, built and kept on the line on first use."""
    template = ItemTemplate(line)
    line.wire_item = template
    return template


def _items(
    lines: Sequence[Line], discounts: Sequence[int | None] | None, applied: Sequence[int | None] | None = None
) -> list[dict[str, Any]]:
    """Fresh order items for `lines`, with `discounts[k]` cents off line k
    (None: no discounts), of which `applied[k]` were applied by the step shown
    (None: all of them, one tier's case; else a stack's running order). One loop
    for all lines rather than a call per line: this builds every item of
    every tier of a request."""
    items = []
    for k, line in enumerate(lines):
        template = line.wire_item or _item_template(line)
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


def order_wire(order: NormalizedOrder, pricing: OrderPricing) -> dict[str, Any]:
    """The wire order of `order` (an order with the lines and amounts
    `pricing` prices) with its discounts; fresh objects, the caller's."""
    template = pricing.wire_template
    if template is not None:
        return stamp(copy_order(template), order)
    built = _build(order, pricing)
    if not pricing.wire_reads:  # the first order read: many carts are never seen again
        pricing.wire_reads = 1
        return built
    # A second order with these lines: keep the template (the built order,
    # private from now on, without the request's own values).
    built["metadata"] = built["customer_id"] = built["referrer_id"] = None
    pricing.wire_template = built
    return stamp(copy_order(built), order)


def stamp(wire_order: dict[str, Any], order: NormalizedOrder) -> dict[str, Any]:
    """Put `order`'s own values in a wire order built for its lines and amounts
    (the keys exist already, so they keep their places)."""
    wire_order["metadata"] = dict(order.metadata)
    wire_order["customer_id"] = order.customer_id
    wire_order["referrer_id"] = order.referrer_id
    return wire_order


def _build(order: NormalizedOrder, pricing: OrderPricing) -> dict[str, Any]:
    """The wire order, in one pass over the lines."""
    lines = order.lines
    units = pricing.units
    applied = pricing.applied_lines
    if units is not None:
        discounts = pricing.line_discounts
        assert discounts is not None  # a UNIT pricing has one per line
        if applied is None:  # one tier: `order` is the cart as sent, its appended lines are in `units` only
            plain = _items(lines, None)  # the lines no unit touched are as sent
            items = [plain[k] if state is None else _unit_item(state, discounts[k], discounts[k])
                     for k, state in enumerate(units)]
        else:  # a stack's running order: `order` holds the lines the units made
            items = _items(lines, discounts, applied)
            for k, state in enumerate(units):
                if state is not None:
                    priced = state.price is not None
                    items[k] = _unit_item(state, discounts[k] if priced else None, applied[k] if priced else None)
    else:
        items = _items(lines, pricing.line_discounts, applied)
    if applied is None:  # one tier: every discount is the step's own
        return _order_object(
            order, pricing.amount, pricing.initial_amount, pricing.order_discount, pricing.items_discount, items
        )
    return _general_object(
        order, pricing.amount, pricing.initial_amount, pricing.order_discount, pricing.items_discount,
        pricing.applied_order, pricing.applied_items, items,
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
