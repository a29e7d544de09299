"""Forecast benchmark: 1,000,000 dated orders with binding budgets, one run (never asserts).

    .venv/bin/python benchmarks/bench_forecast.py [--orders 1000000] [--one-by-one 1000] [--rounds 3]
    .venv/bin/python benchmarks/bench_forecast.py --orders 50000 --rounds 1   # a quick look

The orders: scripts/make_dated_orders.py's generator (March 2026,
Europe/Berlin, daily and weekly seasonality, repeat customers, channels),
`--orders` of them. The scenario: the shipped forecast scenario (the demo
with three budgets and limits: a $5,000.00 VIP discount budget, one welcome
discount per customer per day, 300 beans redemptions a week), all of which
bind on a month of orders. The process is pinned to one CPU. Figures, each
the best and median of `--rounds`:

- `forecast, policy best` (the target row): `forecast(sim, frame)` from the
  line-items frame (parsing included), orders/s; and how the time splits
  (parsing the frame, sweeping the candidates, the walk, the frames);
- `one by one`: `send_one_by_one` through the in-process client (promotion
  validation, then the redemption operation, clock moved to each order) on
  the first `--one-by-one` orders, orders/s, and the ratio;
- memory: the peak traced while forecasting (the input frame excluded), per order.

Targets (issue "Campaign forecasting over time"): >= 200,000 orders/s on one
core, >= 50x sending the orders one by one, <= 400 B per order.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: no hidden thread pool in the one-core figures

import argparse
import importlib.util
import statistics
import time
import tracemalloc
from pathlib import Path
from types import ModuleType

import pandas as pd

from promolab import Simulator, samples
from promolab.analysis import forecast, send_one_by_one
from promolab.analysis.forecast import api as forecast_api

ROOT = Path(__file__).resolve().parents[1]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_dated_orders", ROOT / "scripts" / "make_dated_orders.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Phases:
    """Wall time spent in the forecast's steps (wrapping the names `forecast` calls)."""

    NAMES = ("line_columns", "candidates", "walk", "walk_stacked")

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._saved = {name: getattr(forecast_api, name) for name in self.NAMES}
        for name, fn in self._saved.items():
            setattr(forecast_api, name, self._timed(name, fn))

    def _timed(self, name: str, fn):  # type: ignore[no-untyped-def]  # any callable, timed as is
        def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
        return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=int(os.environ.get("PROMOLAB_BENCH_ORDERS", "1000000")))
    parser.add_argument("--one-by-one", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    started = time.perf_counter()
    frame = _generator().make_dated_orders(args.orders)
    n = frame["order_id"].nunique()
    print(f"promolab forecast benchmark: {n:,} dated orders ({len(frame):,} lines), March 2026 Europe/Berlin, "
          f"generated in {time.perf_counter() - started:.1f} s; scenario {samples.forecast_scenario().name}")
    sim = Simulator.from_scenario(samples.forecast_scenario())

    walls, phases = [], Phases()
    result = None
    for _ in range(args.rounds):
        phases.seconds.clear()
        started = time.perf_counter()
        result = forecast(sim, frame, progress=False)
        walls.append(time.perf_counter() - started)
    assert result is not None
    best, median = min(walls), statistics.median(walls)
    rate = n / best
    split = ", ".join(f"{k} {v:.2f} s" for k, v in phases.seconds.items())
    print(f"forecast, policy best:   best {best:.2f} s = {rate:,.0f} orders/s; median {median:.2f} s "
          f"= {n / median:,.0f} orders/s   (last round: {split})")
    held = result.budgets[["tier_id", "rule", "orders_held_back", "ran_out_at"]]
    print("budgets that bound:\n" + held.to_string(index=False))
    print(f"redeemed {int(result.orders['redeemed'].sum()):,} of {n:,} orders; "
          f"{int(result.orders['held_back_tier_id'].notna().sum()):,} held back by a budget")

    first = frame[frame["order_id"].isin(set(frame["order_id"].unique()[: args.one_by_one]))]
    fresh = Simulator.from_scenario(samples.forecast_scenario())
    started = time.perf_counter()
    with fresh.client() as client:
        send_one_by_one(client, first, result.tier_ids, clock=fresh)
    one = args.one_by_one / (time.perf_counter() - started)
    print(f"one by one (in-process client, validation + redemption per order, {args.one_by_one:,} orders): "
          f"{one:,.0f} orders/s -> forecast {rate / one:,.0f}x faster (target >= 50x)")

    tracemalloc.start()
    forecast(sim, frame, progress=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory: peak {peak / 2**20:,.0f} MiB traced while forecasting = {peak / n:,.0f} B per order "
          f"(target <= 400 B; the input frame, {frame.memory_usage(deep=True).sum() / n:,.0f} B per order, excluded)")
    print(f"target >= 200,000 orders/s: {'met' if rate >= 200_000 else 'NOT met'} ({rate:,.0f})")


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    main()
