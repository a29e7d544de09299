"""Matplotlib plots for the notebooks: deterministic (no randomness, fixed
colours and order: tiers in response order), each returns its Axes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["plot_discount_by_tier", "plot_discount_distribution"]

_COLOR = "#3b6ea5"


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(8, 4))
    return ax


def _tiers(frame: pd.DataFrame) -> list[str]:
    column = frame["tier_id"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        present = set(column.dropna().astype(str))
        return [str(c) for c in column.cat.categories if str(c) in present]
    return list(dict.fromkeys(column.dropna().astype(str)))


def plot_discount_by_tier(frame: pd.DataFrame, *, stat: str = "sum", ax: Any = None) -> Any:
    """Bar per tier of the discount: `stat` = "sum" (campaign cost, default) or
    "mean" (average over the orders where the tier applies), in currency units."""
    if stat not in ("sum", "mean"):
        raise ValueError("stat must be 'sum' or 'mean'")
    ax = _axes(ax)
    tiers = _tiers(frame)
    valid = frame[frame["valid"].to_numpy()]
    amounts = valid["discount_amount"].astype("Float64").fillna(0).astype("float64")
    grouped = amounts.groupby(valid["tier_id"].astype(str).to_numpy(), sort=False)
    values = (grouped.sum() if stat == "sum" else grouped.mean()).reindex(tiers).fillna(0.0) / 100.0
    positions = np.arange(len(tiers))
    ax.barh(positions, values.to_numpy(), color=_COLOR)
    ax.set_yticks(positions, labels=tiers)
    ax.invert_yaxis()
    ax.set_xlabel("total discount" if stat == "sum" else "average discount where valid")
    ax.set_title("Discount by tier")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_discount_distribution(
    frame: pd.DataFrame, *, tiers: list[str] | None = None, bins: int = 30, ax: Any = None
) -> Any:
    """Histogram of discounts (currency units) where tiers apply; one step line
    per tier when `tiers` is given, else all valid rows together."""
    ax = _axes(ax)
    valid = frame[frame["valid"].to_numpy()]
    amounts = valid["discount_amount"].astype("Float64").fillna(0).astype("float64").to_numpy() / 100.0
    top = float(amounts.max()) if amounts.size else 1.0
    edges = np.linspace(0.0, max(top, 1.0), bins + 1)
    if tiers is None:
        ax.hist(amounts, bins=edges, color=_COLOR)
    else:
        ids = valid["tier_id"].astype(str).to_numpy()
        for tier in tiers:
            ax.hist(amounts[ids == tier], bins=edges, histtype="step", label=tier, linewidth=1.5)
        ax.legend(fontsize="small")
    ax.set_xlabel("discount")
    ax.set_ylabel("orders")
    ax.set_title("Distribution of discounts")
    return ax
