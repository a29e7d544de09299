"""A forecast's cost split into incremental and subsidy, per tier or campaign.

`incremental_split` reads the offer each order won (`won_offers`, from a
forecast in which everyone redeems what they qualify for: the orders as
the demand without incentives, the budgets as the walk spent them) and
puts it through `expect`, the one set of formulas: expected orders,
incremental orders, redemptions, spend and its split into incremental
spend and subsidy, incremental net revenue (the order's amount less its
cost of goods, where the forecast has one; else the amount). Expectations
are summed per group as floats and rounded to cents once, at the end, so a
total is never a sum of rounded parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .expectation import expect
from .forecast_offers import frame_cents, won_offers
from .model import ResponseModel

if TYPE_CHECKING:
    from ..forecast.result import ForecastResult

__all__ = ["SPLIT_COLUMNS", "incremental_split"]

#: Money (Int64 cents): spend, incremental_spend, subsidy, incremental_net_revenue;
#: expected counts (Float64): expected_orders, incremental_orders, redemptions; orders: offered orders (Int64).
SPLIT_COLUMNS = ("orders", "expected_orders", "incremental_orders", "redemptions", "spend", "incremental_spend",
                 "subsidy", "incremental_net_revenue")
_MONEY = ("spend", "incremental_spend", "subsidy", "incremental_net_revenue")
_BY = ("tier_id", "campaign_id")


def incremental_split(result: ForecastResult, model: ResponseModel, kinds: Mapping[str, str], *,
                      by: str = "tier_id", segment_column: str | None = None) -> pd.DataFrame:
    """Per tier (or campaign, `by="campaign_id"`) the expected figures of
    the orders that won it under `model` (see the module's docstring).
    `kinds`: each tier's discount kind (`tier_kinds(sim)`)."""
    if by not in _BY:
        raise ValueError(f"by must be one of {', '.join(_BY)}, got {by!r}")
    orders = result.orders
    offers = won_offers(result, kinds, segment_column)
    goods = frame_cents(orders["cost_of_goods"])
    amount = orders["amount"].to_numpy(dtype=np.float64)
    discount = orders["discount"].to_numpy(dtype=np.float64)
    e = expect(model, offers, amount, discount, goods=goods)
    offered = offers.offered
    frame = pd.DataFrame({
        by: orders[by].astype("string")[offered].to_numpy(), "orders": np.ones(int(offered.sum()), dtype=np.int64),
        "expected_orders": e.orders[offered], "incremental_orders": e.incremental_orders[offered],
        "redemptions": e.redemptions[offered], "spend": e.spend[offered],
        "incremental_spend": e.incremental_spend[offered], "subsidy": e.subsidy[offered],
        "incremental_net_revenue": e.incremental_net_revenue[offered],
    })
    sums = frame.groupby(by, sort=True).sum()
    sums.index = sums.index.astype("string")
    out = sums.reindex(columns=list(SPLIT_COLUMNS))
    out["orders"] = out["orders"].astype("Int64")
    for name in SPLIT_COLUMNS[1:4]:
        out[name] = out[name].astype("Float64")
    cents = {name: np.rint(out[name].to_numpy(dtype=np.float64)).astype(np.int64) for name in _MONEY}
    cents["incremental_spend"] = cents["spend"] - cents["subsidy"]  # the split still adds up to the cent
    for name in _MONEY:
        out[name] = pd.array(cents[name], dtype="Int64")
    out.attrs["currency"] = result.currency
    return out
