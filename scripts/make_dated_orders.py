"""Generate a month of dated orders (fixed seed: same arguments, same bytes).

    .venv/bin/python scripts/make_dated_orders.py [--orders 200000] [--start 2026-03-01]
        [--days 31] [--timezone Europe/Berlin] [--seed 20260301]
        [--out data/orders/month_orders.parquet]

The sample orders of make_sample_data.py have no time, channel or customer
history, so nothing about *when* and *who* (weekday budgets, new vs returning
customers, the DST week-end) can be studied on them. This script writes the
same kind of line items (the demo scenario's catalogue, with the same item
weights and marked-down prices, imported from make_sample_data.py) with:

- `placed_at`: local time in `--timezone` (stored tz-aware). Daily profile:
  quiet at night (0-6 h, about 3% of orders), a lunch peak (12-13 h) and a
  larger evening peak (19-21 h). Weekly profile (documented choice): the
  **weekend is busiest** (Saturday x1.30, Sunday x1.20), Friday a little above
  an ordinary day (x1.05), Monday to Thursday x1.00. Wall-clock times that a
  DST change skips (02:00-03:00 on 29 March 2026 in Europe/Berlin) move
  forward by an hour; repeated ones (October) take either offset at random.
- `customer_source_id`: repeat customers with a heavy-tailed frequency (a
  Pareto weight per customer): most customers order once in the month, a few
  order weekly or more. The six demo customers (alice ... frank) are among
  them, as often as their `metadata.orders` history suggests; about 8% of
  orders are guest checkouts (empty customer).
- `segment`: `new`, `regular` or `loyal`, fixed per customer (from the
  customer's frequency; demo customers from their order history); empty for
  guests.
- `channel`: `web` 55%, `app` 33%, `store` 12% (store orders only while the
  shop is open, 08:00-20:00 local; the overall shares stay on target).
- `quantity`: 1 in about two lines of three, rarely above 4; 1-6 lines per
  order, mostly 1-3.

Vectorized with numpy: a million orders take a few seconds. Writes Parquet
or CSV by the suffix of `--out` (Parquet with categoricals and zstd, small
enough to commit).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "data" / "scenarios" / "demo.yaml"
OUT = ROOT / "data" / "orders" / "month_orders.parquet"

DEFAULT_ORDERS = 200_000
DEFAULT_START = "2026-03-01"
DEFAULT_DAYS = 31
DEFAULT_TIMEZONE = "Europe/Berlin"
DEFAULT_SEED = 20260301

#: Relative order intensity per local hour 0..23: quiet night, lunch and evening peaks.
HOUR_WEIGHTS = np.array([
    0.6, 0.35, 0.2, 0.15, 0.15, 0.3,      # 00-05
    0.8, 2.0, 3.5, 4.0, 4.5, 5.5,        # 06-11
    8.0, 7.5, 5.0, 4.5, 4.5, 5.5,        # 12-17 (lunch peak 12-13)
    7.5, 9.5, 10.0, 8.5, 5.0, 2.0,       # 18-23 (evening peak 19-21)
])
#: Relative order intensity per weekday, Monday .. Sunday: the weekend is busiest.
WEEKDAY_WEIGHTS = np.array([1.0, 1.0, 1.0, 1.0, 1.05, 1.30, 1.20])
CHANNELS = ("web", "app", "store")
CHANNEL_SHARES = np.array([0.55, 0.33, 0.12])
#: Hours (local) during which the shop is open for `store` orders.
STORE_HOURS = range(8, 20)
SEGMENTS = ("new", "regular", "loyal")
#: Cap of a customer's relative order rate (about 25 orders in a month of 200,000).
MAX_RATE = 40.0
#: Share of orders from guests (no customer).
GUEST_SHARE = 0.08
#: Probability of 1..6 lines in an order.
LINE_COUNTS = np.array([0.42, 0.27, 0.15, 0.09, 0.05, 0.02])
#: Probability of quantity 1..6 on a line.
QUANTITIES = np.array([0.66, 0.21, 0.07, 0.04, 0.015, 0.005])
MARKDOWN_SHARE = 1 / 12


def _sibling(name: str) -> ModuleType:
    """Another script of scripts/ as a module (scripts/ is not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: (product_id, sku_id, weight, catalogue price): the sample orders' items, one list.
ITEMS: list[tuple[str | None, str | None, int, int]] = _sibling("make_sample_data").ITEMS


def demo_customers(scenario: Path = SCENARIO) -> list[tuple[str, int]]:
    """(source_id, past orders) of each customer of the demo scenario, in file order."""
    document: dict[str, Any] = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    return [
        (str(c["source_id"]), int((c.get("metadata") or {}).get("orders", 0)))
        for c in document.get("customers", [])
    ]


def _segment_of_history(past_orders: int) -> int:
    return 2 if past_orders >= 10 else 1 if past_orders >= 2 else 0


def _placed_at(
    rng: np.random.Generator, n: int, start: pd.Timestamp, days: int, timezone: str
) -> pd.DatetimeIndex:
    """`n` sorted local instants in [start, start + days) of `timezone`, following the
    weekday and hour profiles (drawn per calendar day, then per hour)."""
    dates = pd.date_range(start, periods=days, freq="D")
    day_weights = WEEKDAY_WEIGHTS[dates.day_of_week.to_numpy()]
    day = rng.choice(days, size=n, p=day_weights / day_weights.sum())
    hour = rng.choice(24, size=n, p=HOUR_WEIGHTS / HOUR_WEIGHTS.sum())
    second = rng.integers(0, 3600, size=n)
    offset = day.astype(np.int64) * 86_400 + hour.astype(np.int64) * 3600 + second
    wall = np.sort(start.to_datetime64().astype("datetime64[s]") + offset.astype("timedelta64[s]"))
    # A repeated wall-clock hour (autumn) takes either offset; a skipped one moves forward.
    ambiguous = rng.random(n) < 0.5
    local = pd.DatetimeIndex(wall.astype("datetime64[ns]")).tz_localize(
        timezone, ambiguous=ambiguous, nonexistent=pd.Timedelta(hours=1)
    )
    return local.sort_values()


def make_dated_orders(
    n_orders: int = DEFAULT_ORDERS,
    *,
    start: str = DEFAULT_START,
    days: int = DEFAULT_DAYS,
    timezone: str = DEFAULT_TIMEZONE,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Line items of `n_orders` orders placed in the `days` local days from `start`
    (one row per line; orders numbered in time order)."""
    if n_orders < 1 or days < 1:
        raise ValueError("need at least one order and one day")
    rng = np.random.default_rng(seed)
    start_day = pd.Timestamp(start).normalize()
    if start_day.tzinfo is not None:
        start_day = start_day.tz_localize(None)
    placed = _placed_at(rng, n_orders, start_day, days, timezone)
    local_hour = placed.hour.to_numpy()

    # Customers: a pool with heavy-tailed order rates; the demo customers first.
    known = demo_customers()
    pool = max(len(known) + 1, int(n_orders * 0.7))
    rate = np.minimum(rng.pareto(1.5, size=pool) + 1.0, MAX_RATE)
    per_rate = n_orders / rate.sum()  # expected orders in the window per unit of rate
    for k, (_, past) in enumerate(known):  # as many orders as its history has, at least one
        rate[k] = max(past, 1) / per_rate
    customer = rng.choice(pool, size=n_orders, p=rate / rate.sum())
    segment_of = np.where(rate >= np.quantile(rate, 0.9), 2, np.where(rate >= np.quantile(rate, 0.6), 1, 0))
    for k, (_, past) in enumerate(known):
        segment_of[k] = _segment_of_history(past)
    names = np.array([s for s, _ in known] + [f"shopper-{k:06d}" for k in range(len(known), pool)], dtype=object)
    guest = rng.random(n_orders) < GUEST_SHARE
    # Each demo customer orders at least once (when there are orders enough).
    sure = rng.choice(n_orders, size=min(len(known), n_orders), replace=False)
    customer[sure], guest[sure] = np.arange(sure.size), False

    # Channel: store only in opening hours, scaled so the overall share stays on target.
    open_now = np.isin(local_hour, np.array(STORE_HOURS))
    store_p = min(1.0, CHANNEL_SHARES[2] / max(open_now.mean(), 1e-9))
    draw = rng.random(n_orders)
    online = np.where(draw < CHANNEL_SHARES[0] / CHANNEL_SHARES[:2].sum(), 0, 1)
    channel = np.where(open_now & (rng.random(n_orders) < store_p), 2, online)

    # Lines.
    lines = rng.choice(len(LINE_COUNTS), size=n_orders, p=LINE_COUNTS) + 1
    order_index = np.repeat(np.arange(n_orders), lines)
    n_lines = order_index.size
    weights = np.array([w for _, _, w, _ in ITEMS], dtype=float)
    pick = rng.choice(len(ITEMS), size=n_lines, p=weights / weights.sum())
    quantity = rng.choice(len(QUANTITIES), size=n_lines, p=QUANTITIES / QUANTITIES.sum()) + 1
    base = np.array([p for _, _, _, p in ITEMS], dtype=np.int64)[pick]
    marked = rng.random(n_lines) < MARKDOWN_SHARE
    price = pd.array(np.where(marked, (base * 0.8).astype(np.int64), 0), dtype="Int64")
    price[~marked] = pd.NA

    def categorical(codes: np.ndarray, labels: list[str | None], missing: np.ndarray | None = None) -> Any:
        present = [x for x in labels if x is not None]
        lookup = np.array([present.index(x) if x is not None else -1 for x in labels])
        out = lookup[codes]
        if missing is not None:
            out = np.where(missing, -1, out)
        return pd.Categorical.from_codes(out, categories=pd.Index(present, dtype="str"))

    order_ids = pd.Index(np.arange(1, n_orders + 1)).astype(str).str.zfill(6)
    order_ids = "ord_m" + order_ids
    used, customer_codes = np.unique(customer, return_inverse=True)  # demo customers first
    per_order_customer = pd.Categorical.from_codes(
        np.where(guest, -1, customer_codes), categories=pd.Index(names[used], dtype="str")
    )
    segment = pd.Categorical.from_codes(
        np.where(guest, -1, segment_of[customer]), categories=pd.Index(SEGMENTS, dtype="str")
    )
    return pd.DataFrame({
        "order_id": pd.Categorical.from_codes(order_index, categories=pd.Index(order_ids, dtype="str")),
        "product_id": categorical(pick, [p for p, _, _, _ in ITEMS]),
        "sku_id": categorical(pick, [s for _, s, _, _ in ITEMS]),
        "quantity": quantity.astype(np.int64),
        "price": price,
        "customer_source_id": per_order_customer[order_index],
        "placed_at": placed[order_index],
        "channel": pd.Categorical.from_codes(channel[order_index], categories=pd.Index(CHANNELS, dtype="str")),
        "segment": segment[order_index],
    })


def write(frame: pd.DataFrame, out: Path) -> None:
    """Parquet (zstd, categoricals kept) or CSV (ISO 8601 times with their offset),
    by the suffix of `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".parquet":
        frame.to_parquet(out, index=False, compression="zstd", compression_level=9)
    elif out.suffix == ".csv":
        frame.to_csv(out, index=False)
    else:
        raise SystemExit(f"--out must end in .parquet or .csv, not {out.suffix or 'nothing'}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=DEFAULT_ORDERS)
    parser.add_argument("--start", default=DEFAULT_START, help="first local day (YYYY-MM-DD)")
    parser.add_argument("--days", type=int, default=DEFAULT_DAYS)
    parser.add_argument("--timezone", default=DEFAULT_TIMEZONE)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    frame = make_dated_orders(args.orders, start=args.start, days=args.days, timezone=args.timezone, seed=args.seed)
    write(frame, args.out)
    print(f"{args.orders} orders, {len(frame)} lines -> {args.out}")


if __name__ == "__main__":
    main()
