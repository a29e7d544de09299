"""UNIT discounts with one unit (ADD_MISSING_ITEMS / ADD_NEW_ITEMS), column-wise.

The arithmetic of `engine/unit_discounts.py` for a single `N of P`: the first
line of P (a SKU unit: a line of that SKU; a product unit: a line of that
product without a SKU) is topped up (MISSING: to N units; NEW: by N units),
or a new line of N units is appended, priced from the catalogue; N units are
discounted, never more than the line holds: `discount = min(price * dq,
line amount)`. Added priced units raise the order amount. A unit without a
price (the free-shipping product) discounts nothing monetary: the tier is
valid with no `discount_amount` (NA) and the total is unchanged.

ADD_MANY_ITEMS (units that see each other's lines) is left to the engine.
"""

from __future__ import annotations

import numpy as np

from ...engine import Catalogue, CompiledTier
from .batch import Chunk, KeyTable
from .rulemasks import NotVectorizable

__all__ = ["UnitKernel"]


class UnitKernel:
    def __init__(self, tier: CompiledTier, keys: KeyTable, catalogue: Catalogue) -> None:
        if len(tier.units) != 1:
            raise NotVectorizable(f"UNIT {tier.effect}: several units see each other's lines")
        unit = tier.units[0]
        self.n_units = unit.unit_off
        self.new_items = unit.effect == "ADD_NEW_ITEMS"
        product, sku = catalogue.unit_target(unit.unit_type)
        price = sku.price if sku is not None and sku.price is not None else product.price
        self.new_price = -1 if price is None else int(price)
        self.hit = np.array([
            (line.sku_id == sku.id) if sku is not None
            else (line.product_id == product.id and line.sku_id is None)
            for line in keys.lines
        ], dtype=bool)

    def evaluate(self, chunk: Chunk, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(discount, total, not monetary) per order."""
        n = chunk.n
        price = np.full(n, self.new_price, dtype=np.int64)
        quantity = np.zeros(n, dtype=np.int64)
        amount = np.zeros(n, dtype=np.int64)
        pos = np.flatnonzero(self.hit[chunk.key])
        if pos.size:
            owner = chunk.order[pos]
            first = np.empty(pos.size, dtype=bool)
            first[0] = True
            np.not_equal(owner[1:], owner[:-1], out=first[1:])
            pos, owner = pos[first], owner[first]
            price[owner] = chunk.price[pos]
            quantity[owner] = chunk.quantity[pos]
            amount[owner] = chunk.line_amount[pos]
        big = self.n_units
        add = np.full(n, big, dtype=np.int64) if self.new_items else np.maximum(big - quantity, 0)
        discounted = np.minimum(big, quantity + add)
        priced = price >= 0
        added = np.where(priced, price * add, 0)
        discount = np.where(priced, np.minimum(price * discounted, amount + added), 0)
        total = chunk.amount + added - discount
        return discount, total, ~(priced & (discounted > 0))
