"""`promolab sweep`: a line-items file in, one row per (order, tier) out, a summary printed.

    promolab sweep --scenario data/scenarios/demo.yaml --orders data/orders/sample_orders.csv \\
        --out /tmp/sweep.parquet [--tiers promo_a,promo_b] [--engine pandas|dask] [--no-progress] \\
        [--at 2026-03-07T12:00:00Z] [--customers CUSTOMERS.csv] [--scheduler tcp://host:8786]

Input: CSV or Parquet with the line-items columns of `promolab.analysis.orders`;
`--customers`: CSV or Parquet with `order_id` and `customer_source_id`.
Output: `.csv` or `.parquet` with the sweep columns (docs/analysis.md); the
summary printed with money in the scenario's currency (`promolab.display`).
Exit codes: 0 done, 2 bad input (one line on stderr, nothing written); 141 when stdout is a
pipe closed early (handled in `promolab.cli`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["read_customers", "read_orders", "run_sweep", "write_frame"]

_TEXT = ("product_id", "sku_id", "customer_source_id")


def read_orders(path: Path, what: str = "orders") -> pd.DataFrame:
    """A CSV (id columns read as text, order ids inferred) or Parquet table."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        header = pd.read_csv(path, nrows=0).columns
        return pd.read_csv(path, dtype={c: "string" for c in _TEXT if c in header})
    if suffix in (".parquet", ".pq"):
        return pd.read_parquet(path)
    raise ValueError(f"{path}: {what} must be .csv or .parquet")


def read_customers(path: Path, orders: pd.DataFrame) -> dict[Hashable, str]:
    """`--customers`: order id -> customer source_id, read like the orders (so the
    ids compare equal). Refuses a file whose ids match none of the orders': with
    every order left without a customer the sweep would answer, silently, wrong."""
    frame = read_orders(path, "customers")
    missing = [c for c in ("order_id", "customer_source_id") if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: customers need the columns order_id and customer_source_id "
                         f"(missing: {', '.join(missing)})")
    frame = frame[frame["customer_source_id"].notna()]
    twice = frame["order_id"][frame["order_id"].duplicated()]
    if len(twice):
        raise ValueError(f"{path}: order {twice.iloc[0]!r} has two customers")
    mapping: dict[Hashable, str] = dict(zip(frame["order_id"].tolist(),
                                            frame["customer_source_id"].astype(str).tolist()))
    if mapping and not mapping.keys() & set(orders["order_id"].tolist()):
        raise ValueError(f"{path}: none of its order ids is in the orders file")
    return mapping


def write_frame(frame: pd.DataFrame, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix in (".parquet", ".pq"):
        frame.to_parquet(path, index=False)
    else:
        raise ValueError(f"{path}: output must be .csv or .parquet")


def _client(address: str) -> Any:
    """A `distributed.Client` on the scheduler at `address`; ValueError (exit 2)
    when it cannot be reached."""
    import distributed

    connect: Any = distributed.Client  # its __init__ is unannotated (mypy strict: untyped call)
    try:
        return connect(address, timeout="10s")
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise ValueError(f"--scheduler {address}: cannot connect: {exc}") from None


def run_sweep(args: argparse.Namespace) -> int:
    from contextlib import nullcontext
    from functools import partial

    from ..display import format_count
    from ..output_files import write_all
    from ..scenario_file import open_scenario
    from ..sim import format_instant, parse_instant
    from .sweep import sweep

    engine = args.engine or ("dask" if args.scheduler else "pandas")
    try:
        if args.scheduler and engine != "dask":
            raise ValueError("--scheduler runs the dask engine: drop --engine pandas")
        if args.out.suffix.lower() not in (".csv", ".parquet", ".pq"):
            raise ValueError(f"{args.out}: output must be .csv or .parquet")
        try:
            at = parse_instant(args.at) if args.at is not None else None
        except ValueError as exc:
            raise ValueError(f"--at {args.at!r}: {exc}") from None
        sim, currency = open_scenario(args.scenario)
        orders = read_orders(args.orders)
        customers = read_customers(args.customers, orders) if args.customers is not None else None
        tiers = [t.strip() for t in args.tiers.split(",") if t.strip()] if args.tiers else None
        with _client(args.scheduler) if args.scheduler else nullcontext() as client:
            started = time.perf_counter()
            result = sweep(sim, orders, tiers, engine=engine, progress=not args.no_progress,
                           customers=customers, at=at, client=client)
            elapsed = time.perf_counter() - started
        write_all({args.out: partial(write_frame, result.frame)})  # all or none: docs/analysis.md
    except (ValueError, OSError) as exc:
        print(f"promolab sweep: {exc}", file=sys.stderr)
        return 2
    n, t = result.n_orders, len(result.tier_ids)
    where = f" on {args.scheduler}" if args.scheduler else ""
    print(f"swept {format_count(n)} orders x {t} tiers = {format_count(n * t)} evaluations in {elapsed:.2f} s "
          f"({format_count(n * t / max(elapsed, 1e-9))}/s, engine={engine}{where}) at {format_instant(result.at)}")
    print(f"wrote {args.out}")
    print("\npaths:")
    for row in result.paths.itertuples():
        print(f"  {row.tier_id:28} {row.path:10} {row.reason}")
    print("\nper tier (-: no order reached, or discounts without monetary value, e.g. free shipping):")
    print(result.summary_text(currency=currency))
    print("\nper campaign (an order redeems the first valid tier of a campaign):")
    print(result.summary_text("campaign", currency=currency))
    return 0
