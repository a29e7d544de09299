"""The engine's typed answer for an order: `OrderPricing` (the order) and `LinePricing` (a line).

What one tier, or a stack's redeemables so far, did to an order's amounts:
cents off at order level and per line, the amounts a UNIT effect changed,
and which of them the step shown applied. Computing ends here: every
clamp and trim is already done (a line discount never above its line, the
item discounts never above the order amount, trimmed from the last line
backwards: `trim_from_last`), so the renderer (`engine.render`) only writes
the figures down, and a reader of amounts (analysis, tests) never needs a
wire dict.

Why the lines are tuples of numbers and `lines()` builds `LinePricing` on
read: a priced order is made per tier per distinct cart and per applied
redeemable of every stacked request, and an object per line would cost
more than the rest of the step (a frozen dataclass sets each field through
object.__setattr__); the renderer reads the tuples in one loop. `lines(order)` gives the same figures one typed
object per line for everyone else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .lines import NormalizedOrder
    from .unit_discounts import UnitLine

__all__ = ["LinePricing", "OrderPricing", "trim_from_last"]


def trim_from_last(discounts: list[int], excess: int) -> None:
    """Take `excess` cents back from the last discounted lines first (the
    rule when item discounts would exceed the amount they are taken of)."""
    for i in range(len(discounts) - 1, -1, -1):
        if excess <= 0:
            return
        step = min(discounts[i], excess)
        discounts[i] -= step
        excess -= step


@dataclass(frozen=True, slots=True)
class LinePricing:
    """One line of a priced order (a line a UNIT effect appended included)."""

    #: Its place in the order's lines; None for a line a UNIT effect appended.
    index: int | None
    #: The line's amount (with the units a UNIT effect added); None: no price.
    amount: int | None
    #: Cents off the line (so far, in a stack); None: a UNIT line without a
    #: price, which shows no discount fields at all.
    discount: int | None
    #: Cents off the line by the step shown (a stack's redeemable; for one
    #: tier, `discount`).
    applied: int
    #: UNIT bookkeeping of a line a UNIT effect touched (None otherwise).
    quantity: int | None = None
    discount_quantity: int | None = None
    initial_quantity: int | None = None
    initial_amount: int | None = None


# Not frozen on purpose (read-only by convention: nothing changes the figures
# once made; the renderer fills its memo): one is built per tier per distinct
# cart and per applied redeemable of every stacked request, and a frozen
# dataclass's __init__, which sets each field through object.__setattr__,
# costs several times a plain one (measured: ~8x for these ten fields).
@dataclass(slots=True)
class OrderPricing:
    """An order with a tier (or a stack's redeemables so far) applied."""

    #: The order amount (a UNIT effect's added units included).
    amount: int
    #: The amount as sent, when a UNIT effect added priced units (the wire
    #: order then shows it); else None.
    initial_amount: int | None
    #: Cents off at order level, and off the items, so far.
    order_discount: int
    items_discount: int
    #: Cents off each line, in the order's line order, appended UNIT lines
    #: last (None: no item discount on any line). An entry is None for a
    #: UNIT line without a price.
    line_discounts: tuple[int | None, ...] | None
    #: The order-level and per-line cents of the step shown (a stack's
    #: redeemable, or its whole request); `applied_lines` None: the single
    #: tier's case, every discount is the step's own. An entry is None (or 0)
    #: for a line the step did not touch.
    applied_order: int
    applied_lines: tuple[int | None, ...] | None
    #: The state of each line a UNIT effect touched, one per line and
    #: appended line (None: untouched); None when no UNIT effect applied.
    units: tuple[UnitLine | None, ...] | None = None
    #: Whether the discount has a monetary value (False: a UNIT discount of
    #: price-less units only), i.e. whether a tier shows `discount_amount`.
    monetary: bool = True
    #: The renderer's memo (`engine.render.order`): a pricing is shared by the
    #: orders with the same lines, and so is the wire template built from it
    #: (from its second read on; `wire_reads` counts up to that). Never part
    #: of the answer.
    wire_template: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    wire_reads: int = field(default=0, repr=False, compare=False)

    @property
    def total_discount(self) -> int:
        return self.order_discount + self.items_discount

    @property
    def total(self) -> int:
        """The order's total_amount."""
        return self.amount - self.order_discount - self.items_discount

    @property
    def applied_items(self) -> int:
        applied = self.applied_lines
        return self.items_discount if applied is None else sum(a or 0 for a in applied)

    @property
    def discount(self) -> int | None:
        """The tier's discount_amount: the total discount, None when it has
        no monetary value."""
        return self.total_discount if self.monetary else None

    def lines(self, order: NormalizedOrder) -> tuple[LinePricing, ...]:
        """One typed result per line of `order` (the order this prices) and
        per appended UNIT line (see the module on why built on read)."""
        discounts = self.line_discounts
        units = self.units
        applied = self.applied_lines
        out = []
        for k in range(len(units) if units is not None else len(order.lines)):
            discount = discounts[k] if discounts is not None else 0
            step = (applied[k] if applied is not None else discount) or 0
            state = units[k] if units is not None else None
            if state is None:
                out.append(LinePricing(k, order.lines[k].amount, discount, step))
            else:
                out.append(LinePricing(
                    state.index, state.amount, discount, step, state.quantity, state.discount_quantity,
                    state.initial_quantity, state.initial_amount,
                ))  # fmt: skip
        return tuple(out)
