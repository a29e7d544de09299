"""Webhook delivery attempts as a chart people can count.

A retrying receiver makes attempts seconds or minutes apart (1, 2, 4, 8, ...
minutes after a failure), and on an axis of a whole day dozens of them fall on
the same few pixels: a scatter of every attempt shows a handful of markers for
many times as many attempts. So the attempts of each webhook and outcome are
counted per time slot (`slot`: chosen from the time the attempts span when not
given) and drawn as one marker per slot, sized by its count and labelled with
it ("×10"): every attempt is counted once, at the slot's first attempt.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..display import format_count

__all__ = ["delivery_slots", "plot_delivery_attempts"]

_MARKERS = {"delivered": "o", "failed": "X", "timeout": "s", "error": "^"}
_COLORS = {"delivered": "#3b6ea5", "failed": "#b03a2e", "timeout": "#d08c2f", "error": "#7a7a7a"}
#: slot widths to choose from, in minutes
_NICE_MINUTES = (1, 2, 5, 10, 15, 30, 60, 120, 240)
#: about this many slots over the time drawn: a count label ("×10") is about a
#: slot wide on a chart of ordinary width
_SLOTS_PER_SPAN = 24


def _slot(attempted_at: pd.Series, drawn_minutes: float = 0.0) -> pd.Timedelta:
    """A slot width for the attempts, from the span they cover or the span drawn
    (an axis shared with other panels of a longer day), whichever is longer."""
    span = (attempted_at.max() - attempted_at.min()) / pd.Timedelta(minutes=1) if len(attempted_at) else 0.0
    wanted = max(span, drawn_minutes) / _SLOTS_PER_SPAN
    return pd.Timedelta(minutes=next((m for m in _NICE_MINUTES if m >= wanted), _NICE_MINUTES[-1]))


def delivery_slots(deliveries: pd.DataFrame, slot: pd.Timedelta | str | None = None) -> pd.DataFrame:
    """Per webhook, outcome and time slot: `first_at` (the slot's first attempt)
    and `attempts` (how many), sorted by webhook, outcome and time. The counts
    add up to the attempts in `deliveries` (`webhook_id`, `attempted_at`,
    `outcome`); `slot` None: about 1/24 of the span the attempts cover."""
    for column in ("webhook_id", "attempted_at", "outcome"):
        if column not in deliveries.columns:
            raise KeyError(f"deliveries need a {column!r} column (ReplayResult.deliveries has it)")
    width = _slot(deliveries["attempted_at"]) if slot is None else pd.Timedelta(slot)
    if width <= pd.Timedelta(0):
        raise ValueError(f"slot must be a positive duration, got {slot!r}")
    frame = pd.DataFrame({
        "webhook_id": deliveries["webhook_id"].astype(str).to_numpy(),
        "outcome": deliveries["outcome"].astype(str).to_numpy(),
        "attempted_at": deliveries["attempted_at"].to_numpy(),
    })
    frame["slot"] = deliveries["attempted_at"].dt.floor(width).to_numpy()
    grouped = frame.groupby(["webhook_id", "outcome", "slot"], sort=True)["attempted_at"]
    out = grouped.agg(first_at="min", attempts="size").reset_index()
    return out[["webhook_id", "outcome", "first_at", "attempts"]]


def plot_delivery_attempts(deliveries: pd.DataFrame, *, slot: pd.Timedelta | str | None = None,
                           ax: Any = None) -> Any:
    """One row per webhook (sorted), one marker per outcome and time slot, its
    size and its label the number of attempts in it. Returns the Axes."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(10, 2.4))
    if slot is None:  # an axis shared with panels of a longer time: slots sized to what is drawn
        low, high = ax.get_xlim()
        shared = ax.get_shared_x_axes().get_siblings(ax)  # panels above it (sharex=True) drew the day
        drawn = (high - low) * 24 * 60 if any(a.has_data() for a in shared) else 0.0  # dates count days
        slot = _slot(deliveries["attempted_at"], drawn)
    slots = delivery_slots(deliveries, slot)
    hooks = sorted(slots["webhook_id"].unique())
    for (hook, outcome), rows in slots.groupby(["webhook_id", "outcome"], sort=True):
        y = hooks.index(str(hook))
        counts = rows["attempts"].to_numpy()
        ax.scatter(rows["first_at"].to_numpy(), np.full(len(rows), y), s=30 * np.sqrt(counts),
                   marker=_MARKERS.get(str(outcome), "o"), color=_COLORS.get(str(outcome), "#444444"),
                   label=f"{hook}: {outcome}", zorder=3)
        for when, n in zip(rows["first_at"], counts, strict=True):
            if n > 1:
                ax.annotate(f"×{format_count(n)}", (when.to_datetime64(), y), xytext=(0, 8),
                            textcoords="offset points", ha="center", va="bottom", fontsize="small",
                            gid="attempt-count")
    ax.set_yticks(range(len(hooks)), labels=hooks)
    ax.set_ylim(-0.6, len(hooks) - 0.2)
    minutes = int(pd.Timedelta(slot) / pd.Timedelta(minutes=1))
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5),  # beside: no marker hidden
              title=f"×n: attempts within {minutes} min", title_fontsize="small")
    ax.set_title(f"Webhook delivery attempts ({format_count(len(deliveries))} in all)")
    return ax
