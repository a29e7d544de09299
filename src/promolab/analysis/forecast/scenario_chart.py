"""Scenarios compared as a chart: grouped bars of discount per campaign.

Deterministic like `analysis.plots`: scenarios in the order given, fixed
colours, campaigns sorted, the money axis in the currency.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..plots import money_axis

if TYPE_CHECKING:
    from .scenarios import ScenarioComparison

__all__ = ["plot_scenario_discounts"]

_COLORS = ("#3b6ea5", "#d08c2f", "#5a9e6f", "#a34f8c", "#7a7a7a")


def plot_scenario_discounts(comparison: ScenarioComparison, *, ax: Any = None, currency: str = "USD") -> Any:
    wide = comparison.campaigns()
    names = comparison.names
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 0.5 * len(wide) * len(names) + 1.5))
    positions = np.arange(len(wide))
    height = 0.8 / len(names)
    for k, name in enumerate(names):
        ax.barh(positions + k * height, wide[("discount", name)].to_numpy(dtype=float), height=height,
                color=_COLORS[k % len(_COLORS)], label=name)
    ax.set_yticks(positions + height * (len(names) - 1) / 2, labels=[str(c) for c in wide.index])
    ax.invert_yaxis()
    money_axis(ax.xaxis, currency)
    ax.set_xlabel("discount given")
    ax.set_title("Discount per campaign by scenario")
    ax.legend()
    ax.grid(axis="x", alpha=0.3)
    return ax
