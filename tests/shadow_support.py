"""What the shadow-run tests share: the real side's seed, an in-process
stand-in for the real service, and the planted perturbation."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from promolab import Simulator
from promolab.http import SimulatorTransport
from promolab.shadow import Target
from promolab.shadow.sides import keys_of

#: The seed of the "real" side (the demo scenario's own is 7): every id it
#: generates differs from the simulator's, so the id pairing is exercised.
REAL_SEED = 99


def stand_in(scenario: Path | str | dict[str, Any]) -> Target:
    """A target answered in-process by the scenario's simulator under
    `REAL_SEED`, whose clock the shadow run drives (as a served one's)."""
    real = Simulator.from_scenario(scenario, seed=REAL_SEED)
    return Target("http://real.example", keys_of(real), transport=SimulatorTransport(real), drive_clock=True)


def perturb(document: dict[str, Any]) -> dict[str, Any]:
    """The demo scenario with the three planted differences:

    1. the VIP tier `promo_vip_10pct` gives 12% off, not 10%;
    2. the mug reward (`lrewa_mug`) costs 450 points, not 500;
    3. customer Frank (`cust_frank`) is missing (with his membership and
       segment entry, which would otherwise name an unknown customer).
    """
    changed = copy.deepcopy(document)
    for campaign in changed["campaigns"]:
        for tier in campaign.get("tiers") or []:
            if tier["id"] == "promo_vip_10pct":
                tier["discount"]["percent_off"] = 12
    for program in changed["loyalty"]["programs"]:
        for reward in program.get("rewards", []):
            if reward["id"] == "lrewa_mug":
                reward["costs"][0]["points"] = 450
        program["members"] = [m for m in program.get("members", []) if m.get("customer") != "cust_frank"]
    changed["customers"] = [c for c in changed["customers"] if c["id"] != "cust_frank"]
    for segment in changed["segments"]:
        segment["customers"] = [c for c in segment["customers"] if c != "cust_frank"]
    return changed
