"""Optimizer benchmark: 1,000 candidate settings on 100,000 orders, one core (never asserts).

    .venv/bin/python benchmarks/bench_optimize.py [--orders 100000] [--rounds 1]
    .venv/bin/python benchmarks/bench_optimize.py --orders 10000   # a quick look
    .venv/bin/python benchmarks/bench_optimize.py --dated          # the weekly cap held per week

The orders: the first `--orders` orders of data/orders/month_orders.parquet
(the demo's generated month), without their `placed_at` (priced at the
clock, one week) unless `--dated` (each at its own instant, the weekly cap
held in each week they fall in). The scenario: the forecast scenario
(data/scenarios/march_budgets.yaml, its $5,000.00 VIP discount budget read
as a constraint; the beans campaign's weekly cap of 300 redemptions, which
100,000 orders overrun at any setting, given as `--weekly-cap` instead). The space: 1,000 options in two groups, the beans tier's
percent off (100 values) x its order cap (5) and the VIP tier's percent off
(50) x its cap (10); a floor of 100 expected redemptions. The process is
pinned to one CPU. Printed: the wall time of `optimize` (one sweep of every
option and the expectations, the MILP, the runner-up), how it splits
(evaluation / solving), and candidates x orders per second.

Target (issue 37): <= 60 s on one core.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: no hidden thread pool in the one-core figures

import argparse
import time
from pathlib import Path

import pandas as pd

from promolab import Simulator
from promolab.analysis import Space, TierGrid, optimize
from promolab.analysis.optimize import CountLimit, evaluation

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--dated", action="store_true", help="keep placed_at: the weekly cap per week")
    parser.add_argument("--weekly-cap", type=int, default=30_000, help="the beans campaign's weekly cap")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sim = Simulator.from_scenario(ROOT / "data" / "scenarios" / "march_budgets.yaml")
    month = pd.read_parquet(ROOT / "data" / "orders" / "month_orders.parquet")
    keep = month["order_id"].drop_duplicates().iloc[: args.orders]
    orders = month[month["order_id"].isin(keep)].reset_index(drop=True)
    if not args.dated:
        orders = orders.drop(columns=["placed_at"])
    n_orders = orders["order_id"].nunique()
    space = Space([
        TierGrid("promo_beans_15", percent_off=[1 + k / 2 for k in range(100)], cap=[None, 4000, 3000, 2000, 1000]),
        TierGrid("promo_vip_10pct", percent_off=list(range(1, 51)), cap=[None, *range(1000, 10000, 1000)]),
    ])
    candidates = 100 * 5 + 50 * 10
    timed = {"evaluate": 0.0}
    original = evaluation.evaluate

    def timed_evaluate(*a, **k):  # type: ignore[no-untyped-def]  # wraps evaluate to time it
        start = time.perf_counter()
        try:
            return original(*a, **k)
        finally:
            timed["evaluate"] += time.perf_counter() - start

    from promolab.analysis.optimize import api
    api.evaluate = timed_evaluate  # type: ignore[assignment]  # the same function, timed
    walls = []
    for _ in range(args.rounds):
        timed["evaluate"] = 0.0
        start = time.perf_counter()
        found = optimize(sim, orders, space, min_redemptions=100,
                         budgets={"camp_beans": CountLimit(args.weekly_cap, "weekly")})
        walls.append(time.perf_counter() - start)
    wall = min(walls)
    dated = "each at its placed_at" if args.dated else "at the clock"
    print(f"optimize: {candidates:,} candidate settings x {n_orders:,} orders ({dated}) on one core")
    print(f"  wall {wall:.1f} s (target <= 60 s): evaluation {timed['evaluate']:.1f} s, "
          f"solving and the answer {wall - timed['evaluate']:.1f} s")
    print(f"  {candidates * n_orders / wall:,.0f} candidate-orders/s")
    print(found.summary())


if __name__ == "__main__":
    main()
