"""`sweep`: many orders x many tiers, vectorized where possible, exact everywhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

import pandas as pd

from ...engine import CompiledTier, PricingContext, TierSpec, compile_tier
from ...keywords import check_keywords
from ...sim import PricingView, parse_instant, pricing_view
from ..figures import with_currency
from ..orders import line_columns
from .batch import OrderBatch, build_batch
from .bound import BoundSweep, bind_sweep
from .customers import CustomerTable, customer_table
from .plan import TierPlan
from .progress import progress_bar
from .result import SweepResult, build_frame
from .runner import DEFAULT_CHUNK, Outputs

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["BoundSweep", "SweepOptions", "bind_batch", "prepare_orders", "select_tiers", "sweep"]


def select_tiers(view: PricingView, tiers: Any = None) -> list[CompiledTier]:
    """The simulator's active tiers in response order, or the ones named.

    `tiers` may mix tier ids with `TierSpec` / `CompiledTier` objects (what-if
    tiers that are not in the simulator).
    """
    if tiers is None:
        return list(view.tiers)
    if isinstance(tiers, str | TierSpec | CompiledTier):
        tiers = [tiers]
    by_id = {t.id: t for t in view.tiers}
    out: list[CompiledTier] = []
    for item in tiers:
        if isinstance(item, CompiledTier):
            out.append(item)
        elif isinstance(item, TierSpec):
            out.append(compile_tier(item))
        elif item in by_id:
            out.append(by_id[item])
        else:
            raise ValueError(f"unknown or inactive tier {item!r}; active: {', '.join(by_id)}")
    ids = [t.id for t in out]
    if len(set(ids)) != len(ids):
        raise ValueError("tiers must be distinct")
    return out


def prepare_orders(sim: Simulator, orders: pd.DataFrame, customers: Any = None) -> OrderBatch:
    """A line-items frame as an `OrderBatch` (reuse it across sweeps of the same orders)."""
    view = pricing_view(sim)
    return _prepare(view, orders, customer_table(sim, view, customers))


def _prepare(view: PricingView, orders: pd.DataFrame, table: CustomerTable) -> OrderBatch:
    cols = line_columns(orders)
    codes, contexts, labels = table.resolve(cols.order_ids, cols.customer, cols.customer_names)
    return build_batch(cols, view.catalogue, codes, contexts, labels)


def bind_batch(view: PricingView, batch: OrderBatch, chosen: Sequence[CompiledTier], ctx: PricingContext,
               *, dated: bool = True) -> BoundSweep:
    """Plan and bind `chosen` for `batch` with the view's catalogue: at each
    order's `placed_at` when `dated` and the batch has one, else at `ctx.now`."""
    return bind_sweep(batch, chosen, view.catalogue, ctx, dated=dated)


