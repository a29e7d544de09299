"""Evaluating bound tiers over a range of orders, chunk by chunk, into output arrays.

Outputs are flat arrays of N x T rows, order-major (row = order * T + tier),
so a tier's column for a chunk is a strided slice written in place: no
concatenation, no copy. The same function serves the pandas engine (one
thread) and the dask engine (one call per partition, on a thread or a worker).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...sim.pricing import Catalogue, PricingContext
from .batch import Chunk, OrderBatch
from .fallback import EngineOrders, engine_path
from .plan import BoundTier
from .vectorized import Overflow

__all__ = ["DEFAULT_CHUNK", "Outputs", "evaluate_range"]

#: Orders per chunk: big enough that numpy dominates, small enough to stay in cache.
DEFAULT_CHUNK = 8_192


@dataclass
class Outputs:
    n_orders: int
    n_tiers: int
    valid: np.ndarray
    discount: np.ndarray
    na: np.ndarray
    total: np.ndarray
    reason: np.ndarray

    @classmethod
    def allocate(cls, n_orders: int, n_tiers: int) -> Outputs:
        rows = n_orders * n_tiers
        return cls(
            n_orders, n_tiers,
            valid=np.zeros(rows, dtype=bool),
            discount=np.zeros(rows, dtype=np.int64),
            na=np.zeros(rows, dtype=bool),
            total=np.zeros(rows, dtype=np.int64),
            reason=np.zeros(rows, dtype=np.int8),
        )

    def column(self, t: int, a: int, b: int) -> slice:
        return slice(a * self.n_tiers + t, b * self.n_tiers, self.n_tiers)


def _evaluate_tier(
    bt: BoundTier, chunk: Chunk, engine: EngineOrders, catalogue: Catalogue, ctx: PricingContext,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
    n = chunk.n
    amount = chunk.amount
    if bt.campaign_code:
        return (np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64), None, amount,
                np.full(n, bt.campaign_code, dtype=np.int8))
    if bt.rules is not None:
        ok, reason = bt.rules.evaluate(chunk)
    else:
        ok, reason = np.ones(n, dtype=bool), np.zeros(n, dtype=np.int8)
    if bt.kernel is not None:
        try:
            raw, total, na = bt.kernel.evaluate(chunk, ok)
        except Overflow:
            pass
        else:
            if na is None:  # AMOUNT / PERCENT / FIXED: total = amount - discount
                discount = raw * ok
                return ok, discount, None, amount - discount, reason
            discount = raw * ok
            return ok, discount, na & ok, np.where(ok, total, amount), reason
    # engine path: every order (fallback) or the ones passing the masks (hybrid)
    candidates = np.flatnonzero(ok).tolist() if bt.rules is not None else range(n)
    valid = np.zeros(n, dtype=bool)
    discount = np.zeros(n, dtype=np.int64)
    na = np.zeros(n, dtype=bool)
    total = amount.copy()
    engine_path(bt.tier, engine, candidates, catalogue, ctx, valid, discount, na, total, reason)
    return valid, discount, na, total, reason


def evaluate_range(
    tiers: Sequence[BoundTier],
    batch: OrderBatch,
    a: int,
    b: int,
    out: Outputs,
    catalogue: Catalogue,
    ctx: PricingContext,
    *,
    offset: int = 0,
    chunk_size: int = DEFAULT_CHUNK,
    on_chunk: Callable[[int], None] | None = None,
) -> None:
    """Orders a..b-1 of `batch` into `out` rows (a - offset)..(b - offset)."""
    for c0 in range(a, b, chunk_size):
        c1 = min(b, c0 + chunk_size)
        chunk = Chunk(batch, c0, c1)
        engine = EngineOrders(chunk)
        for t, bt in enumerate(tiers):
            valid, discount, na, total, reason = _evaluate_tier(bt, chunk, engine, catalogue, ctx)
            col = out.column(t, c0 - offset, c1 - offset)
            out.valid[col] = valid
            out.discount[col] = discount
            if na is not None:
                out.na[col] = na
            out.total[col] = total
            out.reason[col] = reason
        if on_chunk is not None:
            on_chunk(c1 - c0)
