"""What the shadow-run tests share: the planted perturbation and the real side's seed."""

from __future__ import annotations

import copy
from typing import Any

#: The seed of the served "real" side (the demo scenario's own is 7).
REAL_SEED = 99


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