def _paths_frame(plans: Sequence[TierPlan], paths: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame({
        "tier_id": pd.array([p.tier_id for p in plans], dtype="string"),
        "campaign_id": pd.array([p.campaign_id for p in plans], dtype="string"),
        "kind": pd.array([p.kind for p in plans], dtype="string"),
        "effect": pd.array([p.effect for p in plans], dtype="string"),
        "path": pd.Categorical(list(paths), categories=["vectorized", "hybrid", "fallback"]),
        "reason": pd.array([p.reason for p in plans], dtype="string"),
    })


class SweepOptions(TypedDict, total=False):
    """The keywords of `sweep(sim, orders, tiers, **options)` (every one optional).

    A TypedDict rather than eight more parameters: callers write the same
    keywords as before, mypy checks each at every call, and `sweep` keeps to
    three parameters. A keyword not here is a TypeError naming the nearest one.
    """

    #: "pandas" (default: one thread) or "dask".
    engine: str
    #: See `sweep.customers` (default: the simulator's customers).
    customers: Any
    #: A progress bar on stderr (default True).
    progress: bool
    #: A `distributed.Client` for engine="dask" (default: the local threaded scheduler).
    client: Any
    #: Partitions of an in-memory batch on dask (default: by the batch's size).
    npartitions: int | None
    #: The pricing instant of every order (default: each order's `placed_at`, else the clock).
    at: str | datetime | None
    #: The request's top-level metadata (default: none).
    metadata: Mapping[str, Any] | None
    #: Orders evaluated at a time (default `DEFAULT_CHUNK`).
    chunk_size: int


def sweep(sim: Simulator, orders: Any, tiers: Any = None, **options: Unpack[SweepOptions]) -> SweepResult:
    """Evaluate every order against every tier, to the cent.

    `orders`: a line-items DataFrame (see `promolab.analysis.orders`), an
    `OrderBatch` from `prepare_orders`, or (engine="dask") a dask DataFrame
    whose partitions each hold whole orders. `tiers`: ids / TierSpec /
    CompiledTier (default: every active tier, in response order).
    The options (`SweepOptions`): `customers`: see `sweep.customers`. `at`: the pricing instant of every
    order. Without it, orders with a `placed_at` column are each priced at
    their own instant (a *dated* sweep: `SweepResult.dated`), others at the
    simulator's clock. `metadata`: the request's top-level metadata (seen by
    `redemption.metadata` rules), under each order's own (`channel`,
    `metadata.<key>` columns: the order's keys win). `engine`: "pandas" (one thread) or "dask"
    (partitions by order on the local threaded scheduler, or on `client`, a
    `distributed.Client`, in `npartitions` for an in-memory batch). `progress`: a bar on stderr.
    `chunk_size`: orders evaluated at a time.

    Returns a `SweepResult`; `.frame` has one row per (order, tier) and is
    identical whatever the engine.
    """
    check_keywords(options, SweepOptions.__optional_keys__, where="sweep() ")
    engine = options.get("engine", "pandas")
    customers = options.get("customers")
    progress = options.get("progress", True)
    client = options.get("client")
    npartitions = options.get("npartitions")
    at = options.get("at")
    metadata = options.get("metadata")
    chunk_size = options.get("chunk_size", DEFAULT_CHUNK)
    if engine not in ("pandas", "dask"):
        raise ValueError("engine must be 'pandas' or 'dask'")
    view = pricing_view(sim)
    chosen = select_tiers(view, tiers)
    now = parse_instant(at) if at is not None else sim.now
    meta = dict(metadata or {})
    ctx = PricingContext(now=now, redemption_metadata=meta)
    table = customer_table(sim, view, customers)
    tier_ids = tuple(t.id for t in chosen)
    campaign_ids = tuple(t.spec.campaign.id for t in chosen)

    if engine == "dask" and not isinstance(orders, pd.DataFrame | OrderBatch):
        from .dask import WorkerPayload, sweep_dask_frame

        payload = WorkerPayload(view.catalogue, tuple(t.spec for t in chosen), now, meta, chunk_size, table,
                                dated=at is None)
        order_ids, out, plans, paths, placed = sweep_dask_frame(orders, chosen, payload, client=client,
                                                                progress=progress)
    else:
        batch = orders if isinstance(orders, OrderBatch) else _prepare(view, orders, table)
        placed = batch.placed_at if at is None else None
        bound_sweep = bind_batch(view, batch, chosen, ctx, dated=at is None)
        plans, paths = bound_sweep.plans, [b.path for b in bound_sweep.tiers]
        # codes filled by the chunks, except on a distributed client (partitions ship their own arrays)
        out = Outputs.allocate(batch.n_orders, len(chosen), codes=client is None or engine == "pandas")
        with progress_bar(batch.n_orders, progress, f"sweep ({engine})") as bar:
            if engine == "pandas":
                bound_sweep.evaluate(0, batch.n_orders, out, chunk_size=chunk_size, on_chunk=bar.update)
            else:
                from .dask import sweep_dask_batch

                sweep_dask_batch(bound_sweep, out, chosen, meta, client=client, npartitions=npartitions,
                                 chunk_size=chunk_size, on_partition=bar.update)
        order_ids = batch.order_ids
    frame = with_currency(build_frame(order_ids, tier_ids, out), sim.currency)
    return SweepResult(
        frame=frame,
        paths=_paths_frame(plans, paths),
        at=now,
        engine=engine,
        n_orders=len(order_ids),
        tier_ids=tier_ids,
        campaign_ids=campaign_ids,
        dated=placed is not None,
        placed_at=_placed_series(order_ids, placed) if placed is not None else None,
        currency=sim.currency,
    )


def _placed_series(order_ids: pd.Index, placed: Any) -> pd.Series:
    """Each order's pricing instant in a dated sweep (UTC, microseconds: what the engine saw)."""
    micros = (placed // 1000).astype("datetime64[us]")
    return pd.Series(pd.DatetimeIndex(micros).tz_localize("UTC"), index=order_ids, name="placed_at")
