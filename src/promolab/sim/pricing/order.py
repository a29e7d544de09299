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

from collections.abc import Sequence
from typing import Any

from .items import Line, NormalizedOrder
from .units import UnitLine, UnitResult

__all__ = ["assemble_order"]


def _plain_item(line: Line, discount: int) -> dict[str, Any]:
    item: dict[str, Any] = {"object": "order_item"}
    if line.product_id is not None:
        item["product_id"] = line.product_id
    if line.sku_id is not None:
        item["sku_id"] = line.sku_id
    if line.product_id is None and line.sku_id is None and line.source_id is not None:
        item["source_id"] = line.source_id
    item["quantity"] = line.quantity
    amount = line.amount
    if amount is not None:
        item["amount"] = amount
        if discount:
            item["discount_amount"] = discount
            item["applied_discount_amount"] = discount
    if line.price is not None:
        item["price"] = line.price
    if amount is not None:
        item["subtotal_amount"] = amount - discount
    if line.wire_product is not None:
        item["product"] = dict(line.wire_product)
    if line.wire_sku is not None:
        item["sku"] = dict(line.wire_sku)
    return item


def _unit_item(state: UnitLine, discount: int | None) -> dict[str, Any]:
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
        if discount is not None:
            item["applied_discount_amount"] = discount
    if state.price is not None:
        item["price"] = state.price
    if state.amount is not None:
        item["subtotal_amount"] = state.amount - (discount or 0)
    if state.wire_product is not None:
        item["product"] = dict(state.wire_product)
    if state.wire_sku is not None:
        item["sku"] = dict(state.wire_sku)
    return item


def _trim(discounts: list[int], excess: int) -> None:
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
    """The wire order and its total discount (order-level + item-level)."""
    lines = order.lines
    amount = order.amount + (units.added_amount if units is not None else 0)
    items: list[dict[str, Any]] = []
    if units is not None:
        states: list[UnitLine | None] = [units.changed.get(line.index) for line in lines]
        states.extend(units.appended)
        discounts = [(s.discount_amount or 0) if s is not None else 0 for s in states]
    else:
        states = []
        discounts = list(line_discounts) if line_discounts is not None else [0] * len(lines)
    items_discount = sum(discounts)
    if items_discount > amount:
        _trim(discounts, items_discount - amount)
        items_discount = amount
    if units is not None:
        for k, state in enumerate(states):
            if state is None:
                items.append(_plain_item(lines[k], 0))
            else:
                items.append(
                    _unit_item(state, discounts[k] if state.discount_amount is not None else None)
                )
    else:
        for line, d in zip(lines, discounts):
            items.append(_plain_item(line, d))
    order_discount = max(0, min(order_discount, amount - items_discount))
    total_discount = order_discount + items_discount

    out: dict[str, Any] = {"amount": amount}
    if units is not None and units.added_priced:
        out["initial_amount"] = order.amount
    if order_discount:
        out["discount_amount"] = order_discount
    if items_discount:
        out["items_discount_amount"] = items_discount
    if total_discount:
        out["total_discount_amount"] = total_discount
    out["total_amount"] = amount - total_discount
    if order_discount:
        out["applied_discount_amount"] = order_discount
    if items_discount:
        out["items_applied_discount_amount"] = items_discount
    if total_discount:
        out["total_applied_discount_amount"] = total_discount
    out["items"] = items
    out["metadata"] = dict(order.metadata)
    out["customer_id"] = order.customer_id
    out["referrer_id"] = order.referrer_id
    out["object"] = "order"
    return out, total_discount
