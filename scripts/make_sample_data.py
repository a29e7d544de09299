"""Generate the sample orders in data/orders/ (fixed seed: same bytes every run).

    .venv/bin/python scripts/make_sample_data.py [--orders 20000] [--seed 20260306]

Realistic carts for the demo scenario (data/scenarios/demo.yaml): 1-6 lines
per order, quantities 1-4, catalogue products and SKUs (beans more often than
gear), about one line in twelve with its own price (a marked-down item), and
about 40% of orders from a known demo customer. Writes
`sample_orders.csv` and `sample_orders.parquet` (the same lines), small
enough to commit.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "orders"

#: (product_id, sku_id, weight, catalogue price)
ITEMS = [
    ("prod_beans_ethiopia", None, 6, 1800),
    (None, "sku_ethiopia_250", 8, 1800),
    (None, "sku_ethiopia_1000", 4, 6200),
    ("prod_beans_colombia", None, 6, 1600),
    (None, "sku_colombia_250", 8, 1600),
    (None, "sku_colombia_1000", 4, 5500),
    ("prod_espresso_blend", None, 10, 1500),
    ("prod_mug", None, 6, 1200),
    ("prod_tote", None, 3, 2500),
    ("prod_grinder", None, 2, 8900),
    ("prod_kettle", None, 2, 5400),
    ("prod_filters", None, 7, 600),
]
CUSTOMERS = ["alice", "bob", "carol", "dave", "erin", "frank", "newcomer-1", "newcomer-2"]


def make_orders(n_orders: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    lines = rng.integers(1, 7, size=n_orders)
    order_index = np.repeat(np.arange(n_orders), lines)
    weights = np.array([w for _, _, w, _ in ITEMS], dtype=float)
    pick = rng.choice(len(ITEMS), size=order_index.size, p=weights / weights.sum())
    quantity = rng.integers(1, 5, size=order_index.size)
    base = np.array([p for _, _, _, p in ITEMS])[pick]
    marked = rng.random(order_index.size) < 1 / 12
    price = pd.array(np.where(marked, (base * 0.8).astype(np.int64), 0), dtype="Int64")
    price[~marked] = pd.NA
    has_customer = rng.random(n_orders) < 0.4
    who = rng.integers(0, len(CUSTOMERS), size=n_orders)
    customer = pd.array([CUSTOMERS[w] if h else None for w, h in zip(who, has_customer)], dtype="string")
    return pd.DataFrame({
        "order_id": pd.array([f"ord_{i:06d}" for i in order_index], dtype="string"),
        "product_id": pd.array([ITEMS[k][0] for k in pick], dtype="string"),
        "sku_id": pd.array([ITEMS[k][1] for k in pick], dtype="string"),
        "quantity": quantity.astype(np.int64),
        "price": price,
        "customer_source_id": customer[order_index],
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=12_000)
    parser.add_argument("--seed", type=int, default=20260306)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    frame = make_orders(args.orders, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "sample_orders.csv", index=False)
    frame.to_parquet(args.out / "sample_orders.parquet", index=False)
    print(f"{args.orders} orders, {len(frame)} lines -> {args.out}")


if __name__ == "__main__":
    main()
