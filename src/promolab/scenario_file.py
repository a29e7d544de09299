"""Opening a scenario file for the command line: its simulator and its currency.

The subcommands (`promolab validate`, `sweep`, `replay`) all start here, and
so does the what-if notebook `promolab dashboard` serves (the currency is what
its `WhatIfController(..., currency=...)` shows money in). It
lives below them rather than in `promolab.cli`: the sweep and replay commands
(`promolab.analysis.cli`, `promolab.replay.cli`) need it, and `promolab.cli`
imports them, so it must import nothing of theirs (nor they anything of it).
It needs the core simulator only (`promolab.sim`), not the in-process client
wiring of `promolab.Simulator`.
"""

from __future__ import annotations

from pathlib import Path

from .sim import Simulator

__all__ = ["open_scenario"]


def open_scenario(path: Path) -> tuple[Simulator, str]:
    """The simulator of a scenario file, and its currency for text (`project.currency`,
    which the simulator keeps beside its state: `Simulator.currency`). Raises
    `ScenarioError` like `Simulator.from_scenario`.
    """
    sim = Simulator.from_scenario(path)
    return sim, sim.currency
