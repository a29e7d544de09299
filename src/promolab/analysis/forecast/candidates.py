"""What every order could get, before anything is spent: the sweep, reduced.

The candidate tiers are swept over the orders a chunk at a time (the tiers
with budget rules as their variants, `budget_leaves`), and each chunk is
reduced at once to what the walk needs, so a million orders never hold the
full orders x tiers frame: the best *plain* tier and its discount, and for
each watched tier its discount and the budget verdicts it is valid under.
A tier counts for an order when it is valid and gives something (a
discount of 0 is nothing to redeem).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine import CompiledTier
from ...sim.promotions import PricingView
from ..sweep import OrderBatch, sweep
from ..sweep.api import select_tiers
from .spending import WatchedTier

if TYPE_CHECKING:
    from ...sim.simulator import Simulator

__all__ = ["CHUNK", "Candidates", "candidate_tiers", "candidates"]

#: Orders swept at a time: the chunk's frame (orders x columns) stays small.
CHUNK = 65_536


@dataclass
class Candidates:
    plain_tier: np.ndarray  # candidate position, -1 none
    plain_discount: np.ndarray
    watched_discount: np.ndarray  # (orders, watched)
    watched_bits: np.ndarray  # (orders, watched)
    amount: np.ndarray  # order amount before discounts


def candidate_tiers(view: PricingView, tiers: Any = None) -> tuple[list[CompiledTier], dict[str, str]]:
    """The tiers a forecast redeems (as `sweep` selects them), and the ones left
    out with why: free-item (UNIT) tiers, which the redemption operation does
    not apply in a stack."""
    chosen = select_tiers(view, tiers)
    excluded = {t.id: "free items (UNIT) are not applied in a stack, so not redeemed" for t in chosen if t.kind == "UNIT"}
    chosen = [t for t in chosen if t.kind != "UNIT"]
    if not chosen:
        raise ValueError("no candidate tier to forecast with" + (f" ({', '.join(excluded)} left out)" if excluded else ""))
    return chosen, excluded


def _columns(tiers: Sequence[CompiledTier], watched: Sequence[WatchedTier]) -> tuple[list[CompiledTier], list[int], list[list[int]]]:
    """The swept tiers; the column of each plain candidate; the columns of each
    watched tier's variants (bit order)."""
    swept: list[CompiledTier] = []
    plain: list[int] = []
    by_position = {w.position: w for w in watched}
    variant_columns: list[list[int]] = [[] for _ in watched]
    index = {w.position: k for k, w in enumerate(watched)}
    for position, tier in enumerate(tiers):
        spec = by_position.get(position)
        if spec is None:
            plain.append(len(swept))
            swept.append(tier)
            continue
        variants = spec.budget.variants if spec.budget is not None else (tier,)
        for variant in variants:
            variant_columns[index[position]].append(len(swept))
            swept.append(variant)
    return swept, plain, variant_columns


def candidates(
    sim: Simulator,
    batch: OrderBatch,
    tiers: Sequence[CompiledTier],
    watched: Sequence[WatchedTier],
    customers: Any = None,
    on_chunk: Callable[[int], None] | None = None,
) -> Candidates:
    swept, plain, variant_columns = _columns(tiers, watched)
    plain_positions = np.array([p for p in range(len(tiers)) if p not in {w.position for w in watched}], dtype=np.int32)
    n, w_count = batch.n_orders, len(watched)
    out = Candidates(
        plain_tier=np.full(n, -1, dtype=np.int32),
        plain_discount=np.zeros(n, dtype=np.int64),
        watched_discount=np.zeros((n, w_count), dtype=np.int64),
        watched_bits=np.zeros((n, w_count), dtype=np.int32),
        amount=np.zeros(n, dtype=np.int64),
    )
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        frame = sweep(sim, batch.slice(a, b), swept, customers=customers, progress=False).frame
        shape = (b - a, len(swept))
        discount = frame["discount_amount"].to_numpy(dtype=np.int64, na_value=0).reshape(shape)
        gives = frame["valid"].to_numpy().reshape(shape) & (discount > 0)
        out.amount[a:b] = frame["total_amount"].to_numpy(dtype=np.int64).reshape(shape)[:, 0] + discount[:, 0]
        if plain:
            offered = np.where(gives[:, plain], discount[:, plain], -1)
            best = np.argmax(offered, axis=1)  # the first of the largest: the earlier tier wins a tie
            top = offered[np.arange(b - a), best]
            out.plain_tier[a:b] = np.where(top > 0, plain_positions[best], -1)
            out.plain_discount[a:b] = np.maximum(top, 0)
        for k, columns in enumerate(variant_columns):
            bits = np.zeros(b - a, dtype=np.int32)
            for bit, column in enumerate(columns):
                bits |= gives[:, column].astype(np.int32) << bit
            out.watched_bits[a:b, k] = bits
            # a budget changes whether the tier applies, never how much it gives
            out.watched_discount[a:b, k] = np.max(np.where(gives[:, columns], discount[:, columns], 0), axis=1)
        if on_chunk is not None:
            on_chunk(b - a)
    return out
