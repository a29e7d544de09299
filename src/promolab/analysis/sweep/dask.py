"""`engine="dask"`: the same kernels, partitioned by order.

- pandas input (or an `OrderBatch`): the batch is cut into order ranges. On
  the local threaded scheduler (the default) every partition writes its rows
  straight into the shared output arrays (disjoint strided slices; numpy
  releases the GIL in the kernels), so nothing is copied or pickled. With a
  `distributed.Client`, each partition ships its batch slice and the tiers'
  plain specs to a worker, which re-plans, evaluates and returns its arrays.
- dask DataFrame input: every partition must hold whole orders (e.g. written
  by order, or `ddf.shuffle(on="order_id")` keeping line order). Each
  partition is normalised, planned and evaluated where it lives; the driver
  concatenates the results (an order id seen in two partitions is an error).

Either way the result equals the pandas engine's, row for row.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from ...engine import Catalogue, CompiledTier, PricingContext, TierSpec, compile_tier
from ..orders import line_columns
from .batch import KeyTable, OrderBatch, build_batch, resolve_keys
from .bound import BoundSweep, bind_sweep
from .customers import CustomerTable
from .plan import TierPlan, plan_tiers
from .progress import progress_bar
from .runner import Outputs

__all__ = ["default_partitions", "sweep_dask_batch", "sweep_dask_frame"]


def default_partitions(n_orders: int, workers: int | None = None) -> int:
    """Four partitions per worker (at least one per 250,000 orders): a thread slowed
    by another process leaves the rest to the others instead of finishing last,
    while each partition's hand-off through the scheduler (a few ms on a VM)
    stays rare; per-partition tables are tiny."""
    workers = workers or os.cpu_count() or 1
    wanted = max(4 * workers, math.ceil(n_orders / 250_000))
    return max(1, min(wanted, max(1, n_orders // 1_000), 512))


@dataclass(frozen=True)
class WorkerPayload:
    """Plain data a worker needs to re-plan and evaluate (no closures): the
    catalogue, the tiers' specs, the sweep's instant and metadata, the chunk
    size, the customers (a dask DataFrame's partitions resolve their own) and
    whether orders are priced at their own `placed_at`."""

    catalogue: Catalogue
    specs: tuple[TierSpec, ...]
    now: datetime
    metadata: Mapping[str, Any]
    chunk_size: int
    customers: CustomerTable | None = None
    #: price dated orders at their own `placed_at` (no explicit `at`)
    dated: bool = False


def _compile(payload: WorkerPayload) -> list[CompiledTier]:
    return [compile_tier(s) for s in payload.specs]


def _run_batch(payload: WorkerPayload, batch: OrderBatch) -> tuple[Outputs, list[str]]:
    """Plan, bind and evaluate a batch on a worker, as `sweep` does on the driver."""
    tiers = _compile(payload)
    ctx = PricingContext(now=payload.now, redemption_metadata=payload.metadata)
    bound = bind_sweep(batch, tiers, payload.catalogue, ctx, dated=payload.dated)
    out = Outputs.allocate(batch.n_orders, len(tiers))
    bound.evaluate(0, batch.n_orders, out, chunk_size=payload.chunk_size)
    return out, [b.path for b in bound.tiers]


def _run_frame(payload: WorkerPayload, part: pd.DataFrame) -> tuple[pd.Index, Outputs, list[str], np.ndarray | None]:
    cols = line_columns(part)
    assert payload.customers is not None
    codes, contexts, labels = payload.customers.resolve(cols.order_ids, cols.customer, cols.customer_names)
    batch = build_batch(cols, payload.catalogue, codes, contexts, labels)
    out, paths = _run_batch(payload, batch)
    return batch.order_ids, out, paths, batch.placed_at if payload.dated else None


def _local_callbacks(on_done: Callable[[Any], None]) -> Any:
    from dask.callbacks import Callback

    class _Progress(Callback):
        def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
            on_done(key)

    return _Progress()


def sweep_dask_batch(
    bound: BoundSweep,
    out: Outputs,
    tiers: Sequence[CompiledTier],
    metadata: Mapping[str, Any],
    *,
    client: Any = None,
    npartitions: int | None = None,
    chunk_size: int,
    on_partition: Callable[[int], None] | None = None,
) -> None:
    """`bound`: the batch bound on the driver (threads share its tiers and
    its orders' contexts); on a `client`, workers re-bind their slice from
    `tiers` and `metadata`, at its orders' own instants when the driver's
    binding is dated."""
    batch, catalogue, ctx = bound.batch, bound.catalogue, bound.ctx
    dated = bound.clock.micros is not None
    n = batch.n_orders
    parts = npartitions or default_partitions(n)
    edges = np.linspace(0, n, max(1, min(parts, max(n, 1))) + 1).astype(np.int64)
    ranges = [(int(a), int(b)) for a, b in itertools.pairwise(edges) if b > a]
    notify = on_partition or (lambda k: None)
    if client is None:
        import dask.threaded

        dsk = {
            ("promolab-sweep", i): (functools.partial(bound.evaluate, a, b, out, chunk_size=chunk_size),)
            for i, (a, b) in enumerate(ranges)
        }
        sizes = {("promolab-sweep", i): b - a for i, (a, b) in enumerate(ranges)}
        with _local_callbacks(lambda key: notify(sizes.get(key, 0))):
            dask.threaded.get(dsk, list(dsk), num_workers=os.cpu_count())
        return
    from distributed import as_completed

    payload = WorkerPayload(catalogue, tuple(t.spec for t in tiers), ctx.now, dict(metadata), chunk_size, dated=dated)
    futures = []
    spans = {}
    for a, b in ranges:
        fut = client.submit(_run_batch, payload, batch.slice(a, b), pure=False)
        futures.append(fut)
        spans[fut.key] = (a, b)
    for fut in as_completed(futures):
        a, b = spans[fut.key]
        part, _ = fut.result()
        rows = slice(a * out.n_tiers, b * out.n_tiers)
        out.valid[rows] = part.valid
        out.discount[rows] = part.discount
        out.na[rows] = part.na
        out.total[rows] = part.total
        out.reason[rows] = part.reason
        notify(b - a)
        fut.release()


def _catalogue_keys(catalogue: Catalogue) -> KeyTable:
    pids: list[str | None] = [p for p in catalogue.products]
    sids: list[str | None] = [None] * len(pids)
    for sku in catalogue.skus.values():
        pids.append(sku.product_id)
        sids.append(sku.id)
    return resolve_keys(catalogue, pids, sids)


def sweep_dask_frame(
    frame: Any,
    tiers: Sequence[CompiledTier],
    payload: WorkerPayload,
    *,
    client: Any = None,
    progress: bool = True,
) -> tuple[pd.Index, Outputs, list[TierPlan], list[str], np.ndarray | None]:
    """`payload.dated`: price orders with a `placed_at` at their own instants;
    the last item returned is then their instants (UTC ns, None when not dated)."""
    catalogue = payload.catalogue
    from dask.base import compute
    from dask.delayed import delayed


    tasks = [delayed(_run_frame, pure=True)(payload, part) for part in frame.to_delayed()]
    results: list[tuple[pd.Index, Outputs, list[str], np.ndarray | None]] = []
    with progress_bar(len(tasks), progress, "sweep (dask partitions)", unit="partition") as bar:
        bar.unit = "partition"
        if client is None:
            names = {t.key for t in tasks}
            with _local_callbacks(lambda key: bar.update(1) if key in names else None):
                results = list(compute(*tasks, scheduler="threads"))
        else:
            from distributed import as_completed

            futures = client.compute(tasks)
            position = {f.key: i for i, f in enumerate(futures)}
            slots: list[Any] = [None] * len(futures)
            for fut in as_completed(futures):
                slots[position[fut.key]] = fut.result()
                bar.update(1)
            results = slots
    placed = [r[3] for r in results]
    is_dated = bool(results) and all(p is not None for p in placed)
    plans = plan_tiers(list(tiers), _catalogue_keys(catalogue), catalogue, dated=is_dated)
    order_ids = pd.Index([]) if not results else results[0][0].append([r[0] for r in results[1:]])
    if not order_ids.is_unique:
        dup = order_ids[order_ids.duplicated()][0]
        raise ValueError(f"order {dup!r} is split across partitions; partition the lines by order id")
    t = len(tiers)
    out = Outputs(
        len(order_ids), t,
        valid=np.concatenate([r[1].valid for r in results]) if results else np.zeros(0, bool),
        discount=np.concatenate([r[1].discount for r in results]) if results else np.zeros(0, np.int64),
        na=np.concatenate([r[1].na for r in results]) if results else np.zeros(0, bool),
        total=np.concatenate([r[1].total for r in results]) if results else np.zeros(0, np.int64),
        reason=np.concatenate([r[1].reason for r in results]) if results else np.zeros(0, np.int8),
    )
    rank = {"vectorized": 0, "hybrid": 1, "fallback": 2}
    paths = [p.path for p in plans]
    for r in results:  # a partition may have left the vectorized path (report the worst)
        paths = [max(p, q, key=rank.__getitem__) for p, q in zip(paths, r[2])]
    instants = np.concatenate([p for p in placed if p is not None]) if is_dated else None
    return order_ids, out, plans, paths, instants
