"""Matplotlib plots for the notebooks: deterministic (no randomness, fixed
colours and order: tiers in response order), each returns its Axes.

Amounts are plotted in minor units, as the data holds them, and axes read in
the currency through `display.money_tick_formatter` (`$1,400`), so a chart
says the same as the tables next to it; `money_axis` / `count_axis` do that
for charts drawn by hand in the notebooks.

Tiers and campaigns are labelled by their names in the scenario
(`names.scenario_names`), since a reader of a chart knows "VIP 10% off the order",
not `promo_vip_10pct`; a bar that is not there says why (`no orders: not
active at this time`), so an empty row is not mistaken for a missing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..display import format_count, money_tick_formatter

__all__ = [
    "NOTEBOOK_DPI", "REASON_PHRASES", "bar_note", "count_axis", "label_text", "money_axis", "notebook_style",
    "plot_discount_by_tier", "plot_discount_distribution",
]

#: pixels per inch of the figures a notebook shows (2 x 80: crisp on a slide or a
#: high-density screen, shown at the size of an 80 dpi figure)
NOTEBOOK_DPI = 160

_COLOR = "#3b6ea5"
#: What a tier's most frequent refusal (`reason_key`) says after a bar-less row.
REASON_PHRASES: dict[str, str] = {
    "promotion_inactive": "the tier is inactive",
    "promotion_not_active_now": "not active at this time",
    "order_rules_violated": "no order meets its rules",
    "customer_rules_violated": "no customer qualifies",
    "redemption_rules_violated": "its redemption rules refuse",
}


def label_text(label: str) -> str:
    """Text matplotlib draws as written: `$` escaped, else two of them (a tier
    named "$10 off orders over $50", an amount and its difference) read as
    mathtext between them."""
    return label.replace("$", r"\$")


def _named(ids: list[str], frame: pd.DataFrame, names: Mapping[str, str] | None) -> list[str]:
    """Labels of tier ids: the frame's `tier_name` column when it has one, else `names`, else the id."""
    known = dict(names or {})
    if "tier_name" in frame.columns:
        pairs = frame[["tier_id", "tier_name"]].dropna().astype(str).drop_duplicates("tier_id")
        known.update(zip(pairs["tier_id"], pairs["tier_name"], strict=True))
    return [label_text(known.get(i, i)) for i in ids]


def _why_no_orders(frame: pd.DataFrame, tiers: list[str]) -> dict[str, str]:
    """Per tier, the phrase of its most frequent refusal (ties: the first reason in order)."""
    if "reason_key" not in frame.columns:
        return {}
    refused = frame.loc[~frame["valid"].to_numpy(), ["tier_id", "reason_key"]].dropna()
    out: dict[str, str] = {}
    for tier, keys in refused.groupby(refused["tier_id"].astype(str).to_numpy(), sort=False)["reason_key"]:
        counts = keys.astype(str).value_counts(sort=False)
        key = str(counts.idxmax())
        out[str(tier)] = REASON_PHRASES.get(key, key.replace("_", " "))
    return {t: out[t] for t in tiers if t in out}


def notebook_style() -> None:
    """The notebooks' matplotlib settings, set in one place: figures of 8 x 4 in
    at 80 dpi on screen, drawn at twice that (`NOTEBOOK_DPI`, the inline
    backend's "retina" PNG: its width and height say the on-screen size) so a
    chart copied to a slide stays sharp; SVG ids salted so the same chart is the
    same bytes. Outside IPython only the rcParams are set."""
    import matplotlib

    matplotlib.rcParams.update({"svg.hashsalt": "promolab-notebooks", "figure.figsize": (8, 4),
                                "figure.dpi": NOTEBOOK_DPI // 2, "savefig.dpi": NOTEBOOK_DPI})
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # no IPython here: a script, a test
        return
    if get_ipython() is not None:
        set_matplotlib_formats("retina")  # type: ignore[no-untyped-call]  # matplotlib-inline ships no annotations


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
    currency: str = "USD", names: Mapping[str, str] | None = None,
) -> Any:
    """Bar per tier of the discount: `stat` = "sum" (campaign cost, default) or
    "mean" (average over the orders where the tier applies), axis in `currency`.

    Tiers read by name: the frame's `tier_name` (a `compare_tiers` frame), else
    `names` (`scenario_names(sim)` for a sweep's frame), else the id.
    `counts` writes after each bar the number of orders the tier applies to: an
    average over three orders and one over ten thousand look alike otherwise.
    A tier without a bar says why: no orders (and the refusal most of its orders
    met), or orders but no money off (free shipping, a free item).
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
    ax.set_yticks(positions, labels=_named(tiers, frame, names))
    ax.invert_yaxis()
    money_axis(ax.xaxis, currency)
    if counts:
        widest = float(values.max()) if len(values) else 0.0
        ax.set_xlim(0, max(widest, 100.0) * 1.45)  # room for the counts
        why = _why_no_orders(frame, tiers)
        for tier, position, value, n in zip(tiers, positions, values.to_numpy(), orders.to_numpy(), strict=True):
            label = bar_note(int(n), float(value), why.get(tier))
            ax.annotate(label_text(label), (value, position), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize="small", color="#444444" if value else "#888888")
    ax.set_xlabel("total discount" if stat == "sum" else "average discount where the tier applies")
    ax.set_title("Discount by tier" + (", with the orders each applies to" if counts else ""))
    ax.grid(axis="x", alpha=0.3)
    return ax


def bar_note(n: int, value: float, why: str | None = None) -> str:
    """What is written after a tier's bar of `value` over `n` orders: its orders,
    or why there is no bar ("no orders: <why>", "11,329 orders, no money off").
    Every chart with a bar per tier writes it so (the what-if chart too): a
    missing bar reads the same everywhere."""
    if n == 0:
        return "no orders" + (f": {why}" if why else "")
    orders = f"{format_count(n)} order{'s' if n != 1 else ''}"
    return orders if value else f"{orders}, no money off"


def plot_discount_distribution(
    frame: pd.DataFrame, *, tiers: list[str] | None = None, bins: int = 30, ax: Any = None,
    currency: str = "USD", names: Mapping[str, str] | None = None,
) -> Any:
    """Histogram of discounts where tiers apply (x axis in `currency`, y in
    orders); one step line per tier when `tiers` is given (the legend by name,
    as `plot_discount_by_tier`), else all valid rows together."""
    ax = _axes(ax)
    valid = frame[frame["valid"].to_numpy()]
    amounts = valid["discount_amount"].astype("Float64").fillna(0).astype("float64").to_numpy()
    top = float(amounts.max()) if amounts.size else 100.0
    edges = np.linspace(0.0, max(top, 100.0), bins + 1)
    if tiers is None:
        ax.hist(amounts, bins=edges, color=_COLOR)
    else:
        ids = valid["tier_id"].astype(str).to_numpy()
        for tier, label in zip(tiers, _named(list(tiers), frame, names), strict=True):
            ax.hist(amounts[ids == tier], bins=edges, histtype="step", label=label, linewidth=1.5)
        ax.legend(fontsize="small")
    money_axis(ax.xaxis, currency)
    count_axis(ax.yaxis)
    ax.set_xlabel("discount where the tier applies")
    ax.set_ylabel("orders")
    ax.set_title("Distribution of discounts")
    return ax
