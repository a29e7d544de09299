"""The policy comparison as a chart: one bar per policy, in the order compared.

Follows `analysis.plots`: deterministic (fixed colour, policies in the order
given), the money axis in the currency (`plots.money_axis`), labels through
`display.format_money` so the bars say what the summary table says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...display import format_money, format_share
from ..plots import money_axis

if TYPE_CHECKING:
    from .comparison import StackingComparison

__all__ = ["plot_policy_discounts"]

_COLOR = "#3b6ea5"


def plot_policy_discounts(
    comparison: StackingComparison, *, stat: str = "sum", ax: Any = None, currency: str | None = None
) -> Any:
    """Bar per policy of the discount given away: `stat` = "sum" (the total,
    default) or "mean" (per order); each bar labelled with its amount and the
    share of orders valid under the policy, in `currency` (default the
    comparison's: the simulator's, as its summary reads). Returns the Axes."""
    if stat not in ("sum", "mean"):
        raise ValueError("stat must be 'sum' or 'mean'")
    currency = currency or comparison.currency
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 0.6 * len(comparison.policies) + 1.5))
    summary = comparison.summary()
    values = summary["total_discount"].astype("float64") if stat == "sum" else summary["mean_discount"]
    values = values.fillna(0.0).to_numpy()
    positions = np.arange(len(summary))
    ax.barh(positions, values, color=_COLOR)
    ax.set_yticks(positions, labels=[str(p) for p in summary["policy"]])
    ax.invert_yaxis()
    money_axis(ax.xaxis, currency)
    widest = float(values.max()) if values.size else 0.0
    ax.set_xlim(0, max(widest, 100.0) * 1.4)  # room for the labels
    for position, value, share in zip(positions, values, summary["share_valid"].to_numpy(), strict=True):
        label = f"{format_money(round(value), currency)}, {format_share(share)} valid"
        ax.annotate(label, (value, position), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize="small", color="#444444")
    ax.set_xlabel("total discount" if stat == "sum" else "average discount per order")
    ax.set_title("Discount by stacking policy")
    ax.grid(axis="x", alpha=0.3)
    return ax
