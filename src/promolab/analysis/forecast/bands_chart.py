"""The fan chart of a forecast's bands: one panel per budget of everyone's total.

A single forecast line says when a budget runs out as if it were certain; the
band says how sure that is. Each panel draws the budget's running total per
day (restarting with its period for a daily / weekly / monthly budget) as the
P50 line in the P10-P90 band of the draws, and the limit as a dashed line:
where the band crosses it is the window in which the budget runs out in 80 %
of the draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...display import format_count, format_money
from ..plots import count_axis, label_text, money_axis

if TYPE_CHECKING:
    from .bands import ForecastBands

__all__ = ["plot_bands"]

_BAND_COLOR = "#4C72B0"
_LIMIT_COLOR = "#C44E52"


def plot_bands(bands: ForecastBands, *, names: Mapping[str, str] | None = None, currency: str = "USD",
               ax: Any = None) -> Any:
    """Draw the fan chart (`ax`: one Axes, or a sequence with one per budget;
    default a new figure). Returns the Figure; ValueError when no budget of
    everyone's total is forecast (per-customer budgets have no one running total)."""
    import matplotlib.pyplot as plt

    curves = bands.curves
    keys = list(dict.fromkeys(zip(curves["tier_id"].astype(str), curves["rule"].astype(str), strict=True)))
    if not keys:
        raise ValueError("no budget of everyone's total in this forecast: nothing to draw a fan of")
    if ax is None:
        fig, axes = plt.subplots(len(keys), 1, figsize=(8, 3 * len(keys)), squeeze=False, sharex=True)
        panels = list(axes[:, 0])
    else:
        panels = list(ax) if isinstance(ax, list | tuple) else [ax]
        if len(panels) != len(keys):
            raise ValueError(f"ax: {len(keys)} budgets to draw, {len(panels)} Axes given")
        fig = panels[0].figure
    labels = dict(names or {})
    for panel, (tier_id, rule) in zip(panels, keys, strict=True):
        rows = curves[(curves["tier_id"] == tier_id).to_numpy(dtype=bool) & (curves["rule"] == rule).to_numpy(dtype=bool)]
        days = rows["day"].dt.tz_localize(None).to_numpy()
        low, mid, high = (rows[c].astype("float64").to_numpy() for c in ("spent_p10", "spent_p50", "spent_p90"))
        panel.fill_between(days, low, high, step="post", color=_BAND_COLOR, alpha=0.25, label="P10-P90 of the draws")
        panel.plot(days, mid, drawstyle="steps-post", color=_BAND_COLOR, label="P50")
        measure = str(rows["measure"].iloc[0])
        limit = rows["limit"].iloc[0]
        if limit is not None and str(limit) != "<NA>":
            shown = format_count(int(limit)) if measure == "count" else format_money(int(limit), currency)
            panel.axhline(float(limit), color=_LIMIT_COLOR, linestyle="--", linewidth=1.2,
                          label=label_text(f"limit {shown}"))
        (count_axis if measure == "count" else lambda a: money_axis(a, currency))(panel.yaxis)
        period = rows["period"].iloc[0]
        each = f", per {str(period).removesuffix('ly').replace('dai', 'day')}" if str(period) != "<NA>" else ""
        panel.set_title(label_text(f"{labels.get(tier_id, tier_id)}: {rule}{each}"), fontsize=10)
        panel.legend(loc="upper left", fontsize=8)
    from matplotlib.dates import DateFormatter

    panels[-1].xaxis.set_major_formatter(DateFormatter("%d %b"))  # type: ignore[no-untyped-call]  # matplotlib.dates is unannotated
    panels[-1].set_xlabel(f"day ({bands.draws:,} draws, seed {bands.seed})")
    fig.tight_layout()
    return fig
