"""What a forecast offers each order, as a response model reads it.

Two readers of the same facts, so the walk and the reports never disagree
on what an order was offered:

- `candidate_chances`: before the walk, per (order, candidate tier) the
  model's chance to redeem (what `CostModel(response=...)` puts in
  `Rates.offer`), from what the sweep found: each watched tier's discount,
  and the best plain tier's (the sweep keeps only that one; a plain tier
  other than the best is read at the best one's depth, an upper bound since
  the model is monotone in depth, and only a stack reads it).
- `won_offers`: after a forecast in which everyone redeems what they qualify
  for (`CostModel()` or `response=NO_RESPONSE`), the offer of the tier each
  order won (`discount / amount`, the tier's kind, the order's segment).

Distance to a threshold is 0 in both: a tier an order wins qualifies it,
and the sweep exposes no tier's minimum-amount threshold to measure a
shortfall against (its rules are compiled into masks, not bounds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .model import ResponseModel
from .offers import KINDS, Offers, depth_of

if TYPE_CHECKING:
    from ...engine import CompiledTier
    from ...sim import Simulator
    from ..forecast.candidates import Candidates
    from ..forecast.result import ForecastResult

__all__ = ["candidate_chances", "tier_kinds", "won_offers"]


def candidate_chances(model: ResponseModel, tiers: Sequence[CompiledTier], found: Candidates,
                      segment: np.ndarray) -> np.ndarray:
    """Per order, per candidate position: the model's chance to redeem that
    tier's offer (see the module's docstring). `segment`: per order its label."""
    n, count = len(found.amount), len(tiers)
    plain = found.plain_positions.tolist() if found.plain_positions is not None else []
    watched = [p for p in range(count) if p not in set(plain)]  # the sweep's watched columns, in position order
    chances = np.zeros((n, count), dtype=np.float64)
    zeros = np.zeros(n, dtype=np.float64)
    for position, tier in enumerate(tiers):
        if position in watched:
            given = found.watched_discount[:, watched.index(position)]
        else:
            given = found.plain_discount
        kind = tier.kind if tier.kind in KINDS else ""
        offers = Offers(depth_of(given, found.amount), zeros, np.full(n, kind, dtype=object), segment)
        chances[:, position] = model.redeem_probability(offers)
    return chances


def tier_kinds(sim: Simulator) -> dict[str, str]:
    """Each active tier's discount kind by id (what `won_offers` labels offers with)."""
    from ...sim import pricing_view
    from ..sweep.api import select_tiers

    return {t.id: t.kind for t in select_tiers(pricing_view(sim))}


def won_offers(result: ForecastResult, kinds: Mapping[str, str], segment_column: str | None = None) -> Offers:
    """Per row of `result.orders`, the offer of the tier it won (kind "" for
    an order that qualified for none). Under "stack" the offer is the whole
    stack's discount, labelled with the first tier's kind.

    Raises ValueError when an order qualified and did not redeem (its
    discount is not in the frame: split a forecast run with everyone
    redeeming), when a tier has no kind in `kinds`, or when the segment
    column is missing."""
    orders = result.orders
    qualified = orders["qualified_tier_id"].notna().to_numpy()
    redeemed = orders["redeemed"].to_numpy(dtype=bool)
    short = qualified & ~redeemed
    if short.any():
        raise ValueError(f"{int(short.sum())} orders qualified for a tier and did not redeem it, so the discount "
                         "they were offered is not known: read the offers of a forecast in which every qualifying "
                         "order redeems (CostModel() or CostModel(response=NO_RESPONSE))")
    tier = orders["tier_id"].astype(object).where(orders["tier_id"].notna(), None).to_numpy()
    missing = sorted({t for t in tier[redeemed] if t not in kinds})
    if missing:
        raise ValueError(f"kinds has no kind for tier {', '.join(missing)} (tier_kinds(sim) lists them)")
    unknown = sorted({kinds[t] for t in set(tier[redeemed])} - set(KINDS))
    if unknown:
        raise ValueError(f"kinds must be among {KINDS}; got {unknown}")
    kind = np.array([kinds[t] if r else "" for t, r in zip(tier, redeemed, strict=True)], dtype=object)
    if segment_column is not None and segment_column not in orders.columns:
        raise ValueError(f"segment_column {segment_column!r} is not a column of the forecast's orders")
    segment = (orders[segment_column].astype(object).fillna("").astype(str).to_numpy(dtype=object)
               if segment_column is not None else np.full(len(orders), "", dtype=object))
    depth = np.where(redeemed, depth_of(orders["discount"].to_numpy(), orders["amount"].to_numpy()), 0.0)
    return Offers(depth, np.zeros(len(orders)), kind, segment)


def frame_cents(values: pd.Series) -> np.ndarray:
    """An Int64 cents column as floats, NA as 0 (a cost of goods not given is none)."""
    cents: np.ndarray = values.astype("Float64").fillna(0).to_numpy(dtype=np.float64)
    return cents
