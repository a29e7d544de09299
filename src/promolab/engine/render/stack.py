"""Rendering a stack's orders: the final one, and each applied redeemable's running order.

The stacking engine gives them typed (`StackResult.final()`,
`StackResult.pricing_of(redeemable)`, both `OrderPricing`); they are written down as
any order is (`render.order.order_wire`): the discounts so far, and as
`applied_*` those of the step shown.
"""

from __future__ import annotations

from typing import Any

from ..stacking import StackedRedeemable, StackResult
from .order import order_wire

__all__ = ["redeemable_order", "stack_order"]


def stack_order(result: StackResult) -> dict[str, Any]:
    """The final order, wire shape (applied fields: the whole request's; the
    order as sent when an ALL request is not valid)."""
    return order_wire(result.lines_of(), result.final())


def redeemable_order(result: StackResult, redeemable: StackedRedeemable) -> dict[str, Any] | None:
    """The running order once `redeemable` applied (None unless APPLICABLE)."""
    pricing = result.pricing_of(redeemable)
    if pricing is None:
        return None
    return order_wire(result.lines_of(redeemable), pricing)
