"""The per-request engine path: `price_normalized` on one order at a time.

Used for the orders of `hybrid` tiers that pass the rule masks, for every
order of `fallback` tiers, and for a chunk whose amounts are too large for
int64 products (`vectorized.Overflow`). Orders are normalised once per chunk
and shared by all the tiers that need them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ...engine import (
    Catalogue,
    CompiledTier,
    NormalizedOrder,
    normalize_order,
    price_normalized,
)
from .batch import Chunk
from .instants import OrderClock
from .rulemasks import REASON_CODE

__all__ = ["EngineOrders", "EnginePricing", "engine_path"]


class EngineOrders:
    """Normalised orders of one chunk, built on first use."""

    def __init__(self, chunk: Chunk) -> None:
        assert not chunk.is_subset  # its positions are not a..b of the batch
        self.chunk = chunk
        self._cache: dict[int, NormalizedOrder] = {}

    def get(self, i: int, catalogue: Catalogue) -> NormalizedOrder:
        found = self._cache.get(i)
        if found is None:
            batch = self.chunk.batch
            j = self.chunk.a + i
            customer = batch.customer_context(j)
            found = normalize_order(
                catalogue, {"items": batch.items(j)}, customer.id if customer is not None else None
            )
            self._cache[i] = found
        return found


@dataclass(frozen=True)
class EnginePricing:
    """What the engine path prices a chunk's orders with: the orders
    (normalised on first use, shared by every tier of the chunk), the
    catalogue, and each order's own context (`clock`: its instant and
    request metadata)."""

    orders: EngineOrders
    catalogue: Catalogue
    clock: OrderClock


def engine_path(
    tier: CompiledTier,
    pricing: EnginePricing,
    candidates: Iterable[int],
    valid: np.ndarray,
    discount: np.ndarray,
    na: np.ndarray,
    total: np.ndarray,
    reason: np.ndarray,
) -> None:
    """Price `candidates` (chunk positions) with the engine, writing the outputs in place,
    each order with its own context (`pricing.clock`: its instant and request metadata)."""
    orders, catalogue, clock = pricing.orders, pricing.catalogue, pricing.clock
    batch = orders.chunk.batch
    a = orders.chunk.a
    for i in candidates:
        order = orders.get(i, catalogue)
        outcome = price_normalized(catalogue, tier, order, batch.customer_context(a + i), clock.context(a + i))
        if outcome.valid:
            valid[i] = True
            reason[i] = 0
            assert outcome.total_amount is not None
            total[i] = outcome.total_amount  # the wire order is never built here
            if outcome.discount_amount is None:
                discount[i] = 0
                na[i] = True
            else:
                discount[i] = outcome.discount_amount
        else:
            valid[i] = False
            reason[i] = REASON_CODE.get(outcome.reason_key or "", REASON_CODE["order_rules_violated"])
