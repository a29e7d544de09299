"""UNIT discounts with one unit (ADD_MISSING_ITEMS / ADD_NEW_ITEMS), column-wise.

The arithmetic of `engine/unit_discounts.py` for a single `N of P`: the first
line of P (a SKU unit: a line of that SKU; a product unit: a line of that
product without a SKU) is topped up (MISSING: to N units; NEW: by N units),
or a new line of N units is appended, priced from the catalogue; N units are
discounted, never more than the line holds: `discount = min(price * dq,
line amount)`. Added priced units raise the order amount. A unit without a
price (the free-shipping product) discounts nothing monetary: the tier is
valid with no `discount_amount` (NA) and the total is unchanged.

ADD_MANY_ITEMS (units that see each other's lines): `ManyUnitKernel`, the
stack's column-wise units (`unit_arrays`) on the order as sent.
"""

from __future__ import annotations

import numpy as np

from ...engine import Catalogue, CompiledTier
from .batch import Chunk, KeyTable
from .rulemasks import NotVectorizable
from .unit_arrays import UnitArrays, UnitPlan, UnitTargets, unit_lines

__all__ = ["ManyUnitKernel", "UnitKernel"]


class UnitKernel:
    def __init__(self, tier: CompiledTier, keys: KeyTable, catalogue: Catalogue) -> None:
        if len(tier.units) != 1:
            raise NotVectorizable(f"UNIT {tier.effect}: several units (`ManyUnitKernel`)")
        unit = tier.units[0]
        self.n_units = unit.unit_off
        self.new_items = unit.effect == "ADD_NEW_ITEMS"
        self.hit, self.new_price = unit_lines(unit.unit_type, keys, catalogue)
        self.anywhere = bool(self.hit.any())

    def evaluate(self, chunk: Chunk, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(discount, total, not monetary) per order.

        An order without a line of the unit gets N new units at the catalogue
        price: the same answer for all of them, computed once; only the orders
        holding such a line (usually a few) are computed one by one."""
        added, discount, na = self._unit(np.array([self.new_price]), np.zeros(1, np.int64), np.zeros(1, np.int64))
        out = np.full(chunk.n, discount[0], dtype=np.int64)
        total = chunk.amount + (added[0] - discount[0])
        not_monetary = np.full(chunk.n, na[0], dtype=bool)
        # no key of the batch is the unit (free shipping: no order holds the shipping line): nothing to look up
        pos = np.flatnonzero(self.hit.take(chunk.key)) if self.anywhere else np.zeros(0, dtype=np.intp)
        if pos.size:
            owner = chunk.order.take(pos)
            first = np.empty(pos.size, dtype=bool)
            first[0] = True
            np.not_equal(owner[1:], owner[:-1], out=first[1:])
            pos, owner = pos[first], owner[first]
            price, _, amount = chunk.lines_at(pos)
            added, discount, na = self._unit(price, chunk.quantity.take(pos), amount)
            out[owner] = discount
            total[owner] += added - discount
            not_monetary[owner] = na
        return out, total, not_monetary

    def _unit(self, price: np.ndarray, quantity: np.ndarray, amount: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(amount added, discount, not monetary) for orders whose first line of
        the unit has this price, quantity and amount (none: the new line's price, 0, 0)."""
        big = self.n_units
        add = np.full(price.size, big, dtype=np.int64) if self.new_items else np.maximum(big - quantity, 0)
        discounted = np.minimum(big, quantity + add)
        priced = price >= 0
        added = np.where(priced, price * add, 0)
        discount = np.where(priced, np.minimum(price * discounted, amount + added), 0)
        return added, discount, ~(priced & (discounted > 0))


class ManyUnitKernel:
    """A UNIT tier with several units (ADD_MANY_ITEMS), alone on each order as
    sent: `unit_arrays`' step with nothing discounted before it (what
    `apply_units` does for one tier: each unit sees the lines the earlier
    ones left). Its lines' discounts stay within their amounts, so the
    order's never passes the amount plus the units added."""

    def __init__(self, tier: CompiledTier, keys: KeyTable, catalogue: Catalogue) -> None:
        self.targets = UnitTargets(keys, catalogue)
        self.plan = UnitPlan.of(tier, self.targets)

    def evaluate(self, chunk: Chunk, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(discount, total, not monetary) per order."""
        step = UnitArrays(chunk, self.targets).step(
            self.plan, np.zeros(chunk.key.size, dtype=np.int64), chunk.amount, once=False)
        return step.taken, chunk.amount + step.added - step.taken, ~step.monetary
