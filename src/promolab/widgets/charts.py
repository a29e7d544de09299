"""The what-if chart: deterministic matplotlib, no pyplot state.

Left: the discount every tier gives the built order (the what-if copy in
orange, tiers that do not apply in pale labels; one that applies with no
money off, free shipping, says so as the analysis charts do: `plots.bar_note`). Right: the tuned tier's campaign cost
over the sample orders, before and after the edit, with the share and number
of orders reached on each bar. Money axes and amounts in the currency the
result carries (`WhatIfResult.currency`; a comparison frame's, for the
variants chart), with separators (`display.money_tick_formatter`), labels
sized to be read at 100% zoom: the image is shown at its own pixel size
(DPI), so points here are screen points.

Figures are built on a bare `Figure` (Agg canvas) so that redrawing from a
widget callback never touches the notebook's pyplot state; PNG bytes carry no
version or time metadata, so the same state gives the same bytes.
"""

from __future__ import annotations

import io

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..analysis.plots import bar_note, label_text, money_axis
from ..display import format_count, format_money, format_share
from .controller import WhatIfResult
from .state import WHATIF_SUFFIX
from .variants import CURRENT, comparison_currency

__all__ = ["DPI", "FIGSIZE", "FONT_SIZE", "SCALE", "figure_png", "variants_figure", "whatif_figure"]

#: inches; at DPI 96 the chart is shown 960 x 442 px (1 pt = 1.33 px)
FIGSIZE = (10.0, 4.6)
DPI = 96
#: the PNG holds SCALE x the pixels it is shown at (1920 x 884): sharp on a
#: high-density screen or a slide, where a 96 dpi image turns soft
SCALE = 2
#: points for tick labels and annotations (12 px on screen); titles get one more
FONT_SIZE = 9.0
_BLUE = "#3b6ea5"
_ORANGE = "#e08a1e"
_GREY = "#9aa5b1"
_PALE_ORANGE = "#f0c48a"


def whatif_figure(result: WhatIfResult) -> Figure:
    """The chart of a result, on a bare Figure (no pyplot state: safe from a
    widget callback), money in the result's currency."""
    currency = result.currency
    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    # a fixed layout (no constrained/tight layout: they cost more than the analysis)
    left, right = fig.subplots(1, 2, width_ratios=[1.35, 1])
    fig.subplots_adjust(left=0.25, right=0.985, top=0.88, bottom=0.12, wspace=0.32)

    table = result.order_table
    labels = [label_text(_short(f"{name}{WHATIF_SUFFIX}" if w else str(name)))
              for name, w in zip(table["tier_name"].fillna(table["tier_id"]), table["whatif"], strict=True)]
    amounts = table["discount_amount"].astype("Float64").fillna(0).astype("float64").tolist()
    valid = [bool(v) for v in table["valid"]]
    whatif = [bool(w) for w in table["whatif"]]
    colours = [_ORANGE if w else (_BLUE if ok else _GREY) for w, ok in zip(whatif, valid, strict=True)]
    positions = list(range(len(labels)))
    left.barh(positions, amounts, color=colours)
    left.set_yticks(positions, labels=labels, fontsize=FONT_SIZE)
    for tick, ok, w in zip(left.get_yticklabels(), valid, whatif, strict=True):
        tick.set_color((_ORANGE if ok else _PALE_ORANGE) if w else ("black" if ok else _GREY))
    left.invert_yaxis()
    widest = max(amounts + [100.0])  # at least 100 minor units of axis on an empty order
    left.set_xlim(0, widest * 1.22)  # room for the amounts written after the bars
    for position, amount, ok in zip(positions, amounts, valid, strict=True):
        if ok:  # a tier that applies with no bar (free shipping) says why, as the analysis charts do
            note = format_money(amount, currency) if amount > 0 else bar_note(1, amount)
            left.annotate(note, (amount, position), xytext=(3, 0), textcoords="offset points", va="center",
                          fontsize=FONT_SIZE - 1, color="black" if amount > 0 else "#666666")
    money_axis(left.xaxis, currency)
    left.tick_params(axis="x", labelsize=FONT_SIZE)
    left.set_xlabel("discount on this order (pale: the tier does not apply)", fontsize=FONT_SIZE)
    left.set_title("This order: discount by tier", fontsize=FONT_SIZE + 2)
    left.grid(axis="x", alpha=0.3)

    tiers = result.tier_table
    before, after = tiers.at["before", "cost"], tiers.at["after", "cost"]
    heights = [0.0 if pd.isna(v) else float(v) for v in (before, after)]
    bars = right.bar([0, 1], heights, color=[_BLUE, _ORANGE], width=0.6)
    right.set_xticks([0, 1], labels=["before", "after (what-if)"], fontsize=FONT_SIZE)
    money_axis(right.yaxis, currency)
    right.tick_params(axis="y", labelsize=FONT_SIZE)
    right.set_ylabel("campaign cost", fontsize=FONT_SIZE)
    right.set_title(label_text(f"{_short(_tier_name(result), 34)}\nover {format_count(result.n_orders)} orders"),
                    fontsize=FONT_SIZE + 2)
    for bar, column in zip(bars, ("before", "after"), strict=True):
        share, reached = tiers.at[column, "share_reached"], tiers.at[column, "orders_reached"]
        text = ("not evaluated" if pd.isna(share)
                else f"reach {format_share(share)}\n{bar_note(int(reached), bar.get_height())}")
        right.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                       va="bottom", fontsize=FONT_SIZE - 1, xytext=(0, 2), textcoords="offset points")
    top = max(heights + [100.0])
    right.set_ylim(0, top * 1.25)
    right.grid(axis="y", alpha=0.3)
    return fig


