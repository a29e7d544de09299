"""The names of a scenario's tiers and campaigns, for labels a person reads.

Frames key rows by id (stable, unique); charts and captions say the name the
shop gave (`"VIP 10% off the order (max $50)"`), which is what a reader of a
slide knows. Apart from the charts so that the forecast can keep the names
without importing matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..sim.simulator import Simulator

__all__ = ["scenario_names"]


def scenario_names(sim: Simulator) -> dict[str, str]:
    """Every tier's and campaign's id -> its name in the scenario (ids without
    a name are left out: a label falls back to the id)."""
    state = sim.state
    names = {c.id: c.name for c in state.campaigns.values() if c.name}
    names.update({t.id: t.name for t in state.tiers.values() if t.name})
    return names
