"""Scenarios compared as a chart: grouped bars of discount per campaign.

Deterministic like `analysis.plots`: scenarios in the order given, fixed
colours, campaigns sorted, the money axis in the currency, campaigns by name.

A proposal usually moves each campaign by a few percent: side by side, two
bars of $300,000 and $318,000 look the same. So every bar of a later scenario
says its difference from the first (`+$18,000.00 (+5.9%)`), and
`difference=True` draws the differences themselves (later scenario minus the
first, per campaign), on an axis of their own size. A campaign without a bar
says so ("no discount under any scenario").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...display import format_money, format_share
from ..plots import label_text, money_axis

if TYPE_CHECKING:
    from .scenarios import ScenarioComparison

__all__ = ["change_label", "plot_scenario_discounts"]

_COLORS = ("#3b6ea5", "#d08c2f", "#5a9e6f", "#a34f8c", "#7a7a7a")


def change_label(before: int, after: int, currency: str) -> str:
    """`after` against `before`: the signed amount and, when `before` is not 0, the
    signed percentage (`+$18,000.00 (+5.9%)`); "no change" when equal."""
    if after == before:
        return "no change"
    text = format_money(after - before, currency, signed=True)
    if before:
        share = (after - before) / before
        text += f" ({'+' if share > 0 else '-'}{format_share(abs(share))})"
    return text


def plot_scenario_discounts(comparison: ScenarioComparison, *, ax: Any = None, currency: str = "USD",
                            difference: bool = False) -> Any:
    """Discount per campaign under each scenario, each later bar with its change
    from the first scenario; `difference=True`: the changes as bars. Returns the Axes."""
    wide = comparison.campaigns()
    names = comparison.names
    shown = names[1:] if difference else names
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(9, 0.45 * len(wide) * len(shown) + 1.6))
    labels = {k: v for r in comparison.results.values() for k, v in r.names.items()}
    base = wide[("discount", names[0])].to_numpy(dtype=np.int64)
    positions = np.arange(len(wide))
    height = 0.8 / len(shown)
    widest = 0.0
    for k, name in enumerate(shown):
        values = wide[("discount", name)].to_numpy(dtype=np.int64)
        lengths = (values - base) if difference else values
        color = _COLORS[(k + 1 if difference else k) % len(_COLORS)]
        ax.barh(positions + k * height, lengths.astype(float), height=height, color=color, label=name)
        widest = max(widest, float(np.abs(lengths).max(initial=0)))
        for position, before, after, length in zip(positions + k * height, base, values, lengths, strict=True):
            if name == names[0]:
                text = format_money(int(after), currency) if after else ""
            else:
                text = change_label(int(before), int(after), currency)
            if text:
                ax.annotate(label_text(text), (float(max(length, 0)), position), xytext=(3, 0),
                            textcoords="offset points", va="center", fontsize="small", color="#444444",
                            gid="change" if name != names[0] else "amount")
    everywhere_zero = (wide.xs("discount", axis=1, level=0).to_numpy() == 0).all(axis=1)
    for position in positions[everywhere_zero]:
        ax.annotate("no discount under any scenario", (0, position + height * (len(shown) - 1) / 2), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize="small", color="#888888", gid="empty-row")
    ax.set_yticks(positions + height * (len(shown) - 1) / 2,
                  labels=[label_text(labels.get(str(c), str(c))) for c in wide.index])
    ax.invert_yaxis()
    money_axis(ax.xaxis, currency)
    ax.xaxis.get_major_locator().set_params(nbins=5)  # wide amounts ($700,000): fewer ticks, none overlapping
    low = min(0.0, ax.get_xlim()[0])
    ax.set_xlim(low, max(widest, 100.0) * 1.4)  # room for the changes written after the bars
    if difference:
        ax.axvline(0, color="#444444", linewidth=0.8)
        ax.set_xlabel(f"discount given, change from {names[0]}")
        ax.set_title(f"What each scenario changes against {names[0]}, per campaign")
    else:
        ax.set_xlabel(f"discount given (after a bar: its change from {names[0]})")
        ax.set_title("Discount per campaign by scenario")
    ax.legend(loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    return ax
