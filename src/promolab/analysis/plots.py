"""Matplotlib plots for the notebooks: deterministic (no randomness, fixed
colours and order: tiers in response order), each returns its Axes.

Amounts are plotted in minor units, as the data holds them, and axes read in
the currency through `display.money_tick_formatter` (`$1,400`), so a chart
says the same as the tables next to it; `money_axis` / `count_axis` do that
for charts drawn by hand in the notebooks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..display import format_count, money_tick_formatter

__all__ = ["count_axis", "money_axis", "plot_discount_by_tier", "plot_discount_distribution"]

_COLOR = "#3b6ea5"


def money_axis(axis: Any, currency: str = "USD") -> Any:
    """Ticks of a matplotlib axis (`ax.xaxis`, `ax.yaxis`) holding minor units, in
    the currency with separators, at whole steps ($2, $5, $10; not $2.50) so that
    cents appear on ticks only when the axis spans less than a few units."""
    axis.set_major_locator(MaxNLocator(steps=[1, 2, 5, 10]))
    axis.set_major_formatter(money_tick_formatter(currency))
    return axis


def count_axis(axis: Any) -> Any:
    """Ticks of an axis of counts (orders, points): whole numbers with separators."""
    axis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    axis.set_major_formatter(FuncFormatter(lambda value, _position: format_count(value)))
    return axis


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


def plot_discount_by_tier(
    frame: pd.DataFrame, *, stat: str = "sum", ax: Any = None, counts: bool = True,
    currency: str = "USD",
) -> Any:
    """Bar per tier of the discount: `stat` = "sum" (campaign cost, default) or
    "mean" (average over the orders where the tier applies), axis in `currency`.

    `counts` writes after each bar the number of orders the tier applies to: an
    average over three orders and one over ten thousand look alike otherwise.
    """
    if stat not in ("sum", "mean"):
        raise ValueError("stat must be 'sum' or 'mean'")
    ax = _axes(ax)
    tiers = _tiers(frame)
    valid = frame[frame["valid"].to_numpy()]
    amounts = valid["discount_amount"].astype("Float64").fillna(0).astype("float64")
    grouped = amounts.groupby(valid["tier_id"].astype(str).to_numpy(), sort=False)
    values = (grouped.sum() if stat == "sum" else grouped.mean()).reindex(tiers).fillna(0.0)
    orders = grouped.size().reindex(tiers).fillna(0).astype(int)
    positions = np.arange(len(tiers))
    ax.barh(positions, values.to_numpy(), color=_COLOR)
    ax.set_yticks(positions, labels=tiers)
    ax.invert_yaxis()
    money_axis(ax.xaxis, currency)
    if counts:
        widest = float(values.max()) if len(values) else 0.0
        ax.set_xlim(0, max(widest, 100.0) * 1.28)  # room for the counts
        for position, value, n in zip(positions, values.to_numpy(), orders.to_numpy(), strict=True):
            label = "no orders" if n == 0 else f"{format_count(n)} order{'s' if n != 1 else ''}"
            ax.annotate(label, (value, position), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize="small", color="#444444" if n else "#888888")
    ax.set_xlabel("total discount" if stat == "sum" else "average discount where the tier applies")
    ax.set_title("Discount by tier" + (", with the orders each applies to" if counts else ""))
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_discount_distribution(
    frame: pd.DataFrame, *, tiers: list[str] | None = None, bins: int = 30, ax: Any = None,
    currency: str = "USD",
) -> Any:
    """Histogram of discounts where tiers apply (x axis in `currency`, y in
    orders); one step line per tier when `tiers` is given, else all valid rows
    together."""
    ax = _axes(ax)
    valid = frame[frame["valid"].to_numpy()]
    amounts = valid["discount_amount"].astype("Float64").fillna(0).astype("float64").to_numpy()
    top = float(amounts.max()) if amounts.size else 100.0
    edges = np.linspace(0.0, max(top, 100.0), bins + 1)
    if tiers is None:
        ax.hist(amounts, bins=edges, color=_COLOR)
    else:
        ids = valid["tier_id"].astype(str).to_numpy()
        for tier in tiers:
            ax.hist(amounts[ids == tier], bins=edges, histtype="step", label=tier, linewidth=1.5)
        ax.legend(fontsize="small")
    money_axis(ax.xaxis, currency)
    count_axis(ax.yaxis)
    ax.set_xlabel("discount where the tier applies")
    ax.set_ylabel("orders")
    ax.set_title("Distribution of discounts")
    return ax
