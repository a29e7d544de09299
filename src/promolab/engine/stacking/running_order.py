"""The order as the discounts so far left it, and what one more discount does to it.

Each redeemable of a stack sees the order its predecessors left (semantics of
the service's stacked responses, worked examples in docs/stacking.md):

- its rules read `order.amount` as the running total before it (what the
  service calls "total amount before discounts" at validation time) and
  `order.initial_amount` as sent; line rules read the lines as sent;
- an order-level percentage is taken of the running total
  (DISCOUNTED_AMOUNT) or of the order amount as sent (INITIAL_AMOUNT);
- an item-level discount is taken of each line's running subtotal (its
  amount less the item discounts before it) or of the line as sent (a FIXED
  one sets the price: the line ends at it, whatever came before); order-
  level discounts are not spread over lines, so they never lower a line's
  base (decision: docs/decisions.md § Stacking);
- under the products mode ONCE a line an earlier redeemable discounted is out
  of reach of later item-level discounts;
- nothing goes below zero: a line's discount stops at its subtotal, a step's
  discount at the running total.

One redeemable alone therefore gets exactly what the single-tier engine
gives it (tests/engine/test_stacking.py checks it against `price_normalized`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..compiled_tier import CompiledTier
from ..lines import Line, NormalizedOrder
from ..order_pricing import OrderPricing, trim_from_last

__all__ = ["RunningOrder", "Step", "running_pricing"]


@dataclass(frozen=True, slots=True)
class Step:
    """What one redeemable took off: at order level, and per line of the order."""

    order_discount: int = 0
    #: Cents off each line of the order, by line index (None: no item discount).
    line_discounts: tuple[int, ...] | None = None

    @property
    def items(self) -> int:
        return sum(self.line_discounts) if self.line_discounts is not None else 0

    @property
    def total(self) -> int:
        return self.order_discount + self.items


class RunningOrder:
    """An order with the discounts applied so far."""

    __slots__ = ("line_discounts", "order", "order_discount")

    def __init__(self, order: NormalizedOrder) -> None:
        self.order = order
        #: cumulative item discount of each line
        self.line_discounts = [0] * len(order.lines)
        #: cumulative order-level discount
        self.order_discount = 0

    @property
    def total(self) -> int:
        """The running `total_amount`."""
        return self.order.amount - self.order_discount - sum(self.line_discounts)

    def rules_view(self) -> NormalizedOrder:
        """The order as the next redeemable's rules read it: the amount is the
        running total, everything else as sent."""
        order = self.order
        total = self.total
        if total == order.amount:
            return order
        return _order_like(order, order.lines, total)

    def price(self, tier: CompiledTier, initial_mode: bool, once: bool) -> Step:
        """What `tier`'s AMOUNT, PERCENT or FIXED discount takes off now."""
        benefit = tier.amount_discount
        if benefit is None:
            raise ValueError(f"{tier.id}: UNIT discounts are not applied in stacks")
        left = self.total
        order = self.order
        if benefit.order_level:
            base = order.amount if initial_mode else left
            return Step(order_discount=min(benefit.order_discount(base), left))
        done = self.line_discounts
        reachable = [k for k in range(len(order.lines)) if not (once and done[k])]
        # A FIXED discount sets a price: taken of the line as sent, less what
        # earlier discounts already took, it ends the line at that price.
        fixed = benefit.kind == "FIXED" and not initial_mode
        lines = [self._line_base(order.lines[k], done[k], initial_mode or fixed) for k in reachable]
        raw = benefit.line_discounts(_order_like(order, tuple(lines), left), tier.scope)
        out = [0] * len(order.lines)
        for value, k in zip(raw, reachable):
            if fixed:
                value = max(0, value - done[k])
            subtotal = order.lines[k].amount_or_zero - done[k]
            out[k] = min(value, subtotal)
        trim_from_last(out, sum(out) - left)
        return Step(line_discounts=tuple(out))

    def gift(self, credits: int) -> Step:
        """A gift card's credits: an order-level discount, at most the running total."""
        return Step(order_discount=min(credits, self.total))

    def apply(self, step: Step) -> None:
        self.order_discount += step.order_discount
        if step.line_discounts is not None:
            done = self.line_discounts
            for k, value in enumerate(step.line_discounts):
                done[k] += value

    def pricing(self, step: Step | None = None) -> OrderPricing:
        """The running order as it stands, typed (`engine.render.order_wire`
        renders it): `running_pricing` of its discounts so far."""
        return running_pricing(self.order, tuple(self.line_discounts), self.order_discount, step)

    @staticmethod
    def _line_base(line: Line, done: int, initial_mode: bool) -> Line:
        """The line a discount is taken of: as sent, or less its discounts so far."""
        if initial_mode or not done or line.amount is None:
            return line
        return line.with_amount(line.amount - done)


def _order_like(order: NormalizedOrder, lines: tuple[Line, ...], amount: int) -> NormalizedOrder:
    """`order` with other lines or amount (fresh memos: its results differ)."""
    return NormalizedOrder(
        lines, amount, order.initial_amount, order.items_amount, order.total_quantity,
        order.metadata, order.customer_id, order.referrer_id,
    )  # fmt: skip


def running_pricing(
    order: NormalizedOrder, line_discounts: tuple[int, ...], order_discount: int, step: Step | None
) -> OrderPricing:
    """`order` with `line_discounts` and `order_discount` off so far, and as
    applied those of `step` (the service's `applied_*` fields; on an item,
    only where the step discounted it); without a step, the request's final
    order (applied: everything the request applied). With one step, the
    single tier's figures exactly."""
    if step is None:
        applied_order, applied_lines = order_discount, line_discounts
    else:
        applied_order = step.order_discount
        applied_lines = step.line_discounts if step.line_discounts is not None else (0,) * len(line_discounts)
    return OrderPricing(
        order.amount, None, order_discount, sum(line_discounts), line_discounts, applied_order, applied_lines
    )
