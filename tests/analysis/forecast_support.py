"""A demo scenario with budgets and limits, and dated orders for it, for the forecast tests."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import yaml

from promolab import samples

#: Budget rules added to demo tiers: (tier, rule, logic)
BUDGETS: dict[str, dict[str, Any]] = {
    # a campaign discount budget of $5,000.00, shared by the campaign's tiers
    "promo_vip_10pct": {"name": "campaign.orders.amount_discounted", "conditions": {"$less_than": [500_000]}},
    # one welcome discount per customer per day (the project's calendar)
    "promo_welcome_10": {"name": "redemption.count.per_customer.daily", "conditions": {"$less_than": [1]}},
    # at most 300 redemptions of the beans campaign a week (weeks from Monday)
    "promo_beans_15": {"name": "campaign.redemptions.count.weekly", "conditions": {"$less_than": [300]}},
}


@cache
def _demo() -> dict[str, Any]:
    with open(samples.demo_scenario(), encoding="utf-8") as f:
        loaded: dict[str, Any] = yaml.safe_load(f)
    return loaded


def budgeted_demo(start: str = "2026-03-01T00:00:00Z", timezone: str = "Europe/Berlin") -> dict[str, Any]:
    """The demo scenario with `BUDGETS` added (each ANDed with the tier's rules)."""
    doc = copy.deepcopy(_demo())
    doc["clock"] = {**(doc.get("clock") or {}), "start": start}
    doc["project"]["timezone"] = timezone
    for campaign in doc["campaigns"]:
        for tier in campaign.get("tiers") or []:
            rule = BUDGETS.get(tier["id"])
            if rule is not None:
                rules = tier.setdefault("validation_rules", {}).setdefault("rules", {})
                ids = [k for k in rules if k != "logic"]
                rules[str(len(ids) + 1)] = rule
                rules["logic"] = " and ".join(ids + [str(len(ids) + 1)])
    return doc


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
