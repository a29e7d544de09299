"""Charts of cohorts and campaign budgets, in the house style of `analysis.plots`:
deterministic (fixed colours, campaigns and categories in the order given),
amounts drawn in minor units with money axes (`plots.money_axis`), labels a
person reads through `display.format_money`. Each returns its Axes and never
calls `plt.show()`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..display import format_count, format_money
from .cohorts import WEEKDAYS, weekday_hour_table
from .plots import count_axis, label_text, money_axis

__all__ = ["plot_burn_down", "plot_discount_by_cohort", "plot_weekday_hour_heatmap"]

_COLOR = "#3b6ea5"
_BUDGET_COLOR = "#b03a2e"
_MONEY = {"discount", "cost", "margin", "discount_per_order"}


def _axes(ax: Any, figsize: tuple[float, float] = (8, 4)) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_burn_down(
    periods: pd.DataFrame, budget: int | None = None, *, value: str | None = None,
    cumulative: bool = True, ax: Any = None, currency: str = "USD", note: str | None = None,
    names: Mapping[str, str] | None = None,
) -> Any:
    """One line per campaign of its spend over time, against a budget.

    `periods`: rows of `campaign_id`, `period_start` (tz-aware) and the value
    column, `value` = "discount" (cents; the default when present) or
    "redemptions" (counts). `cumulative=True` (default): running totals,
    read from `<value>_to_date` when the frame has it (a forecast's
    `periods()`), else the column is taken to hold them already; `False`:
    per-period figures, summed up here (per campaign, in period order). `budget` (cents for a discount, a
    count for redemptions): a horizontal line, so the point where a campaign
    would run out shows at a glance; the first period where a campaign's line
    reaches it is marked (a red dot, `gid="crossing"`) and says when, then
    `note` (why it goes past: `ForecastResult.plot_burn_down` writes it from the
    forecast). Campaigns in order of first appearance, labelled by `names`
    (`scenario_names(sim)`) where given.
    """
    if value is None:
        value = "discount" if "discount" in periods.columns else "redemptions"
    if value not in ("discount", "redemptions"):
        raise ValueError("value must be 'discount' or 'redemptions'")
    ax = _axes(ax)
    ordered = periods.sort_values("period_start", kind="stable")
    labels = dict(names or {})
    crossings = []
    for campaign in dict.fromkeys(periods["campaign_id"].astype(str)):
        rows = ordered[ordered["campaign_id"].astype(str).to_numpy() == campaign]
        column = f"{value}_to_date" if cumulative and f"{value}_to_date" in rows.columns else value
        values = rows[column].astype("float64").to_numpy()
        if not cumulative:
            values = np.cumsum(values)
        starts = rows["period_start"].to_numpy()
        ax.plot(starts, values, marker="o", markersize=3, drawstyle="steps-post",
                label=label_text(labels.get(campaign, campaign)))
        over = np.flatnonzero(values >= budget) if budget is not None else np.array([], dtype=np.int64)
        if over.size:
            crossings.append((rows["period_start"].iloc[over[0]], float(values[over[0]])))
    if budget is not None:
        amount = format_money(budget, currency) if value == "discount" else format_count(budget)
        ax.axhline(budget, color=_BUDGET_COLOR, linestyle="--", linewidth=1.2, label=label_text(f"budget {amount}"))
        for when, reached in crossings:
            _mark_crossing(ax, when, reached, note)
    if value == "discount":
        money_axis(ax.yaxis, currency)
        ax.set_ylabel("discount given, running total")
    else:
        count_axis(ax.yaxis)
        ax.set_ylabel("redemptions, running total")
    ax.set_ylim(bottom=0, top=max(ax.get_ylim()[1], (budget or 0) * 1.45))  # room for the note
    ax.set_xlabel("period start")
    ax.set_title("Budget burn-down by campaign")
    ax.legend(fontsize="small", loc="lower right")
    ax.grid(alpha=0.3)
    return ax


def _mark_crossing(ax: Any, when: pd.Timestamp, reached: float, note: str | None) -> None:
    """A dot where a line first reaches the budget, and a caption: when, and why past it."""
    ax.plot([when.to_datetime64()], [reached], marker="o", markersize=9, color=_BUDGET_COLOR,
            markerfacecolor="none", markeredgewidth=2, linestyle="none", gid="crossing")
    text = f"reaches the budget in the period starting {when.strftime('%d %b %Y')}"
    ax.annotate(label_text(text + (f"\n{note}" if note else "")), (when.to_datetime64(), reached),
                xytext=(0.02, 0.97), textcoords="axes fraction", va="top", ha="left", fontsize="small",
                color=_BUDGET_COLOR, gid="crossing-note",
                arrowprops={"arrowstyle": "->", "color": _BUDGET_COLOR, "linewidth": 1})


def _label(row: pd.Series, by: Sequence[str]) -> str:
    parts = []
    for name in by:
        item = row[name]
        if pd.isna(item):
            parts.append("(none)")
        elif isinstance(item, pd.Timestamp):
            parts.append(item.strftime("%Y-%m-%d"))
        elif name == "new_customer":
            parts.append("new" if item else "returning")
        else:
            parts.append(str(item))
    return label_text(" · ".join(parts))


def plot_discount_by_cohort(
    breakdown_frame: pd.DataFrame, by: str | Sequence[str], *, value: str = "discount",
    ax: Any = None, currency: str = "USD",
) -> Any:
    """A bar per row of a `breakdown` frame, in its (category) order: `value` =
    "discount" (default, money axis), "discount_per_order", "cost", "margin"
    (money) or "orders", "redeemed" (counts). Several `by` columns read as one
    label per bar ("Sunday · new"). A cohort without a bar says why ("no
    orders", "none redeemed")."""
    names = [by] if isinstance(by, str) else list(by)
    ax = _axes(ax, figsize=(max(6.0, 0.35 * len(breakdown_frame) + 2), 4))
    labels = [_label(row, names) for _, row in breakdown_frame.iterrows()]
    heights = breakdown_frame[value].astype("float64").fillna(0.0).to_numpy()
    positions = np.arange(len(labels))
    ax.bar(positions, heights, color=_COLOR)
    for position, note in _empty_bar_notes(breakdown_frame, value, heights):
        ax.annotate(note, (position, 0), xytext=(0, 3), textcoords="offset points", ha="center",
                    va="bottom", fontsize="small", color="#888888", rotation=90, gid="empty-bar")
    crowded = sum(len(label) for label in labels) > 60  # slanted, rather than overlapping
    ax.set_xticks(positions, labels=labels, rotation=40 if crowded else 0, ha="right" if crowded else "center")
    if value in _MONEY:
        money_axis(ax.yaxis, currency)
    else:
        count_axis(ax.yaxis)
    grouping = " and ".join(name.replace("_", " ") for name in names)
    ax.set_xlabel(grouping)
    ax.set_ylabel(value.replace("_", " "))
    ax.set_title(f"{value.replace('_', ' ').capitalize()} by {grouping}")
    ax.grid(axis="y", alpha=0.3)
    return ax


def _empty_bar_notes(frame: pd.DataFrame, value: str, heights: np.ndarray) -> list[tuple[int, str]]:
    """Where a cohort has no bar, why: no orders at all, none redeemed, or (redeemed
    but) nothing of `value`."""
    notes = []
    orders = frame["orders"].to_numpy() if "orders" in frame.columns else None
    redeemed = frame["redeemed"].to_numpy() if "redeemed" in frame.columns else None
    for position in np.flatnonzero(heights == 0):
        if orders is not None and orders[position] == 0:
            notes.append((int(position), "no orders"))
        elif redeemed is not None and redeemed[position] == 0 and value != "orders":
            notes.append((int(position), "none redeemed"))
        else:
            notes.append((int(position), f"no {value.replace('_', ' ')}"))
    return notes


def plot_weekday_hour_heatmap(
    frame: pd.DataFrame, value: str = "discount", *, campaign: str | None = None,
    ax: Any = None, currency: str = "USD",
) -> Any:
    """A 7 x 24 heatmap (weekdays down, local hours across) of the per-order
    `frame`'s `value` per cell: "discount" (cents, the colour bar in money),
    "orders" or "redeemed" (`weekday_hour_table`); `campaign` as in `breakdown`.
    The image's array is the table, so a test or a reader can check a cell."""
    table = weekday_hour_table(frame, value, campaign=campaign)
    ax = _axes(ax, figsize=(10, 3.6))
    image = ax.imshow(table.to_numpy(dtype=float), aspect="auto", cmap="viridis", interpolation="nearest")
    ax.set_yticks(np.arange(len(WEEKDAYS)), labels=list(WEEKDAYS))
    ax.set_xticks(np.arange(0, 24, 2), labels=[f"{h:02d}" for h in range(0, 24, 2)])
    ax.set_xlabel("hour (local time)")
    bar = ax.figure.colorbar(image, ax=ax)
    if value == "discount":
        money_axis(bar.ax.yaxis, currency)
    else:
        count_axis(bar.ax.yaxis)
    bar.set_label(value)
    ax.set_title(f"{value.capitalize()} by weekday and hour")
    return ax
