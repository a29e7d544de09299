"""What a sweep costs: per tier and per campaign (docs/analysis.md, "Sweep summary").

Per tier: `orders` swept, `valid_orders` (the tier applies), `share_affected`
(= valid_orders / orders), `discounted_orders` (discount > 0), `cost` (sum of
discounts, cents), `avg_discount` (cost / valid_orders, cents, NaN when none),
`cost_per_order` (cost / orders), `max_discount`.

Per campaign: tiers of a campaign do not stack (each carries its own order),
so an order is counted once per campaign, with the tier it would redeem:
`rule="first"` (default) the first valid tier in response order (hierarchy
ascending, the tier the service applies first), `rule="best"` the largest
discount. Columns: `campaign_id`, `tiers`, `orders`, `valid_orders`,
`share_affected`, `cost`, `avg_discount`, `cost_per_order`.

Those frames are data: money in integer cents (averages in float cents),
shares as fractions. `summary_table` / `summary_text` are the same figures for
people, formatted by `promolab.display` (money with its currency, shares as
percentages): the one way amounts read everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...display import (
    DEFAULT_CURRENCY,
    format_count,
    format_money,
    format_share,
    text_table,
)

__all__ = ["campaign_summary", "summary_table", "summary_text", "tier_summary"]


def _ratio(num: np.ndarray, den: np.ndarray | int) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.asarray(den) > 0, num / np.maximum(den, 1), np.nan)


def tier_summary(
    valid: np.ndarray, discount: np.ndarray, tier_ids: Sequence[str], campaign_ids: Sequence[str],
    paths: Sequence[str],
) -> pd.DataFrame:
    """`valid`/`discount` are (orders x tiers) views; NA discounts count as 0."""
    n = valid.shape[0]
    valid_orders = valid.sum(axis=0)
    cost = discount.sum(axis=0)
    return pd.DataFrame({
        "tier_id": pd.Categorical(list(tier_ids), categories=list(dict.fromkeys(tier_ids))),
        "campaign_id": pd.array(list(campaign_ids), dtype="string"),
        "path": pd.Categorical(list(paths), categories=["vectorized", "hybrid", "fallback"]),
        "orders": pd.array([n] * len(tier_ids), dtype="Int64"),
        "valid_orders": pd.array(valid_orders, dtype="Int64"),
        "share_affected": _ratio(valid_orders, n) if n else np.full(len(tier_ids), np.nan),
        "discounted_orders": pd.array((discount > 0).sum(axis=0), dtype="Int64"),
        "cost": pd.array(cost, dtype="Int64"),
        "avg_discount": _ratio(cost, valid_orders),
        "cost_per_order": _ratio(cost, n) if n else np.full(len(tier_ids), np.nan),
        "max_discount": pd.array(discount.max(axis=0) if n else np.zeros(len(tier_ids), np.int64), dtype="Int64"),
    })


def campaign_summary(
    valid: np.ndarray, discount: np.ndarray, campaign_ids: Sequence[str], rule: str = "first",
) -> pd.DataFrame:
    if rule not in ("first", "best"):
        raise ValueError("rule must be 'first' or 'best'")
    n = valid.shape[0]
    rows = []
    for campaign in dict.fromkeys(campaign_ids):
        cols = [i for i, c in enumerate(campaign_ids) if c == campaign]
        v = valid[:, cols]
        d = np.where(v, discount[:, cols], 0)
        any_valid = v.any(axis=1)
        if rule == "first":
            chosen = d[np.arange(n), np.argmax(v, axis=1)] if n else np.zeros(0, np.int64)
            chosen = np.where(any_valid, chosen, 0)
        else:
            chosen = d.max(axis=1) if n else np.zeros(0, np.int64)
        affected = int(any_valid.sum())
        cost = int(chosen.sum())
        rows.append({
            "campaign_id": campaign, "tiers": len(cols), "orders": n, "valid_orders": affected,
            "share_affected": affected / n if n else np.nan, "cost": cost,
            "avg_discount": cost / affected if affected else np.nan,
            "cost_per_order": cost / n if n else np.nan,
        })
    frame = pd.DataFrame(rows, columns=["campaign_id", "tiers", "orders", "valid_orders", "share_affected",
                                        "cost", "avg_discount", "cost_per_order"])
    frame["campaign_id"] = frame["campaign_id"].astype("string")
    for col in ("tiers", "orders", "valid_orders", "cost"):
        frame[col] = frame[col].astype("Int64")
    for col in ("share_affected", "avg_discount", "cost_per_order"):
        frame[col] = frame[col].astype("float64")
    return frame


#: Columns of `summary_table` after the tier / campaign id.
TABLE_COLUMNS = ("reach", "orders reached", "cost", "avg discount", "cost per order")


def summary_table(summary: pd.DataFrame, currency: str = DEFAULT_CURRENCY) -> pd.DataFrame:
    """A `tier_summary` / `campaign_summary` frame as text cells for people
    (`display.MISSING` where a figure is NA: no order reached, or a tier whose
    discounts have no monetary value, which `SweepResult.summary` marks NA)."""
    key = "tier_id" if "tier_id" in summary.columns else "campaign_id"

    return pd.DataFrame({
        key.removesuffix("_id"): [str(v) for v in summary[key]],
        "reach": [format_share(v) for v in summary["share_affected"]],
        "orders reached": [format_count(v) for v in summary["valid_orders"]],
        "cost": [format_money(v, currency) for v in summary["cost"]],
        "avg discount": [format_money(v, currency) for v in summary["avg_discount"]],
        "cost per order": [format_money(v, currency) for v in summary["cost_per_order"]],
    })


def summary_text(table: pd.DataFrame) -> str:
    """A `summary_table` as aligned text (ids left, figures right, nothing cut)."""
    return text_table(list(table.columns), table.to_numpy().tolist())
