"""What a forecast's redemptions cost: who redeems, the goods given away, shipping.

A sweep assumes every order that qualifies redeems, and prices free shipping
at $0. A `CostModel` says instead:

- `redemption_rate`: the chance an order that qualifies for a tier redeems
  it: one rate, or one per tier id / campaign id (`default_rate` for the
  others), times `cohort_rates` factors per value of an order column
  (`{"channel": {"app": 1.0, "store": 0.4}}`). Each order's draw is a
  keyed hash of its id (`seed`): the same orders redeem on every run and
  in every scenario compared, so a difference is the scenarios', not luck's.
- `cost_of_goods`: cents per unit per product or SKU id (or one share of
  the price for all), so a discount is also seen as margin given away.
- `shipping_cost`: what a free-shipping tier costs per order (`sweep_costs`).
- `response`: a `ResponseModel` (analysis.response): the chance an order
  redeems the tier it wins is then the model's chance for that offer (its
  discount over the order's amount, the tier's kind, the order's segment
  from the `segment_column` the user names), times the cohort factors, in
  place of the flat `redemption_rate`. None: the flat rates (today's).
  The tier an order wins always qualifies, so the offer's distance to a
  threshold is 0 here. Under "stack" a plain tier other than the order's
  best plain one is read at the best one's depth (the sweep keeps only
  that discount; the model is monotone, so it is an upper bound); a fixed
  set of codes or campaigns is refused (its discounts are priced during
  the walk, not known before it). `sweep_costs` reads the flat rates only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...engine import SHIPPING_PRODUCT, CompiledTier
from ..response.forecast_offers import candidate_chances
from ..response.model import ResponseModel
from ..sweep import OrderBatch
from .spending import Rates

if TYPE_CHECKING:
    from .candidates import Candidates
    from .facts import OrderFacts
    from .fixed_set import FixedCampaign, FixedCode

__all__ = ["CostModel", "is_free_shipping"]


def _rate(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"{what} must be a number between 0 and 1, got {value!r}")
    return float(value)


def is_free_shipping(tier: CompiledTier) -> bool:
    """A UNIT tier giving the service's shipping "product"."""
    discount = tier.spec.discount or {}
    units = [discount, *(discount.get("units") or [])]
    return tier.kind == "UNIT" and any(u.get("unit_type") == SHIPPING_PRODUCT.id for u in units if isinstance(u, Mapping))


