"""Retro-replay benchmark: 1,000,000 historical orders priced before and after a change, one run (never asserts).

    .venv/bin/python benchmarks/bench_retro_replay.py [--orders 1000000] [--one-by-one 500] [--rounds 3]
    .venv/bin/python benchmarks/bench_retro_replay.py --orders 50000 --rounds 1   # a quick look

The history: scripts/make_dated_orders.py's generator (March 2026,
Europe/Berlin), `--orders` of them, and as what was actually redeemed the
forecast of the shipped forecast scenario on them (one redemption per order
it redeems, in the frame a pull writes). The change: the VIP tier at 12 %
instead of 10 % (`with_changes`), whose $5,000.00 budget binds. The process
is pinned to one CPU. Figures, each the best and median of `--rounds`:

- `retro_replay` (the target row): both forecasts and the per-order,
  per-tier and per-budget frames, orders/s;
- `one by one`: the first `--one-by-one` orders sent through the in-process
  client under both scenarios (validation, then the redemption, the clock
  moved to each order), what pricing the history again one request at a
  time costs, orders/s, and the ratio.

Targets (issue "Pull a real project"): >= 100,000 orders/s on one core,
>= 50x one by one.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: no hidden thread pool in the one-core figures

import argparse
import statistics
import time

import pandas as pd
from bench_forecast import _generator  # the same generated March as the forecast benchmark

from promolab import Simulator, samples, with_changes
from promolab.analysis import forecast, send_one_by_one
from promolab.analysis.retro_replay import retro_replay
from promolab.pull import REDEMPTION_COLUMNS

CHANGE = {"tiers.promo_vip_10pct.discount.percent_off": 12}


def _redeemed(sim: Simulator, frame: pd.DataFrame) -> pd.DataFrame:
    """What the history says was redeemed: the forecast's redemptions, in a pull's redemptions frame."""
    spent = forecast(sim, frame, progress=False).redemptions
    n = len(spent)
    ids = pd.array([f"r_{k:024x}" for k in range(n)], dtype="string")
    none = pd.array([None] * n, dtype="string")
    columns = {
        "redemption_id": ids, "object": pd.array(["redemption"] * n, dtype="string"), "parent_id": none,
        "rolls_back": none, "result": pd.array(["SUCCESS"] * n, dtype="string"), "status": none, "at": none,
        "order_id": spent["order_id"].astype("string").array, "customer_id": none,
        "redeemable_type": pd.array(["promotion_tier"] * n, dtype="string"),
        "redeemable_id": spent["tier_id"].astype("string").array, "campaign_id": none, "order_amount": none,
        "discount_amount": pd.array(spent["discount"], dtype="Int64"), "gift_amount": none,
    }
    return pd.DataFrame({c: columns[c] for c in REDEMPTION_COLUMNS})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=int(os.environ.get("PROMOLAB_BENCH_ORDERS", "1000000")))
    parser.add_argument("--one-by-one", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    frame = _generator().make_dated_orders(args.orders)
    n = frame["order_id"].nunique()
    scenario = samples.forecast_scenario()
    before = Simulator.from_scenario(scenario)
    after = Simulator.from_scenario(with_changes(scenario, CHANGE))
    redemptions = _redeemed(before, frame)
    print(f"promolab retro-replay benchmark: {n:,} historical orders ({len(frame):,} lines), {len(redemptions):,} "
          f"redemptions; change {CHANGE}")

    walls = []
    replay = None
    for _ in range(args.rounds):
        started = time.perf_counter()
        replay = retro_replay(before, after, frame, redemptions, policy="best")
        replay.per_order(), replay.per_tier(), replay.per_budget()
        walls.append(time.perf_counter() - started)
    assert replay is not None
    best, median = min(walls), statistics.median(walls)
    rate = n / best
    print(f"retro_replay, both scenarios and the frames: best {best:.2f} s = {rate:,.0f} orders/s; "
          f"median {median:.2f} s = {n / median:,.0f} orders/s")
    print(replay.totals().to_string(index=False))

    first = frame[frame["order_id"].isin(set(frame["order_id"].unique()[: args.one_by_one]))]
    tiers = replay.comparison.results["before"].tier_ids
    started = time.perf_counter()
    for sim_of in (lambda: Simulator.from_scenario(scenario), lambda: Simulator.from_scenario(with_changes(scenario, CHANGE))):
        fresh = sim_of()
        with fresh.client() as client:
            send_one_by_one(client, first, tiers, clock=fresh)
    one = args.one_by_one / (time.perf_counter() - started)
    print(f"one by one (in-process client, both scenarios, {args.one_by_one:,} orders): {one:,.0f} orders/s "
          f"-> retro_replay {rate / one:,.0f}x faster (target >= 50x)")
    print(f"target >= 100,000 orders/s: {'met' if rate >= 100_000 else 'NOT met'} ({rate:,.0f})")


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    main()
