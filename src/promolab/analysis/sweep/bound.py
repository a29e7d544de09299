"""A batch bound to its tiers: what a sweep evaluates, on the driver or on a worker.

Binding is planning each tier (`plan_tiers`: which path, and why), binding
its masks and kernels to the batch's keys (`bind_tiers`), and fixing each
order's context (`OrderClock`: its instant in a dated sweep, its request
metadata). It is done the same way by `sweep`, by the forecast (which
reduces chunk by chunk) and by a dask worker, so it is written once here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...engine import Catalogue, CompiledTier, PricingContext
from .batch import OrderBatch
from .instants import Instants, OrderClock, merged_metadata
from .plan import BoundTier, TierPlan, bind_tiers, plan_tiers
from .runner import DEFAULT_CHUNK, Outputs, evaluate_range

__all__ = ["BoundSweep", "bind_sweep"]


@dataclass
class BoundSweep:
    """A batch bound to its tiers (plans, masks, kernels, each order's instant
    and metadata): any range of its orders can be evaluated into `Outputs`.
    What `sweep` runs, and what a caller reducing chunk by chunk (the
    forecast) runs without building the whole frame."""

    plans: list[TierPlan]
    tiers: list[BoundTier]
    batch: OrderBatch
    catalogue: Catalogue
    ctx: PricingContext
    clock: OrderClock

    def evaluate(self, a: int, b: int, out: Outputs, *, offset: int = 0, chunk_size: int = DEFAULT_CHUNK,
                 on_chunk: Callable[[int], None] | None = None) -> None:
        """Orders a..b-1 into `out` rows (a - offset)..(b - offset) (zeroed)."""
        evaluate_range(self, a, b, out, offset=offset, chunk_size=chunk_size, on_chunk=on_chunk)


def bind_sweep(batch: OrderBatch, chosen: Sequence[CompiledTier], catalogue: Catalogue, ctx: PricingContext,
               *, dated: bool = True) -> BoundSweep:
    """Plan and bind `chosen` for `batch`: at each order's `placed_at` when
    `dated` and the batch has one, else at `ctx.now`."""
    meta = dict(ctx.redemption_metadata)
    placed = batch.placed_at if dated else None
    instants = Instants.of(placed) if placed is not None else None
    sets = merged_metadata(meta, batch.metadata_sets) if batch.metadata_code is not None else None
    clock = OrderClock(ctx, instants, batch.metadata_code, sets or ())
    plans = plan_tiers(chosen, batch.keys, catalogue, dated=instants is not None)
    bound = bind_tiers(plans, chosen, batch, catalogue, clock)
    return BoundSweep(plans, bound, batch, catalogue, ctx, clock)
