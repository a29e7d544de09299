"""Sweep benchmark: 1,000,000 orders x 10 tiers, figures measured in ONE run (never asserts).

    .venv/bin/python benchmarks/bench_sweep.py [--orders 1000000] [--engine-sample 2000]
    .venv/bin/python benchmarks/bench_sweep.py --quick        # 100,000 orders

Prints:
- single-core sweep throughput (order x tier evaluations/s; the process is
  pinned to one CPU while it runs), for the kernels on prepared orders and
  end to end from the line-items DataFrame;
- the per-request engine on a sample of the same orders (normalize_order once
  per order + price_normalized per tier, as `validate` does) and the ratio;
- the dask engine, local threaded scheduler, on all CPUs (2 here) vs one core;
- peak memory per order, measured with tracemalloc (numpy reports its buffers
  to it): the sweep from prepared orders (output frame included), and the
  preparation (factorising ids, resolving keys) from the input frame.

Targets (issue #7): >= 10 M evaluations/s on one core, >= 200x the engine,
dask threaded on 2 cores >= 1.5x one core, <= 300 bytes per order.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from typing import Any

import numpy as np
import pandas as pd

from promolab import Simulator
from promolab.analysis import prepare_orders, sweep
from promolab.sim.pricing import PricingContext, normalize_order, price_normalized
from promolab.sim.promotions import pricing_view

N_PRODUCTS = 40


def scenario() -> dict[str, Any]:
    """A shop of 40 products (3 collections) and one campaign of 10 tiers:
    order- and item-level AMOUNT / PERCENT / FIXED, each with an amount rule."""
    products = [{"id": f"prod_{i:02d}", "source_id": f"p{i:02d}", "name": f"Product {i}", "price": 300 + 137 * i}
                for i in range(N_PRODUCTS)]
    collections = [
        {"id": "pc_a", "name": "A", "products": [f"prod_{i:02d}" for i in range(0, 15)]},
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


def best_of(repeat: int, fn: Any) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - started)
        del result
        result = None
    return best, result


def engine_rate(sim: Simulator, frame: pd.DataFrame, sample: int) -> float:
    from promolab.analysis import orders_from_frame

    view = pricing_view(sim)
    ids = frame["order_id"].to_numpy()
    cut = int(np.searchsorted(ids, sample))
    requests = list(orders_from_frame(frame.iloc[:cut]).values())
    ctx = PricingContext(now=sim.now)
    started = time.perf_counter()
    evaluations = 0
    for request in requests:
        order = normalize_order(view.catalogue, request["order"])
        for tier in view.tiers:
            price_normalized(view.catalogue, tier, order, None, ctx)
            evaluations += 1
    return evaluations / (time.perf_counter() - started)


def peak_bytes(fn: Any) -> int:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    result = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del result
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 orders")
    parser.add_argument("--engine-sample", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = 100_000 if args.quick else args.orders
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []

    sim = Simulator.from_scenario(scenario())
    tiers = len(pricing_view(sim).tiers)
    frame = orders_frame(n)
    print(f"promolab sweep benchmark: {n:,} orders ({len(frame):,} lines) x {tiers} tiers "
          f"= {n * tiers:,} evaluations; CPUs available: {len(cpus) or '?'}")

    if cpus:
        os.sched_setaffinity(0, {cpus[0]})
    prep_t, _ = best_of(args.repeat, lambda: prepare_orders(sim, frame))
    batch = prepare_orders(sim, frame)
    sweep(sim, batch, progress=False)  # warm-up
    kern_t, _ = best_of(args.repeat, lambda: sweep(sim, batch, progress=False))
    e2e_t, _ = best_of(args.repeat, lambda: sweep(sim, frame, progress=False))
    eng = engine_rate(sim, frame, args.engine_sample)
    if cpus:
        os.sched_setaffinity(0, set(cpus))
    dask_t, _ = best_of(args.repeat, lambda: sweep(sim, batch, engine="dask", progress=False))

    evals = n * tiers
    single = evals / kern_t
    print("\n-- one core --")
    print(f"sweep, prepared orders:   {kern_t:7.3f} s  {single / 1e6:7.2f} M evaluations/s   (target >= 10 M/s)")
    print(f"sweep, from the frame:    {e2e_t:7.3f} s  {evals / e2e_t / 1e6:7.2f} M evaluations/s   "
          f"(preparation alone {prep_t:.3f} s)")
    print(f"per-request engine:       {eng:,.0f} evaluations/s on {args.engine_sample:,} orders")
    print(f"ratio sweep / engine:     {single / eng:7.0f}x  prepared, {evals / e2e_t / eng:.0f}x from the frame"
          f"   (target >= 200x)")
    print(f"\n-- dask, local threaded scheduler, {len(cpus) or os.cpu_count()} CPUs --")
    print(f"sweep, prepared orders:   {dask_t:7.3f} s  {evals / dask_t / 1e6:7.2f} M evaluations/s  "
          f"speed-up {kern_t / dask_t:.2f}x vs one core   (target >= 1.5x)")

    print("\n-- memory (tracemalloc peak, bytes per order) --")
    sweep_peak = peak_bytes(lambda: sweep(sim, batch, progress=False))
    prep_peak = peak_bytes(lambda: prepare_orders(sim, frame))
    result = sweep(sim, batch, progress=False)
    out_bytes = int(result.frame.memory_usage(index=False, deep=False).sum())
    batch_bytes = sum(a.nbytes for a in (batch.starts, batch.key, batch.quantity) if a is not None)
    del result
    print(f"sweep from prepared orders: {sweep_peak / n:6.0f} B/order peak   (target <= 300; of which the "
          f"output frame {out_bytes / n:.0f} B/order = {out_bytes / n / tiers:.1f} B per row)")
    print(f"preparation from the frame: {prep_peak / n:6.0f} B/order peak   (the prepared orders keep "
          f"{batch_bytes / n:.0f} B/order)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
