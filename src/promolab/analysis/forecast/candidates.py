"""What every order could get, before anything is spent: the sweep, reduced.

The candidate tiers (the tiers with budget rules as their variants,
`budget_leaves`) are bound to the orders once and evaluated a chunk at a
time (`sweep.bind_batch`), and each chunk is reduced at once to what the
walk needs, so a million orders never hold the full orders x tiers frame: the best *plain* tier and its discount, and for
each watched tier its discount and the budget verdicts it is valid under.
A tier counts for an order when it is valid and gives something (a
discount of 0 is nothing to redeem).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ...engine import CompiledTier, PricingContext
from ...sim import PricingView
from ..sweep import OrderBatch
from ..sweep.api import bind_batch, select_tiers
from ..sweep.batch import Chunk
from ..sweep.runner import Outputs
from .spending import WatchedTier

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
    #: (orders, plain tiers): each plain tier gives the order something (kept for the stack policy)
    plain_gives: np.ndarray | None = None
    #: the candidate position of each column of `plain_gives`
    plain_positions: np.ndarray | None = None


def candidate_tiers(view: PricingView, tiers: Any = None, *, sent: Sequence[object] | None = None,
                    best: bool = False) -> tuple[list[CompiledTier], dict[str, str], list[str]]:
    """The tiers a forecast redeems (as `sweep` selects them; free-item
    (UNIT) tiers too, which the redemption operation applies in a stack as
    alone), the ones left out with why, and the ids of all that could be.
    `sent`: the names of a fixed set, sent with every order whatever the
    others offer: only its tiers are candidates (none, for a set of codes).
    `best`: the "best" policy, which leaves out tiers with unit budgets (it
    compares discounts swept once, before the walk spends any unit)."""
    selected = select_tiers(view, tiers)
    excluded: dict[str, str] = {}
    if best:
        excluded.update({
            t.id: "unit budgets (product_*_quantity_limit) shrink with each redemption: forecast it with policy 'stack'"
            for t in selected if t.scope.budgeted
        })
    offered = [t for t in selected if t.id not in excluded]
    chosen = offered if sent is None else [t for t in offered if t.id in sent]
    if not chosen and sent is None:
        raise ValueError("no candidate tier to forecast with" + (f" ({', '.join(excluded)} left out)" if excluded else ""))
    return chosen, excluded, [t.id for t in offered]


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
    view: PricingView,
    batch: OrderBatch,
    tiers: Sequence[CompiledTier],
    watched: Sequence[WatchedTier],
    now: datetime,
    on_chunk: Callable[[int], None] | None = None,
    *,
    keep_plain: bool = False,
) -> Candidates:
    """Sweep `tiers` over the batch at each order's instant (`now`: the
    simulator's, for what has no instant of its own) and reduce."""
    swept, plain, variant_columns = _columns(tiers, watched)
    plain_positions = np.array([p for p in range(len(tiers)) if p not in {w.position for w in watched}], dtype=np.int32)
    n, w_count = batch.n_orders, len(watched)
    out = Candidates(
        plain_tier=np.full(n, -1, dtype=np.int32),
        plain_discount=np.zeros(n, dtype=np.int64),
        watched_discount=np.zeros((n, w_count), dtype=np.int64),
        watched_bits=np.zeros((n, w_count), dtype=np.int32),
        amount=np.zeros(n, dtype=np.int64),
        plain_gives=np.zeros((n, len(plain)), dtype=bool) if keep_plain else None,
        plain_positions=plain_positions,
    )
    if not swept:  # a fixed set of codes: only the order amounts are wanted
        for a in range(0, n, CHUNK):
            b = min(n, a + CHUNK)
            out.amount[a:b] = Chunk(batch, a, b).amount
            if on_chunk is not None:
                on_chunk(b - a)
        return out
    bound = bind_batch(view, batch, swept, PricingContext(now=now))
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        block = Outputs.allocate(b - a, len(swept))
        bound.evaluate(a, b, block, offset=a)
        shape = (b - a, len(swept))
        # tier by tier (rows: each tier's orders contiguous); a free item without a
        # price (NA: no monetary value) gives nothing to redeem
        discount = np.ascontiguousarray(block.discount.reshape(shape).T)
        gives = np.ascontiguousarray(block.valid.reshape(shape).T)
        gives &= discount > 0
        out.amount[a:b] = Chunk(batch, a, b).amount  # as sent: a UNIT tier's total holds the units it adds
        del block
        if out.plain_gives is not None:
            out.plain_gives[a:b] = gives[plain].T
        if plain:
            offered = np.where(gives[plain], discount[plain], -1)
            best = np.argmax(offered, axis=0)  # the first of the largest: the earlier tier wins a tie
            top = np.take_along_axis(offered, best[None, :], axis=0)[0]
            out.plain_tier[a:b] = np.where(top > 0, plain_positions[best], -1)
            out.plain_discount[a:b] = np.maximum(top, 0)
        for k, columns in enumerate(variant_columns):
            bits = np.zeros(b - a, dtype=np.int32)
            best_d = np.zeros(b - a, dtype=np.int64)
            for bit, column in enumerate(columns):
                bits |= gives[column].astype(np.int32) << bit
                # a budget changes whether the tier applies, never how much it gives
                np.maximum(best_d, np.where(gives[column], discount[column], 0), out=best_d)
            out.watched_bits[a:b, k] = bits
            out.watched_discount[a:b, k] = best_d
        if on_chunk is not None:
            on_chunk(b - a)
    return out
