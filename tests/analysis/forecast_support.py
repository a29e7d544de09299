"""A demo scenario with budgets and limits, and dated orders for it, for the forecast tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from promolab import samples


def budgeted_demo() -> Path:
    """The demo with budgets and limits (scripts/make_forecast_scenario.py)."""
    return samples.forecast_scenario()


def dated_orders(n_orders: int, *, days: int = 21, seed: int = 1, start: str = "2026-03-02T00:00:00Z") -> pd.DataFrame:
    """The first `n_orders` of the sample orders (repeated with new ids past
    12,000), spread at random over `days` from `start`, with a channel."""
    base = pd.read_parquet(samples.sample_orders())
    ids = base["order_id"].unique()
    copies = -(-n_orders // len(ids))
    frames = []
    for c in range(copies):
        part = base.copy()
        part["order_id"] = part["order_id"] + (f"_{c}" if c else "")
        frames.append(part)
    lines = pd.concat(frames, ignore_index=True)
    wanted = lines["order_id"].unique()[:n_orders]
    lines = lines[lines["order_id"].isin(set(wanted))].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    seconds = rng.integers(0, days * 86_400, len(wanted))
    placed = pd.Timestamp(start) + pd.to_timedelta(seconds, unit="s")
    channel = rng.choice(np.array(["web", "app", "store"]), len(wanted), p=[0.5, 0.3, 0.2])
    lines["placed_at"] = lines["order_id"].map(dict(zip(wanted, placed, strict=True)))
    lines["channel"] = lines["order_id"].map(dict(zip(wanted, channel, strict=True)))
    return lines
