"""What an order is offered, as a response model reads it.

One `Offers` holds parallel arrays, one entry per (order, incentive) pair
the caller asks about: the forecast builds them from its candidates, a fit
from a history's frames, the optimizer from each setting it tries. The
model never sees tiers or scenarios, only these numbers, so the same model
answers all three and is tested on plain arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["KINDS", "Offers", "depth_of"]

#: The incentive kinds a model tells apart (the engine's discount kinds);
#: "" is no incentive at all.
KINDS = ("AMOUNT", "PERCENT", "FIXED", "UNIT", "")


def depth_of(discount: np.ndarray, amount: np.ndarray) -> np.ndarray:
    """An offer's depth: its discount over the order's amount (0 where the
    amount is 0). The one rule the forecast, the optimizer and the widgets read."""
    discount = np.asarray(discount, dtype=np.float64)
    amount = np.asarray(amount, dtype=np.float64)
    out = np.zeros(len(discount), dtype=np.float64)
    np.divide(discount, amount, out=out, where=amount > 0)
    return np.maximum(out, 0.0)


@dataclass(frozen=True)
class Offers:
    """`depth`: the discount over the basket it applies to (0.15 for 15 %
    off, 5/40 for $5 off a $40 order), 0 where nothing is offered.
    `distance`: how far the basket is below the threshold the incentive
    needs, as a share of that threshold (0 when it qualifies or has none).
    `kind`: one of `KINDS`. `segment`: the customer's segment or cohort
    label ("" for none)."""

    depth: np.ndarray
    distance: np.ndarray
    kind: np.ndarray
    segment: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.depth)
        for name in ("distance", "kind", "segment"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"Offers.{name} has {len(getattr(self, name))} entries, depth has {n}")
        depth = np.asarray(self.depth, dtype=np.float64)
        distance = np.asarray(self.distance, dtype=np.float64)
        if n and not (np.isfinite(depth).all() and (depth >= 0).all()):
            raise ValueError("Offers.depth must be finite shares >= 0 (discount over basket)")
        if n and not (np.isfinite(distance).all() and ((distance >= 0) & (distance <= 1)).all()):
            raise ValueError("Offers.distance must be shares from 0 to 1 (how far below the threshold)")
        # pd.unique hashes: np.unique sorts objects, a second a million offers
        unknown = set(pd.unique(np.asarray(self.kind, dtype=object)).tolist()) - set(KINDS)
        if unknown:
            raise ValueError(f"Offers.kind must be one of {KINDS}; got {sorted(map(str, unknown))}")
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "distance", distance)
        object.__setattr__(self, "kind", np.asarray(self.kind, dtype=object))
        object.__setattr__(self, "segment", np.asarray(self.segment, dtype=object))

    def __len__(self) -> int:
        return len(self.depth)

    @property
    def offered(self) -> np.ndarray:
        """Where an incentive is offered at all (a kind and a depth)."""
        offered: np.ndarray = (self.kind != "") & (self.depth > 0)
        return offered
