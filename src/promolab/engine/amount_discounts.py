"""AMOUNT, PERCENT and FIXED discounts: how many cents each line / the order gets.

Order-level effects (APPLY_TO_ORDER) work on the order amount (as sent, or the
sum of item amounts) and ignore `applicable_to`:
- AMOUNT: `min(amount_off, amount)`;
- PERCENT: `percent_off`% of the amount, rounded half up, at most
  `amount_limit`, at most the amount;
- FIXED: the order total becomes `fixed_amount`: `max(0, amount - fixed_amount)`.

Item-level effects reach the lines in scope (see `scope.py`). For each line we
first settle the discountable units `u` (quantity, limited by the entries'
`quantity_limit` and `aggregated_quantity_limit`) and their amount `e`
(the line amount when every unit counts, else `price * u`), then:
- AMOUNT APPLY_TO_ITEMS: `min(amount_off, e)` per line;
- AMOUNT APPLY_TO_ITEMS_BY_QUANTITY: `min(amount_off * u, e)`;
- AMOUNT APPLY_TO_ITEMS_PROPORTIONALLY: `min(amount_off, sum e)` split in
  proportion to `e`; ..._BY_QUANTITY: split in proportion to `u`
  (rounding: see `money.split_proportionally`);
- PERCENT APPLY_TO_ITEMS: `percent_off`% of `e`, rounded half up per line, at
  most `amount_limit` per line;
- FIXED APPLY_TO_ITEMS: the unit price becomes the entry's `price` (else the
  discount's `fixed_amount`): `max(0, price - new_price) * u`.
Then the caps, lowest discount wins: each entry's `amount_limit` (per line),
the line amount, each entry's `aggregated_amount_limit` and the discount's
`aggregated_amount_limit` (budgets consumed in line order).

Unit budgets (`product_*_quantity_limit`, `unit_budgets.py`) trim the
discountable units further, with what is left of them across redemptions
(`budgeted_discounts`).

Formulas (`*_formula`) are not evaluated: the fallback value is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .lines import Line, NormalizedOrder
from .money import parse_percent, percent_of, percent_of_each, split_proportionally
from .scope import LineScope, Scope, ScopeEntry
from .unit_budgets import product_key

__all__ = ["ORDER_EFFECTS", "AmountBenefit", "compile_amount_discount"]

ORDER_EFFECTS = frozenset({"APPLY_TO_ORDER"})


def _cents(discount: Mapping[str, Any], key: str, required: bool) -> int | None:
    value = discount.get(key)
    if value is None:
        if required:
            raise ValueError(f"discount needs '{key}'")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"discount {key} must be a non-negative integer, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class AmountBenefit:
    """A compiled AMOUNT / PERCENT / FIXED discount."""

    kind: str
    effect: str
    amount_off: int | None
    percent: Fraction | None
    fixed_amount: int | None
    amount_limit: int | None
    aggregated_amount_limit: int | None

    @property
    def order_level(self) -> bool:
        return self.effect in ORDER_EFFECTS

    # -- order level -------------------------------------------------------------------
    def order_discount(self, amount: int) -> int:
        if self.kind == "AMOUNT":
            assert self.amount_off is not None
            value = self.amount_off
        elif self.kind == "PERCENT":
            assert self.percent is not None
            value = percent_of(amount, self.percent)
            if self.amount_limit is not None:
                value = min(value, self.amount_limit)
        else:
            assert self.fixed_amount is not None
            value = amount - self.fixed_amount
        return max(0, min(value, amount))

    def alone(self, order: NormalizedOrder, scope: Scope) -> int:
        """Cents this discount takes off `order` as sent, by itself: what a
        single-tier settlement takes (`settle`), and what an
        `order.total_amount` rule of a redeemable priced alone subtracts."""
        if self.order_level:
            return self.order_discount(order.amount)
        return min(sum(self.line_discounts(order, scope)), order.amount)

    # -- item level ----------------------------------------------------------------------
    def line_discounts(self, order: NormalizedOrder, scope: Scope) -> list[int]:
        lines = order.lines
        # What the scope reaches, and each reached line's discountable units,
        # base and cap, depend on the lines and the scope only: computed once
        # for all the tiers that share the scope (and the orders that share
        # the lines, `NormalizedOrder.shared`).
        found = order.shared.get(scope.token)
        if found is None:
            reached = scope.reached(lines)
            budgeted = any(line_scope.amount_budgets for _, _, line_scope in reached)
            found = order.shared[scope.token] = (reached, *_discountable(reached), budgeted)
        reached, units, bases, caps, budgeted = found
        if not reached:
            return [0] * len(lines)
        return self._capped(len(lines), reached, self._raw(reached, units, bases, caps), caps, budgeted)

    def budgeted_discounts(
        self, order: NormalizedOrder, scope: Scope, left: Mapping[str, int]
    ) -> tuple[list[int], list[int]]:
        """`line_discounts` of a scope with unit budgets, `left` units still
        discountable per product (`unit_allowance`): the discounts, and per
        line the units a unit budget counts (0 for a line none bears on; see
        `unit_budgets.spent_units`). Nothing is memoized: what is left
        belongs to this request."""
        lines = order.lines
        reached = scope.reached(lines)
        units, bases, caps = _discountable(reached, dict(left))
        budgeted = any(line_scope.amount_budgets for _, _, line_scope in reached)
        out = self._capped(len(lines), reached, self._raw(reached, units, bases, caps), caps, budgeted)
        counted = [0] * len(lines)
        for (i, _, line_scope), u in zip(reached, units):
            if line_scope.unit_budgets:
                counted[i] = u
        return out, counted

    def _capped(
        self,
        n: int,
        reached: Sequence[tuple[int, Line, LineScope]],
        raw: list[int],
        caps: list[int],
        budgeted: bool,
    ) -> list[int]:
        """Each of the `n` lines' discount: the reached lines' `raw` held
        within their caps and the shared amount budgets."""
        out = [0] * n
        if not budgeted and self.aggregated_amount_limit is None:
            # No shared budget: each line is just held within [0, its cap].
            for (i, _, _), value, cap in zip(reached, raw, caps):
                out[i] = cap if value > cap else value if value > 0 else 0  # noqa: FURB136 - hot loop
            return out
        # Caps, lowest discount wins: the line cap, then the budgets shared by
        # lines (each entry's aggregated_amount_limit, the discount's own),
        # consumed in line order. (Comparisons rather than min()/max() calls:
        # this loop runs per line per tier per request.)
        budgets: dict[ScopeEntry, int] = {}
        total_left = self.aggregated_amount_limit
        for (i, _, line_scope), value, cap in zip(reached, raw, caps):
            if value > cap:  # noqa: PLR1730 - a compare is ~10x cheaper than min()/max() here
                value = cap
            if value < 0:  # noqa: PLR1730 - a compare is ~10x cheaper than min()/max() here
                value = 0
            for e, budget in line_scope.amount_budgets:
                left = budgets.setdefault(e, budget)
                if left < value:  # noqa: PLR1730 - a compare is ~10x cheaper than min()/max() here
                    value = left
            if total_left is not None:
                if total_left < value:  # noqa: PLR1730 - a compare is ~10x cheaper than min()/max() here
                    value = total_left
                total_left -= value
            for e, _ in line_scope.amount_budgets:
                budgets[e] -= value
            out[i] = value
        return out

    def _raw(
        self,
        reached: Sequence[tuple[int, Line, LineScope]],
        units: list[int],
        bases: list[int],
        caps: list[int],
    ) -> list[int]:
        """Each reached line's discount before the caps and budgets."""
        effect, kind = self.effect, self.kind
        if kind == "AMOUNT":
            assert self.amount_off is not None
            off = self.amount_off
            if effect == "APPLY_TO_ITEMS":
                return [off] * len(reached)
            if effect == "APPLY_TO_ITEMS_BY_QUANTITY":
                return [off * u for u in units]
            if effect == "APPLY_TO_ITEMS_PROPORTIONALLY":
                return split_proportionally(off, bases, caps)
            return split_proportionally(off, units, caps)  # ..._PROPORTIONALLY_BY_QUANTITY
        if kind == "PERCENT":
            assert self.percent is not None
            raw = percent_of_each(bases, self.percent)
            if self.amount_limit is not None:
                raw = [min(r, self.amount_limit) for r in raw]
            return raw
        raw = []  # FIXED: the unit price becomes the entries' price, else fixed_amount
        for (_, line, line_scope), u in zip(reached, units):
            new_price = (
                line_scope.new_price if line_scope.new_price is not None else self.fixed_amount
            )
            if line.price is None or new_price is None:
                raw.append(0)
            else:
                raw.append(max(0, line.price - new_price) * u)
        return raw


