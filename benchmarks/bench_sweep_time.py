"""Dated sweep benchmark: 1,000,000 orders placed over a month x 10 demo tiers, one run (never asserts).

    .venv/bin/python benchmarks/bench_sweep_time.py [--orders 1000000] [--engine-sample 2000] [--rounds 5]
    .venv/bin/python benchmarks/bench_sweep_time.py --orders 20000 --rounds 1   # a quick look

Each order carries a `placed_at` (datetime64[ns, UTC], random seconds over
2026-02-15 .. 2026-03-15, so the winter campaign expires, the app-only
timeframe opens and closes every day, the weekend campaign comes and goes)
and a `channel` (app / web / store). The demo's 10 tiers priced: the welcome,
beans, gear, mug, VIP, weekend, app-only and winter ones. The process is
pinned to one CPU. Variants, interleaved round by round (a noisy moment hits
all of them), each as its best and median round, wall and CPU time:

- `dated, prepared` (the target row): `sweep(sim, prepare_orders(...))`,
  every order at its own placed_at;
- `one instant, prepared`: the same orders with `at=` the simulator clock
  (today's sweep): what pricing each order at its own instant costs on top;
- `dated, from the frame`: preparation included (parsing placed_at, channel);
- the per-request engine on a sample (`normalize_order` once per order,
  `price_normalized` per tier, each order at its own instant and channel, as
  `validate` would see it), and the ratio.

Targets: >= 20 M evaluations/s on one core, >= 200x the engine.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: no hidden thread pool in the one-core figures

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from promolab import Simulator
from promolab.analysis import prepare_orders, sweep
from promolab.analysis.orders import line_columns
from promolab.engine import PricingContext, normalize_order, price_normalized
from promolab.sim.promotions import pricing_view

DEMO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "demo.yaml"
TIERS = ["promo_welcome_10", "promo_free_shipping", "promo_beans_15", "promo_beans_per_bag", "promo_gear_split",
         "promo_mug_3", "promo_vip_10pct", "promo_weekend_filters", "promo_app_espresso", "promo_winter_20"]
PRODUCTS = ["prod_beans_ethiopia", "prod_beans_colombia", "prod_espresso_blend", "prod_mug", "prod_tote",
            "prod_grinder", "prod_kettle", "prod_filters"]
CHANNELS = ["app", "web", "store"]
START = pd.Timestamp("2026-02-15T00:00:00Z")
MONTH_SECONDS = 28 * 24 * 3600


def orders_frame(n: int, seed: int = 7) -> pd.DataFrame:
    """n orders of 1-6 lines over the demo catalogue, placed at random seconds over a month."""
    rng = np.random.default_rng(seed)
    lines = rng.integers(1, 7, size=n)
    order_id = np.repeat(np.arange(n, dtype=np.int64), lines)
    products = pd.Index(PRODUCTS, dtype="string")
    placed = START.value + rng.integers(0, MONTH_SECONDS, size=n) * 10**9
    channel = rng.integers(0, len(CHANNELS), size=n).astype(np.int8)
    return pd.DataFrame({
        "order_id": order_id,
        "product_id": pd.Categorical.from_codes(rng.integers(0, len(PRODUCTS), size=order_id.size).astype(np.int8),
                                                categories=products),
        "quantity": rng.integers(1, 5, size=order_id.size),
        "placed_at": pd.DatetimeIndex(placed[order_id].astype("datetime64[ns]")).tz_localize("UTC"),
        "channel": pd.Categorical.from_codes(channel[order_id], categories=pd.Index(CHANNELS, dtype="string")),
    })


@dataclass
class Variant:
    name: str
    run: Callable[[], Any]
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def measure(self) -> None:
        w0, c0 = time.perf_counter(), time.process_time()
        self.run()
        self.wall.append(time.perf_counter() - w0)
        self.cpu.append(time.process_time() - c0)

    def line(self, evaluations: int) -> str:
        w, c = min(self.wall), min(self.cpu)
        return (f"{self.name:<24} wall {w:7.3f} s (median {statistics.median(self.wall):7.3f})  "
                f"cpu {c:7.3f} s   {evaluations / w / 1e6:6.2f} M evaluations/s wall")


def engine_sample(sim: Simulator, frame: pd.DataFrame, sample: int) -> tuple[Callable[[], int], int]:
    """The per-request engine on the first `sample` orders, each at its own instant and channel."""
    view = pricing_view(sim)
    tiers = [t for t in view.tiers if t.id in TIERS]
    head = frame[frame["order_id"] < sample]
    cols = line_columns(head)
    requests = [(cols.items(i), cols.placed_at_of(i), cols.metadata_of(i)) for i in range(cols.n_orders)]

    def run() -> int:
        count = 0
        for items, now, metadata in requests:
            assert now is not None
            ctx = PricingContext(now=now, redemption_metadata=metadata)
            order = normalize_order(view.catalogue, {"items": items})
            for tier in tiers:
                price_normalized(view.catalogue, tier, order, None, ctx)
                count += 1
        return count

    return run, cols.n_orders * len(tiers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--orders", type=int, default=int(os.environ.get("PROMOLAB_BENCH_ORDERS", "1000000")))
    parser.add_argument("--engine-sample", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    n = args.orders
    sim = Simulator.from_scenario(DEMO)
    frame = orders_frame(n)
    evals = n * len(TIERS)
    print(f"promolab dated sweep benchmark: {n:,} orders ({len(frame):,} lines) placed over 28 days "
          f"x {len(TIERS)} demo tiers = {evals:,} evaluations, one core; load {os.getloadavg()[0]:.2f}")

    started = time.perf_counter()
    batch = prepare_orders(sim, frame)
    print(f"prepared in {time.perf_counter() - started:.2f} s")
    dated = sweep(sim, batch, TIERS, progress=False)
    assert dated.dated
    print(f"paths: {dict(zip(dated.paths['tier_id'], dated.paths['path']))}")
    share = dated.frame.groupby("tier_id", observed=True)["valid"].mean()
    print("valid share per tier: " + ", ".join(f"{k} {v:.1%}" for k, v in share.items()))
    del dated

    engine_run, engine_evals = engine_sample(sim, frame, min(args.engine_sample, n))
    variants = [
        Variant("dated, prepared", lambda: sweep(sim, batch, TIERS, progress=False)),
        Variant("one instant, prepared", lambda: sweep(sim, batch, TIERS, progress=False, at=sim.now)),
        Variant("dated, from the frame", lambda: sweep(sim, frame, TIERS, progress=False)),
        Variant("engine (sample)", engine_run),
    ]
    for _ in range(args.rounds):
        for variant in variants:
            variant.measure()

    print("\n-- throughput (best round; median in brackets) --")
    for variant in variants[:3]:
        print(variant.line(evals))
    print(variants[3].line(engine_evals) + f"   ({engine_evals:,} evaluations)")
    dw, dc = min(variants[0].wall), min(variants[0].cpu)
    ow = min(variants[1].wall)
    ew, ec = min(variants[3].wall), min(variants[3].cpu)
    print(f"\ndated, one core: {evals / dw / 1e6:.2f} M evaluations/s wall, {evals / dc / 1e6:.2f} M/s cpu "
          f"(target >= 20)")
    print(f"ratio dated sweep / engine: {(evals / dw) / (engine_evals / ew):.0f}x wall, "
          f"{(evals / dc) / (engine_evals / ec):.0f}x cpu (target >= 200)")
    print(f"cost of per-order instants: dated / one instant = {dw / ow:.2f}x wall")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
