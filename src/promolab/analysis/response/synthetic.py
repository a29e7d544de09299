"""Synthetic histories drawn from a known `ResponseModel`: what the fit is tested on.

A fit that recovers the coefficients it was generated from, inside its
intervals as often as they claim, is the only check that its numbers mean
what they say; real histories have no known truth. Seeded numpy, so the
same seed gives the same frames.

- offers: `n_offers` offered orders, depth uniform in `depths`, a kind and a
  segment drawn uniformly from the ones given, a share `below` of them
  short of a threshold (distance uniform up to `max_distance`), redeemed
  with the model's chance;
- counts: `units` x `periods` order counts, each unit a base rate around
  `base_orders`, offered depth 0 in half the periods and uniform in
  `depths` in the others, Poisson with mean `base * order_lift`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .fit import response_frame
from .model import ResponseModel
from .offers import Offers

__all__ = ["SyntheticHistory", "SyntheticSettings", "synthetic_history"]


@dataclass(frozen=True)
class SyntheticSettings:
    """The shape of a synthetic history (see the module's docstring)."""

    n_offers: int = 4_000
    kinds: tuple[str, ...] = ("AMOUNT", "PERCENT", "UNIT")
    segments: tuple[str, ...] = ("", "gold")
    depths: tuple[float, float] = (0.02, 0.4)
    below: float = 0.3
    max_distance: float = 0.4
    units: int = 20
    periods: int = 30
    base_orders: float = 5.0


@dataclass(frozen=True)
class SyntheticHistory:
    """The two frames `fit_response` reads (`OFFER_COLUMNS`, `COUNT_COLUMNS`)."""

    offers: pd.DataFrame
    counts: pd.DataFrame


def synthetic_history(model: ResponseModel, seed: int, settings: SyntheticSettings | None = None) -> SyntheticHistory:
    """Draw a history from `model` (see the module's docstring)."""
    s = settings or SyntheticSettings()
    rng = np.random.default_rng(seed)
    n = s.n_offers
    depth = rng.uniform(*s.depths, n)
    distance = np.where(rng.random(n) < s.below, rng.uniform(0.0, s.max_distance, n), 0.0)
    kind = np.asarray(s.kinds, dtype=object)[rng.integers(0, len(s.kinds), n)]
    segment = np.asarray(s.segments, dtype=object)[rng.integers(0, len(s.segments), n)]
    offers = Offers(depth, distance, kind, segment)
    redeemed = rng.random(n) < model.redeem_probability(offers)
    cells = s.units * s.periods
    unit = np.repeat(np.arange(s.units), s.periods)
    base = s.base_orders * np.exp(rng.normal(0.0, 0.3, s.units))[unit]
    offered_depth = np.where(rng.random(cells) < 0.5, 0.0, rng.uniform(*s.depths, cells))
    lift = model.order_lift(Offers(offered_depth, np.zeros(cells), np.full(cells, "PERCENT", dtype=object),
                                   np.full(cells, "", dtype=object)))
    counts = pd.DataFrame({"unit": [f"u{u}" for u in unit], "period": np.tile(np.arange(s.periods), s.units),
                           "depth": offered_depth, "orders": rng.poisson(base * lift)})
    return SyntheticHistory(response_frame(offers, redeemed), counts)
