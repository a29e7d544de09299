"""`promolab sweep`: a line-items file in, one row per (order, tier) out, a summary printed.

    promolab sweep --scenario data/scenarios/demo.yaml --orders data/orders/sample_orders.csv \\
        --out /tmp/sweep.parquet [--tiers promo_a,promo_b] [--engine pandas|dask] [--no-progress]

Input: CSV or Parquet with the line-items columns of `promolab.analysis.orders`.
Output: `.csv` or `.parquet` with the sweep columns (docs/analysis.md). Exit
codes: 0 done, 2 bad input (message on stderr).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import pandas as pd

__all__ = ["read_orders", "run_sweep", "write_frame"]

_TEXT = ("product_id", "sku_id", "customer_source_id")


def read_orders(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        header = pd.read_csv(path, nrows=0).columns
        return pd.read_csv(path, dtype={c: "string" for c in _TEXT if c in header})
    if suffix in (".parquet", ".pq"):
        return pd.read_parquet(path)
    raise ValueError(f"{path}: orders must be .csv or .parquet")


def write_frame(frame: pd.DataFrame, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix in (".parquet", ".pq"):
        frame.to_parquet(path, index=False)
    else:
        raise ValueError(f"{path}: output must be .csv or .parquet")


def _money(cents: float) -> str:
    return "-" if math.isnan(cents) else f"{cents / 100:,.2f}"


def run_sweep(args: argparse.Namespace) -> int:
    from .. import Simulator
    from .sweep import sweep

    try:
        if args.out.suffix.lower() not in (".csv", ".parquet", ".pq"):
            raise ValueError(f"{args.out}: output must be .csv or .parquet")
        sim = Simulator.from_scenario(args.scenario)
        orders = read_orders(args.orders)
        tiers = [t.strip() for t in args.tiers.split(",") if t.strip()] if args.tiers else None
        started = time.perf_counter()
        result = sweep(sim, orders, tiers, engine=args.engine, progress=not args.no_progress)
        elapsed = time.perf_counter() - started
        write_frame(result.frame, args.out)
    except (ValueError, OSError) as exc:
        print(f"promolab sweep: {exc}", file=sys.stderr)
        return 2
    n, t = result.n_orders, len(result.tier_ids)
    print(f"swept {n:,} orders x {t} tiers = {n * t:,} evaluations in {elapsed:.2f} s "
          f"({n * t / max(elapsed, 1e-9):,.0f}/s, engine={args.engine}) at {result.at.isoformat()}")
    print(f"wrote {args.out}")
    print("\npaths:")
    for row in result.paths.itertuples():
        print(f"  {row.tier_id:28} {row.path:10} {row.reason}")
    print("\nper tier:")
    print(f"  {'tier':28} {'affected':>9} {'cost':>14} {'avg discount':>13}")
    for row in result.summary().itertuples():
        print(f"  {row.tier_id:28} {row.share_affected:>8.1%} {_money(float(row.cost)):>14} "
              f"{_money(row.avg_discount):>13}")
    print("\nper campaign (an order redeems the first valid tier of a campaign):")
    print(f"  {'campaign':28} {'affected':>9} {'cost':>14} {'avg discount':>13}")
    for row in result.summary("campaign").itertuples():
        print(f"  {row.campaign_id:28} {row.share_affected:>8.1%} {_money(float(row.cost)):>14} "
              f"{_money(row.avg_discount):>13}")
    return 0
