"""The what-if chart: deterministic matplotlib, no pyplot state.

Left: the discount every tier gives the built order (the what-if copy in
orange). Right: the tuned tier's campaign cost over the sample orders, before
and after the edit, with the share of orders reached on each bar.

Figures are built on a bare `Figure` (Agg canvas) so that redrawing from a
widget callback never touches the notebook's pyplot state; PNG bytes carry no
version or time metadata, so the same state gives the same bytes.
"""

from __future__ import annotations

import io
import math

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .controller import WhatIfResult

__all__ = ["DPI", "FIGSIZE", "figure_png", "whatif_figure"]

FIGSIZE = (10.0, 4.2)
DPI = 80
_BLUE = "#3b6ea5"
_ORANGE = "#e08a1e"
_GREY = "#9aa5b1"


def whatif_figure(result: WhatIfResult) -> Figure:
    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    # a fixed layout (no constrained/tight layout: they cost more than the analysis)
    left, right = fig.subplots(1, 2, width_ratios=[1.35, 1])
    fig.subplots_adjust(left=0.2, right=0.98, top=0.91, bottom=0.13, wspace=0.3)

    table = result.order_table
    labels = table["tier_id"].astype(str).tolist()
    values = (table["discount_amount"].astype("Float64").fillna(0).astype("float64") / 100).tolist()
    colours = [_ORANGE if w else (_BLUE if ok else _GREY) for w, ok in zip(table["whatif"], table["valid"], strict=True)]
    positions = list(range(len(labels)))
    left.barh(positions, values, color=colours)
    left.set_yticks(positions, labels=labels, fontsize=7)
    left.invert_yaxis()
    left.set_xlabel("discount on this order ($)")
    left.set_title("This order: discount by tier", fontsize=10)
    left.grid(axis="x", alpha=0.3)

    tiers = result.tier_table
    before, after = tiers.at["cost", "before"], tiers.at["cost", "after"]
    heights = [before / 100, 0.0 if math.isnan(after) else after / 100]
    bars = right.bar([0, 1], heights, color=[_BLUE, _ORANGE], width=0.6)
    right.set_xticks([0, 1], labels=["before", "after (what-if)"])
    right.set_ylabel("campaign cost ($)")
    right.set_title(f"{result.edit.tier_id} over {result.n_orders:,} orders", fontsize=10)
    shares = [tiers.at["share_reached", "before"], tiers.at["share_reached", "after"]]
    for bar, share in zip(bars, shares, strict=True):
        text = "n/a" if math.isnan(share) else f"reach {100 * share:.1f}%"
        right.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                       ha="center", va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
    top = max(heights + [1.0])
    right.set_ylim(0, top * 1.15)
    right.grid(axis="y", alpha=0.3)
    return fig


def figure_png(fig: Figure) -> bytes:
    """PNG bytes of a figure, without metadata (same figure -> same bytes)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()
