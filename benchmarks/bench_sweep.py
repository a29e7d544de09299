"""Sweep benchmark: 1,000,000 orders x 10 tiers, figures measured in ONE run (never asserts).

    .venv/bin/python benchmarks/bench_sweep.py [--orders 1000000] [--engine-sample 2000] [--rounds 5]
    .venv/bin/python benchmarks/bench_sweep.py --quick        # 100,000 orders, 3 rounds

Variants, interleaved round by round (a noisy moment hits all of them), each
reported as the best and the median round, in wall time AND in CPU time of the
process (the cross-check when other processes share the machine):

- `one core, prepared`: `sweep(sim, prepare_orders(...))`, the process pinned
  to one CPU (numpy's elementwise kernels are single-threaded; the BLAS/OpenMP
  pools are set to one thread before numpy loads, and the sweep uses neither);
- `one core, from the frame`: the same from the line-items DataFrame
  (preparation included);
- `one core, own lines`: prepared orders whose lines are all treated as
  distinct (as when most lines carry their own price): every chunk evaluates
  its own lines instead of the batch's distinct ones;
- `dask threaded`: `engine="dask"` on all CPUs (2 here) vs `one core, prepared`,
  with, per dask worker thread, its CPU time, its time waiting for a CPU (the
  kernel's run queue: other processes) and its time asleep (the GIL, locks):
  on a loaded machine the run-queue time says why the speed-up is low;
- `2 processes, half each`: two processes (spawned once), each pinned to its
  own CPU, sweep half of the prepared orders at the same moment: the wall
  time of the slower one. No GIL, no shared memory: the 2-CPU ceiling of this
  machine for this work, against which the dask figure is read (on a VM whose
  two vCPUs share a physical core or its caches, that ceiling is well below 2);
- the per-request engine on a sample of the same orders (normalize_order once
  per order + price_normalized per tier, as `validate` does), and the ratio.

Then peak memory per order (tracemalloc; numpy reports its buffers to it):
the sweep from prepared orders (output frame included), the preparation, and
what the prepared orders keep. The load average is printed before and after.

Targets (issue #7): >= 10 M evaluations/s on one core, >= 200x the engine,
dask threaded on 2 cores >= 1.5x one core, <= 300 bytes per order.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: no hidden thread pool in the one-core figures

import argparse
import dataclasses
import gc
import multiprocessing
import statistics
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from promolab import Simulator
from promolab.analysis import OrderBatch, prepare_orders, sweep
from promolab.engine import PricingContext, normalize_order, price_normalized
from promolab.sim.promotions import pricing_view

N_PRODUCTS = 40


def scenario() -> dict[str, Any]:
    """A shop of 40 products (3 collections) and one campaign of 10 tiers:
    order- and item-level AMOUNT / PERCENT / FIXED, each with an amount rule."""
    products = [{"id": f"prod_{i:02d}", "source_id": f"p{i:02d}", "name": f"Product {i}", "price": 300 + 137 * i}
                for i in range(N_PRODUCTS)]
    collections = [
        {"id": "pc_a", "name": "A", "products": [f"prod_{i:02d}" for i in range(15)]},
        {"id": "pc_b", "name": "B", "products": [f"prod_{i:02d}" for i in range(15, 30)]},
        {"id": "pc_c", "name": "C", "products": [f"prod_{i:02d}" for i in range(30, 40)]},
    ]

    def tier(i: int, discount: dict[str, Any], rule: dict[str, Any], applicable_to: Any = None) -> dict[str, Any]:
        out = {"id": f"promo_b{i}", "name": f"bench tier {i}", "hierarchy": i + 1, "discount": discount,
               "validation_rules": {"rules": {"1": rule, "logic": "1"}}}
        if applicable_to:
            out["applicable_to"] = applicable_to
        return out

    def amount_over(cents: int) -> dict[str, Any]:
        return {"name": "order.amount", "conditions": {"$more_than": [cents]}}

    tiers = [
        tier(0, {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ORDER"}, amount_over(5000)),
        tier(1, {"type": "PERCENT", "percent_off": 12.5, "effect": "APPLY_TO_ORDER", "amount_limit": 4000},
             amount_over(3000)),
        tier(2, {"type": "FIXED", "fixed_amount": 15000, "effect": "APPLY_TO_ORDER"}, amount_over(15000)),
        tier(3, {"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS"},
             {"name": "order.amount", "conditions": {"$more_than_or_equal": [2000]}},
             {"included": [{"object": "products_collection", "id": "pc_a"}]}),
        tier(4, {"type": "AMOUNT", "amount_off": 150, "effect": "APPLY_TO_ITEMS_BY_QUANTITY",
                 "aggregated_amount_limit": 1500},
             amount_over(4000), {"included": [{"object": "products_collection", "id": "pc_b"}]}),
        tier(5, {"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ITEMS", "amount_limit": 1200},
             amount_over(2500), {"included": [{"object": "products_collection", "id": "pc_a"},
                                              {"object": "products_collection", "id": "pc_c"}]}),
        tier(6, {"type": "PERCENT", "percent_off": 20, "effect": "APPLY_TO_ITEMS", "aggregated_amount_limit": 3000},
             {"name": "order.amount", "conditions": {"$less_than": [30000]}},
             {"included": [{"object": "products_collection", "id": "pc_b"}]}),
        tier(7, {"type": "FIXED", "fixed_amount": 900, "effect": "APPLY_TO_ITEMS"}, amount_over(1000),
             {"included": [{"object": "products_collection", "id": "pc_c", "price": 900}]}),
        tier(8, {"type": "AMOUNT", "amount_off": 2000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"}, amount_over(8000),
             {"included": [{"object": "products_collection", "id": "pc_c"}]}),
        tier(9, {"type": "PERCENT", "percent_off": 7, "effect": "APPLY_TO_ORDER"},
             {"name": "order.amount", "conditions": {"$more_than": [1000], "$less_than": [50000]}}),
    ]
    return {
        "version": 1,
        "project": {"id": "proj_bench", "name": "Bench"},
        "clock": {"start": "2026-03-06T10:00:00Z"},
        "catalogue": {"products": products, "collections": collections},
        "campaigns": [{"id": "camp_bench", "name": "Bench", "type": "PROMOTION", "tiers": tiers}],
    }


def orders_frame(n: int, seed: int = 7) -> pd.DataFrame:
    """n orders of 1-6 lines (quantities 1-4), sorted by order; product ids categorical."""
    rng = np.random.default_rng(seed)
    lines = rng.integers(1, 7, size=n)
    order_id = np.repeat(np.arange(n, dtype=np.int64), lines)
    codes = rng.integers(0, N_PRODUCTS, size=order_id.size).astype(np.int8)
    categories = pd.Index([f"prod_{i:02d}" for i in range(N_PRODUCTS)], dtype="string")
    return pd.DataFrame({
        "order_id": order_id,
        "product_id": pd.Categorical.from_codes(codes, categories=categories),
        "quantity": rng.integers(1, 5, size=order_id.size),
    })


# -- measuring ---------------------------------------------------------------------------------
def _thread_sched() -> dict[int, tuple[int, int]]:
    """Per thread of this process: (ns on a CPU, ns waiting in the run queue) (Linux schedstat)."""
    out = {}
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/schedstat", encoding="ascii") as handle:
                on_cpu, queued, _ = handle.read().split()
            out[int(tid)] = (int(on_cpu), int(queued))
        except (OSError, ValueError):
            continue
    return out


@dataclasses.dataclass
class Variant:
    name: str
    run: Callable[[], Any]
    pinned: bool
    #: `run` times itself in other processes and returns (wall, cpu)
    reports: bool = False
    wall: list[float] = dataclasses.field(default_factory=list)
    cpu: list[float] = dataclasses.field(default_factory=list)
    #: per round: [(cpu, run queue, asleep)] of the threads other than the main one
    workers: list[list[tuple[float, float, float]]] = dataclasses.field(default_factory=list)

    def measure(self, cpus: list[int]) -> None:
        if self.pinned and cpus:
            os.sched_setaffinity(0, {cpus[0]})
        gc.collect()
        main = threading.get_native_id()
        before = _thread_sched()
        wall, cpu = time.perf_counter(), time.process_time()
        result = self.run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if self.reports:
            wall, cpu = result
        after = _thread_sched()
        if self.pinned and cpus:
            os.sched_setaffinity(0, set(cpus))
        del result
        self.wall.append(wall)
        self.cpu.append(cpu)
        rows = []
        for tid, (on_cpu, queued) in after.items():
            c0, q0 = before.get(tid, (0, 0))
            busy, waiting = (on_cpu - c0) / 1e9, (queued - q0) / 1e9
            if tid != main and busy > 0.001:
                rows.append((busy, waiting, max(wall - busy - waiting, 0.0)))
        self.workers.append(rows)

    def best(self) -> tuple[float, float]:
        return min(self.wall), min(self.cpu)

    def line(self, evaluations: int) -> str:
        wall, cpu = self.best()
        return (f"{self.name:<26} wall {wall:6.3f} s (median {statistics.median(self.wall):6.3f})  "
                f"cpu {cpu:6.3f} s  {evaluations / wall / 1e6:6.2f} M evaluations/s wall, "
                f"{evaluations / cpu / 1e6:6.2f} M/s cpu")


def engine_sample(sim: Simulator, frame: pd.DataFrame, sample: int) -> tuple[Callable[[], int], int]:
    """The per-request engine on the first `sample` orders: (run, evaluations per run)."""
    from promolab.analysis import orders_from_frame

    view = pricing_view(sim)
    ids = frame["order_id"].to_numpy()
    cut = int(np.searchsorted(ids, sample))
    requests = list(orders_from_frame(frame.iloc[:cut]).values())
    ctx = PricingContext(now=sim.now)

    def run() -> int:
        evaluations = 0
        for request in requests:
            order = normalize_order(view.catalogue, request["order"])
            for tier in view.tiers:
                price_normalized(view.catalogue, tier, order, None, ctx)
                evaluations += 1
        return evaluations

    return run, len(requests) * len(view.tiers)


def _half_worker(conn: Any, cpu: int | None, n: int, part: int) -> None:
    """A process sweeping one half of the benchmark's prepared orders on one CPU, on demand."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    sim = Simulator.from_scenario(scenario())
    batch = prepare_orders(sim, orders_frame(n))
    half = batch.slice(0, n // 2) if part == 0 else batch.slice(n // 2, n)
    sweep(sim, half, progress=False)
    conn.send("ready")
    while conn.recv():
        gc.collect()
        wall, cpu_time = time.perf_counter(), time.process_time()
        sweep(sim, half, progress=False)
        conn.send((time.perf_counter() - wall, time.process_time() - cpu_time))


class TwoProcesses:
    """Two spawned processes, one per CPU, each sweeping half the orders when told to."""

    def __init__(self, n: int, cpus: list[int]) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pipes = []
        self.procs = []
        for part in range(2):
            parent, child = ctx.Pipe()
            cpu = cpus[part] if len(cpus) > part else None
            proc = ctx.Process(target=_half_worker, args=(child, cpu, n, part), daemon=True)
            proc.start()
            self.pipes.append(parent)
            self.procs.append(proc)
        for pipe in self.pipes:
            pipe.recv()

    def run(self) -> tuple[float, float]:
        """(wall of the slower half, CPU time of both) for one simultaneous sweep."""
        for pipe in self.pipes:
            pipe.send(True)
        results = [pipe.recv() for pipe in self.pipes]
        return max(r[0] for r in results), sum(r[1] for r in results)

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(False)
        for proc in self.procs:
            proc.join(timeout=10)


def own_lines(batch: OrderBatch) -> OrderBatch:
    """The batch without its distinct-line codes: chunks evaluate their own lines."""
    return dataclasses.replace(batch, line_code=None, distinct=None, grid=None)


def peak_bytes(fn: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    result = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del result
    return peak


def batch_bytes(batch: OrderBatch) -> int:
    arrays = [batch.starts, batch.key, batch.quantity, batch.price, batch.customer, batch.line_code]
    if batch.grid is not None:
        arrays += [batch.grid.grid, batch.grid.extra_order, batch.grid.extra_code]
    return sum(a.nbytes for a in arrays if a is not None)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min)"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 orders, 3 rounds")
    parser.add_argument("--engine-sample", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n = 100_000 if args.quick else args.orders
    rounds = 3 if args.quick else args.rounds
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []

    sim = Simulator.from_scenario(scenario())
    tiers = len(pricing_view(sim).tiers)
    frame = orders_frame(n)
    evals = n * tiers
    print(f"promolab sweep benchmark: {n:,} orders ({len(frame):,} lines) x {tiers} tiers "
          f"= {evals:,} evaluations; CPUs available: {len(cpus) or '?'}; {rounds} rounds")
    print(f"before: {load()}")

    batch = prepare_orders(sim, frame)
    plain = own_lines(batch)
    run_engine, engine_evals = engine_sample(sim, frame, args.engine_sample)
    pair = TwoProcesses(n, cpus)
    variants = [
        Variant("one core, prepared", lambda: sweep(sim, batch, progress=False), pinned=True),
        Variant("one core, from the frame", lambda: sweep(sim, frame, progress=False), pinned=True),
        Variant("one core, own lines", lambda: sweep(sim, plain, progress=False), pinned=True),
        Variant(f"dask threaded, {len(cpus) or os.cpu_count()} CPUs",
                lambda: sweep(sim, batch, engine="dask", progress=False), pinned=False),
        Variant("2 processes, half each", pair.run, pinned=False, reports=True),
        Variant("engine (sample)", run_engine, pinned=True),
    ]
    for variant in variants[:4]:  # warm-up (imports, dask's pool)
        variant.run()
    for _ in range(rounds):
        for variant in variants:
            variant.measure(cpus)
    pair.close()
    single, e2e, _, dask_v, pair_v, engine_v = variants

    print("\n-- throughput (best round; median in brackets) --")
    for variant in variants[:5]:
        print(variant.line(evals))
    eng_wall, eng_cpu = engine_v.best()
    print(f"{engine_v.name:<26} wall {eng_wall:6.3f} s (median {statistics.median(engine_v.wall):6.3f})  "
          f"cpu {eng_cpu:6.3f} s  {engine_evals / eng_wall:,.0f} evaluations/s wall on "
          f"{args.engine_sample:,} orders, {engine_evals / eng_cpu:,.0f}/s cpu")
    sw, sc = single.best()
    print(f"\none core: {evals / sw / 1e6:.2f} M evaluations/s wall, {evals / sc / 1e6:.2f} M/s cpu   "
          f"(target >= 10 M/s)")
    print(f"ratio sweep / engine: {(evals / sw) / (engine_evals / eng_wall):.0f}x wall, "
          f"{(evals / sc) / (engine_evals / eng_cpu):.0f}x cpu prepared; "
          f"{(evals / e2e.best()[0]) / (engine_evals / eng_wall):.0f}x from the frame   (target >= 200x)")
    dw = dask_v.best()[0]
    print(f"dask threaded vs one core: {sw / dw:.2f}x wall (best rounds; "
          f"{statistics.median(single.wall) / statistics.median(dask_v.wall):.2f}x medians)   (target >= 1.5x)")
    print(f"  the machine's own 2-CPU ceiling (2 processes, half each, vs one core): {sw / pair_v.best()[0]:.2f}x "
          f"wall; their CPU time {pair_v.best()[1]:.3f} s for the same work as one core's {sc:.3f} s")
    best_round = min(range(len(dask_v.wall)), key=dask_v.wall.__getitem__)
    shown = "; ".join(f"cpu {c:.3f} s, waiting for a CPU {q:.3f} s, asleep (GIL, locks) {s:.3f} s"
                      for c, q, s in dask_v.workers[best_round]) or "no per-thread figures (no schedstat)"
    print(f"  dask worker threads, best round ({dw:.3f} s): {shown}")

    print("\n-- memory (tracemalloc peak, bytes per order) --")
    sweep_peak = peak_bytes(lambda: sweep(sim, batch, progress=False))
    prep_peak = peak_bytes(lambda: prepare_orders(sim, frame))
    result = sweep(sim, batch, progress=False)
    out_bytes = int(result.frame.memory_usage(index=False, deep=False).sum())
    del result
    distinct = batch.distinct.size if batch.distinct is not None else 0
    print(f"sweep from prepared orders: {sweep_peak / n:6.0f} B/order peak   (target <= 300; of which the "
          f"output frame {out_bytes / n:.0f} B/order = {out_bytes / n / tiers:.1f} B per row)")
    print(f"preparation from the frame: {prep_peak / n:6.0f} B/order peak   (the prepared orders keep "
          f"{batch_bytes(batch) / n:.0f} B/order; {distinct:,} distinct lines)")
    print(f"\nafter: {load()}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
