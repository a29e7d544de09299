"""What a sweep's tiers cost under a `CostModel`: redemption rates and shipping.

A sweep says which orders qualify for which tier; `sweep_costs` says what
that costs when not every qualifying order redeems (the model's rates and
the same keyed draws the forecast uses, so an order redeems here exactly
when it would in a forecast) and when free shipping is worth what shipping
costs rather than $0 (the service gives it as a free unit of a shipping
"product" with no price of its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...sim import pricing_view
from ..figures import figures
from ..sweep import SweepResult
from .costs import CostModel, is_free_shipping
from .facts import order_columns

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["SWEEP_COST_COLUMNS", "sweep_costs"]

SWEEP_COST_COLUMNS = ("tier_id", "campaign_id", "qualifying", "redemptions", "discount", "shipping", "cost")


def sweep_costs(sim: Simulator, result: SweepResult, costs: CostModel,
                orders: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per tier of `result`: orders qualifying, redemptions (under the
    model's rates), the discount they give, the shipping a free-shipping
    tier gives away (redemptions x `shipping_cost`) and the cost (both).
    `orders`: the swept line-items frame, needed for `cohort_rates`."""
    n, t = result.n_orders, len(result.tier_ids)
    valid = result.frame["valid"].to_numpy().reshape(n, t)
    discount = result.frame["discount_amount"].to_numpy(dtype=np.int64, na_value=0).reshape(n, t)
    order_ids = pd.Index(result.frame["order_id"].cat.categories)
    factor = np.ones(n)
    if costs.cohort_rates:
        if orders is None:
            raise ValueError("cohort_rates need the swept orders frame: sweep_costs(sim, result, costs, orders)")
        columns = order_columns(orders)
        factor = costs.order_factors(columns)
    by_id = {tier.id: tier for tier in pricing_view(sim).tiers}
    rates = np.array([costs.tier_rate(tid, cid) for tid, cid in zip(result.tier_ids, result.campaign_ids, strict=True)])
    redeem = valid & (costs.draws(order_ids)[:, None] < rates[None, :] * factor[:, None])
    shipping = np.array([costs.shipping_cost if tid in by_id and is_free_shipping(by_id[tid]) else 0
                         for tid in result.tier_ids], dtype=np.int64)
    redemptions = redeem.sum(axis=0).astype(np.int64)
    given = (discount * redeem).sum(axis=0).astype(np.int64)
    out = pd.DataFrame({
        "tier_id": pd.array(result.tier_ids, dtype="string"),
        "campaign_id": pd.array(result.campaign_ids, dtype="string"),
        "qualifying": valid.sum(axis=0).astype(np.int64),
        "redemptions": redemptions,
        "discount": given,
        "shipping": redemptions * shipping,
    })
    out["cost"] = out["discount"] + out["shipping"]
    return figures(out, sim.currency)