def _discountable(
    reached: Sequence[tuple[int, Line, LineScope]],
    units_left: dict[str, int] | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """Per reached line: discountable units (quantity caps applied), their
    amount (the base of the discount) and the line cap (base, amount limits).

    `units_left`: units still discountable per product under the unit budgets
    (consumed here, in line order, by the lines whose entries carry one)."""
    n = len(reached)
    units = [0] * n  # filled by index: cheaper than appends in this per-line loop
    bases = [0] * n
    caps = [0] * n
    budgets: dict[ScopeEntry, int] = {}
    for k, (_, line, line_scope) in enumerate(reached):
        quantity = line.quantity
        u = quantity
        limit = line_scope.quantity_limit
        if limit is not None and limit < u:
            u = limit
        if line_scope.quantity_budgets:
            for e, budget in line_scope.quantity_budgets:
                left = budgets.setdefault(e, budget)
                if left < u:  # noqa: PLR1730 - a compare is ~10x cheaper than min()/max() here
                    u = left
            for e, _ in line_scope.quantity_budgets:
                budgets[e] -= u
        if units_left is not None and line_scope.unit_budgets:
            key = product_key(line)
            if key is not None and key in units_left:
                if units_left[key] < u:  # noqa: PLR1730 - a compare is ~10x cheaper than min()/max() here
                    u = units_left[key]
                units_left[key] -= u
        amount = line.amount if line.amount is not None else 0
        if u == quantity:
            base = amount
        elif line.price is None:
            base = 0
        else:
            base = line.price * u
            if base > amount:  # noqa: PLR1730 - a compare is ~10x cheaper than min()/max() here
                base = amount
        limit = line_scope.amount_limit
        units[k] = u
        bases[k] = base
        caps[k] = limit if limit is not None and limit < base else base
    return units, bases, caps


def compile_amount_discount(kind: str, effect: str, discount: Mapping[str, Any]) -> AmountBenefit:
    """Check the fields a type/effect needs; raises ValueError."""
    amount_off = percent = fixed_amount = amount_limit = aggregated = None
    if kind == "AMOUNT":
        amount_off = _cents(discount, "amount_off", required=True)
    elif kind == "PERCENT":
        if discount.get("percent_off") is None:
            raise ValueError("discount needs 'percent_off'")
        percent = parse_percent(discount["percent_off"])
        if not 0 <= percent <= 100:
            raise ValueError(f"percent_off must be within 0..100, got {discount['percent_off']}")
        amount_limit = _cents(discount, "amount_limit", required=False)
    else:
        fixed_amount = _cents(discount, "fixed_amount", required=effect == "APPLY_TO_ORDER")
    if effect != "APPLY_TO_ORDER":
        aggregated = _cents(discount, "aggregated_amount_limit", required=False)
    return AmountBenefit(kind, effect, amount_off, percent, fixed_amount, amount_limit, aggregated)
