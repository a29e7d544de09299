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
  discount at the running total;
- a UNIT (free item) discount adds its units to the lines (`running_units`):
  from then on `current` is the order with them, its amount raised by the
  priced units added and the free units taken off as item discounts, so the
  running total does not move; later discounts and rules read those lines,
  an INITIAL_AMOUNT percentage still the amount as sent.

One redeemable alone therefore gets exactly what the single-tier engine
gives it (tests/engine/test_stacking.py checks it against `price_normalized`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..catalogue import Catalogue
from ..compiled_tier import CompiledTier
from ..lines import Line, NormalizedOrder
from ..order_pricing import OrderPricing, trim_from_last
from ..unit_budgets import spent_units
from ..unit_discounts import UnitLine
from .running_units import UnitStep, unit_step

__all__ = ["BudgetedStep", "RunningOrder", "RunningState", "Step", "running_pricing"]


@dataclass(frozen=True, slots=True)
class Step:
    """What one redeemable took off: at order level, and per line of the order."""

    order_discount: int = 0
    #: Cents off each line of the order, by line index (None: no item discount).
    line_discounts: tuple[int, ...] | None = None
    #: What a UNIT discount did to the lines (None: not a UNIT discount, or
    #: one that changed nothing).
    units: UnitStep | None = None

    @property
    def spent_units(self) -> tuple[tuple[str, int], ...]:
        """(product, units) of unit budgets this step spent (`BudgetedStep`)."""
        return ()

    @property
    def items(self) -> int:
        return sum(self.line_discounts) if self.line_discounts is not None else 0

    @property
    def total(self) -> int:
        return self.order_discount + self.items

    @property
    def has_effect(self) -> bool:
        """Whether the step changed the order: it took something off, or it
        added free units (a free item without a price, free shipping, is
        what the customer was promised though it takes nothing off)."""
        return self.total > 0 or (self.units is not None and self.units.added_units > 0)


@dataclass(frozen=True, slots=True)
class BudgetedStep(Step):
    """The step of a tier with unit budgets: also the units of each budgeted
    product it discounted, what its redemption spends (`unit_budgets`). A
    subclass, so that every other step (several per stack, in the hot loop)
    is built without the field."""

    budget_units: tuple[tuple[str, int], ...] = ()

    @property
    def spent_units(self) -> tuple[tuple[str, int], ...]:
        return self.budget_units


@dataclass(frozen=True, slots=True)
class RunningState:
    """A running order's state once a step applied, from which its wire
    order is built when read (`RunningOrder.restore`)."""

    current: NormalizedOrder
    unit_lines: Mapping[int, UnitLine]
    unit_priced: bool
    line_discounts: tuple[int, ...]
    order_discount: int


class RunningOrder:
    """An order with the discounts applied so far."""

    __slots__ = ("current", "line_discounts", "order", "order_discount", "unit_lines", "unit_priced")

    def __init__(self, order: NormalizedOrder) -> None:
        #: the order as sent
        self.order = order
        #: the order with the units UNIT discounts added (`order` until one does)
        self.current = order
        #: cumulative item discount of each line of `current`
        self.line_discounts = [0] * len(order.lines)
        #: cumulative order-level discount
        self.order_discount = 0
        #: the lines UNIT discounts touched, by index, with their unit fields
        self.unit_lines: Mapping[int, UnitLine] = {}
        #: whether a UNIT discount added priced units (the wire order then
        #: shows the amount as sent as `initial_amount`)
        self.unit_priced = False

    @classmethod
    def restore(cls, order: NormalizedOrder, state: RunningState) -> RunningOrder:
        """The running order of `order` in `state` (a step's snapshot)."""
        running = cls(order)
        running.current = state.current
        running.unit_lines = state.unit_lines
        running.unit_priced = state.unit_priced
        running.line_discounts = list(state.line_discounts)
        running.order_discount = state.order_discount
        return running

    def snapshot(self) -> RunningState:
        return RunningState(
            self.current, self.unit_lines, self.unit_priced, tuple(self.line_discounts), self.order_discount
        )

    @property
    def total(self) -> int:
        """The running `total_amount`."""
        return self.current.amount - self.order_discount - sum(self.line_discounts)

    @property
    def discount(self) -> int:
        """Cents off the order so far (`total_discount_amount`)."""
        return self.current.amount - self.total

    def rules_view(self) -> NormalizedOrder:
        """The order as the next redeemable's rules read it: the amount is the
        running total, the lines as UNIT discounts left them (amounts before
        discounts), everything else as sent."""
        order = self.current
        total = self.total
        if total == order.amount:
            return order
        return _order_like(order, order.lines, total)

    def price(
        self, tier: CompiledTier, initial_mode: bool, once: bool, units_left: Mapping[str, int] | None = None
    ) -> Step:
        """What `tier`'s AMOUNT, PERCENT or FIXED discount takes off now;
        `units_left`: what is left of its unit budgets (`unit_allowance`)."""
        benefit = tier.amount_discount
        if benefit is None:
            raise ValueError(f"{tier.id}: a UNIT discount is applied with `units`")
        left = self.total
        order = self.current
        if benefit.order_level:
            base = self.order.amount if initial_mode else left
            return Step(order_discount=min(benefit.order_discount(base), left))
        done = self.line_discounts
        reachable = [k for k in range(len(order.lines)) if not (once and done[k])]
        # A FIXED discount sets a price: taken of the line as sent, less what
        # earlier discounts already took, it ends the line at that price.
        fixed = benefit.kind == "FIXED" and not initial_mode
        lines = [self._line_base(order.lines[k], done[k], initial_mode or fixed) for k in reachable]
        priced_on = _order_like(order, tuple(lines), left)
        counted = None
        if units_left is None:
            raw = benefit.line_discounts(priced_on, tier.scope)
        else:
            raw, counted = benefit.budgeted_discounts(priced_on, tier.scope, units_left)
        out = [0] * len(order.lines)
        for value, k in zip(raw, reachable):
            if fixed:
                value = max(0, value - done[k])
            subtotal = order.lines[k].amount_or_zero - done[k]
            out[k] = min(value, subtotal)
        trim_from_last(out, sum(out) - left)
        if counted is None:
            return Step(line_discounts=tuple(out))
        shown = [out[k] for k in reachable]
        return BudgetedStep(line_discounts=tuple(out), budget_units=spent_units(lines, counted, shown))

    def units(self, tier: CompiledTier, catalogue: Catalogue, once: bool) -> Step:
        """What `tier`'s UNIT discount adds and takes off now (`running_units`)."""
        done = self.line_discounts
        found = unit_step(tier, catalogue, self.current, self.unit_lines, done, once, self.unit_priced)
        if found is None:
            return Step(line_discounts=(0,) * len(done))
        units, raw = found
        out = list(raw)
        trim_from_last(out, sum(out) - (self.total + units.added_amount))
        return Step(line_discounts=tuple(out), units=units)

    def gift(self, credits: int) -> Step:
        """A gift card's credits: an order-level discount, at most the running total."""
        return Step(order_discount=min(credits, self.total))

    def apply(self, step: Step) -> None:
        self.order_discount += step.order_discount
        units = step.units
        if units is not None:
            self.current = units.order
            self.unit_lines = units.lines
            self.unit_priced = units.priced
            self.line_discounts.extend([0] * (len(units.order.lines) - len(self.line_discounts)))
        if step.line_discounts is not None:
            done = self.line_discounts
            for k, value in enumerate(step.line_discounts):
                done[k] += value

    def pricing(self, step: Step | None = None) -> OrderPricing:
        """The running order as it stands, typed (`engine.render.order_wire`
        renders it with `current`): after `step` (applied: that step's), or
        without one the request's final order (applied: everything the
        request applied)."""
        return running_pricing(self, step)

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


def running_pricing(running: RunningOrder, step: Step | None) -> OrderPricing:
    """`running.current` with the discounts so far off, and as applied those
    of `step` (the service's `applied_*` fields; on an item, only where the
    step discounted it, or added its units: a line a UNIT discount touched
    shows `applied_discount_amount` then, 0 included); without a step, the
    request's final order (applied: everything the request applied). With
    one step, the single tier's figures exactly."""
    line_discounts = tuple(running.line_discounts)
    unit_lines = running.unit_lines
    applied_lines: tuple[int | None, ...]
    if step is None:
        applied_order, applied_lines = running.order_discount, line_discounts
    else:
        applied_order = step.order_discount
        shown = step.line_discounts if step.line_discounts is not None else (0,) * len(line_discounts)
        if unit_lines:
            touched = step.units.touched if step.units is not None else frozenset()
            applied_lines = tuple(a if a or k in touched else None for k, a in enumerate(shown))
        else:
            applied_lines = shown
        if len(applied_lines) < len(line_discounts):  # lines a later UNIT discount appended
            applied_lines = (*applied_lines, *(None,) * (len(line_discounts) - len(applied_lines)))
    units = tuple(unit_lines.get(k) for k in range(len(line_discounts))) if unit_lines else None
    return OrderPricing(
        running.current.amount, running.order.amount if running.unit_priced else None, running.order_discount,
        sum(line_discounts), line_discounts, applied_order, applied_lines, units,
    )