@dataclass(frozen=True)
class CostModel:
    redemption_rate: float | Mapping[str, float] = 1.0
    default_rate: float = 1.0
    cohort_rates: Mapping[str, Mapping[Any, float]] = field(default_factory=dict)
    cost_of_goods: Mapping[str, int] | float | None = None
    shipping_cost: int = 0
    seed: int = 0
    response: ResponseModel | None = None
    #: the per-order column holding each order's segment (the model's `segment` keys); None: no segments
    segment_column: str | None = None

    def __post_init__(self) -> None:
        if self.response is not None and not isinstance(self.response, ResponseModel):
            raise TypeError(f"response must be a ResponseModel or None, got {type(self.response).__name__}")
        if self.segment_column is not None and (not isinstance(self.segment_column, str) or not self.segment_column):
            raise ValueError(f"segment_column must be a column name or None, got {self.segment_column!r}")
        rates = self.redemption_rate
        if isinstance(rates, Mapping):
            for key, value in rates.items():
                _rate(value, f"redemption_rate[{key!r}]")
        else:
            _rate(rates, "redemption_rate")
        _rate(self.default_rate, "default_rate")
        for column, table in self.cohort_rates.items():
            if not isinstance(table, Mapping):
                raise TypeError(f"cohort_rates[{column!r}] must map values to rates")
            for value, rate in table.items():
                _rate(rate, f"cohort_rates[{column!r}][{value!r}]")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 10**16:
            raise ValueError(f"seed must be a whole number from 0 to 10**16 - 1, got {self.seed!r}")
        if isinstance(self.shipping_cost, bool) or not isinstance(self.shipping_cost, int) or self.shipping_cost < 0:
            raise ValueError(f"shipping_cost must be whole cents >= 0, got {self.shipping_cost!r}")
        goods = self.cost_of_goods
        if isinstance(goods, Mapping):
            for key, cents in goods.items():
                if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
                    raise ValueError(f"cost_of_goods[{key!r}] must be whole cents >= 0, got {cents!r}")
        elif goods is not None:
            _rate(goods, "cost_of_goods (a share of the price)")

    def check(self, facts: OrderFacts) -> None:
        """Refuse a cohort or segment column the orders do not have, before anything is computed."""
        named = [("cohort_rates", column) for column in self.cohort_rates]
        if self.segment_column is not None:
            named.append(("segment_column", self.segment_column))
        for setting, column in named:
            if column not in facts.columns:
                raise ValueError(f"{setting} names column {column!r}, which the orders do not have "
                                 f"(per-order columns: {', '.join(sorted(facts.columns))})")

    def tier_rate(self, tier_id: str, campaign_id: str) -> float:
        """The rate of a tier: its own, else its campaign's, else `default_rate`."""
        rates = self.redemption_rate
        if not isinstance(rates, Mapping):
            return float(rates)
        for key in (tier_id, campaign_id):
            if key in rates:
                return float(rates[key])
        return self.default_rate

    def order_factors(self, columns: Mapping[str, np.ndarray]) -> np.ndarray:
        """Each order's factor: the product of its cohorts' rates (1 for a value not listed)."""
        factor = np.ones(len(next(iter(columns.values()))) if columns else 0, dtype=np.float64)
        for column, table in self.cohort_rates.items():
            values = pd.Series(columns[column], dtype=object)
            factor = factor * values.map(lambda v, t=table: float(t.get(v, 1.0))).to_numpy(dtype=np.float64)
        return factor

    def rates(self, tiers: Sequence[CompiledTier], facts: OrderFacts,
              extras: Sequence[FixedCode | FixedCampaign] = (), found: Candidates | None = None) -> Rates:
        """Per candidate tier, then per code or campaign of a fixed set (keyed
        by the code or its campaign id). With a `response`, the model's
        chance per (order, candidate) from what the sweep found (`found`)."""
        factor = self.order_factors(facts.columns) if self.cohort_rates else np.ones(facts.n, dtype=np.float64)
        keys = [(t.id, t.spec.campaign.id) for t in tiers] + [(e.label, e.campaign_id) for e in extras]
        flat = np.array([self.tier_rate(*k) for k in keys], dtype=np.float64)
        if self.response is None:
            return Rates(flat, factor)
        if extras:
            raise ValueError("a response model prices the offers of candidate tiers; a fixed set's codes and "
                             f"campaigns ({', '.join(e.label for e in extras)}) are priced during the walk: "
                             "give them redemption_rate instead")
        if found is None:
            raise ValueError("a response model needs what the sweep found for each order (found=)")
        segment = (np.asarray(facts.columns[self.segment_column], dtype=object) if self.segment_column
                   else np.full(facts.n, "", dtype=object))
        offer = candidate_chances(self.response, tiers, found, segment)
        return Rates(flat, factor, offer)

    def draws(self, order_ids: pd.Index) -> np.ndarray:
        """Each order's draw in [0, 1): a keyed hash of its id (stable across runs and platforms)."""
        if self.redemption_rate == 1.0 and self.default_rate == 1.0 and not self.cohort_rates and self.response is None:
            return np.zeros(len(order_ids))  # everyone redeems: no hashing
        hashed = pd.util.hash_array(np.asarray(order_ids.astype(str), dtype=object), hash_key=f"{self.seed:016d}")
        draws: np.ndarray = (hashed >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        return draws

    def goods(self, batch: OrderBatch) -> np.ndarray | None:
        """Cost of goods per order (cents), None when the model has none; raises
        ValueError naming the products and SKUs it has no cost for."""
        goods = self.cost_of_goods
        if goods is None:
            return None
        keys = batch.keys
        unit_price = keys.price[batch.key]
        if batch.price is not None:
            unit_price = np.where(batch.price >= 0, batch.price, unit_price)
        if not isinstance(goods, Mapping):
            line = np.rint(unit_price * batch.quantity * float(goods)).astype(np.int64)
        else:
            unit = np.zeros(len(keys.lines), dtype=np.int64)
            missing = []
            for k, (product, sku) in enumerate(zip(keys.product_ids, keys.sku_ids, strict=True)):
                found = next((goods[i] for i in (sku, product) if i is not None and i in goods), None)
                if found is None:
                    missing.append(sku or product or "?")
                else:
                    unit[k] = found
            if missing:
                raise ValueError(f"cost_of_goods has no cost for {', '.join(sorted(missing)[:5])}"
                                 + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
            line = unit[batch.key] * batch.quantity
        return np.add.reduceat(line, batch.starts[:-1]) if batch.n_orders else np.zeros(0, dtype=np.int64)