def _short(name: str, width: int = 36) -> str:
    """A tier's name cut to fit the label column (a name is a sentence: "15% off
    beans (max $15 a line, $30 an order)"), with an ellipsis where cut."""
    return name if len(name) <= width else name[: width - 1].rstrip() + "…"


def _tier_name(result: WhatIfResult) -> str:
    """The tuned tier's name in the scenario (its id when the order table does not list it)."""
    rows = result.order_table[result.order_table["tier_id"] == result.edit.tier_id]
    return str(rows["tier_name"].iloc[0]) if len(rows) and not pd.isna(rows["tier_name"].iloc[0]) else result.edit.tier_id


def variants_figure(comparison: pd.DataFrame) -> Figure:
    """Cost per variant of a `compare_variants` frame (either form: `cost` over
    the sample orders, `discount` over dated orders), the current scenario in
    blue, variants in orange, each bar with its amount and its difference, in
    the frame's currency (`variants.comparison_currency`)."""
    currency = comparison_currency(comparison)
    money = "cost" if "cost" in comparison.columns else "discount"
    change = f"{money}_change"
    fig = Figure(figsize=(FIGSIZE[0], max(2.2, 0.9 + 0.42 * len(comparison))), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    fig.subplots_adjust(left=0.3, right=0.97, top=0.86, bottom=0.2)
    current = (comparison["variant"] == CURRENT).tolist()
    tiers = comparison["tier_id"].astype(object).tolist()
    several = len({t for t in tiers if isinstance(t, str)}) > 1
    labels = [label_text(f"{v} ({t})" if several and isinstance(t, str) else str(v))
              for v, t in zip(comparison["variant"], tiers, strict=True)]
    amounts = [float(v) for v in comparison[money]]
    positions = list(range(len(labels)))
    ax.barh(positions, amounts, color=[_BLUE if c else _ORANGE for c in current])
    ax.set_yticks(positions, labels=labels, fontsize=FONT_SIZE)
    ax.invert_yaxis()
    ax.set_xlim(0, max(amounts + [100.0]) * 1.35)  # room for the amounts after the bars
    for position, amount, delta, is_current in zip(positions, amounts, comparison[change], current, strict=True):
        text = format_money(amount, currency) + ("" if is_current else f" ({format_money(delta, currency, signed=True)})")
        ax.annotate(label_text(text), (amount, position), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize=FONT_SIZE - 1)
    money_axis(ax.xaxis, currency)
    ax.tick_params(axis="x", labelsize=FONT_SIZE)
    ax.set_xlabel("campaign cost (in brackets: against the current scenario)" if money == "cost"
                  else "discount given over the dated orders (in brackets: against the current scenario)",
                  fontsize=FONT_SIZE)
    ax.set_title("Variants: cost against the current scenario", fontsize=FONT_SIZE + 2)
    ax.grid(axis="x", alpha=0.3)
    return fig


def figure_png(fig: Figure) -> bytes:
    """PNG bytes of a figure at `SCALE` x its on-screen size (the views set the
    display width), without metadata (same figure -> same bytes)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI * SCALE, metadata={"Software": None})
    return buffer.getvalue()
