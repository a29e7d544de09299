"""A campaign of codes in a fixed set: each order's customer is published a code, then redeems it.

Against `send_one_by_one(..., publish=...)` (publication, validation and
redemption per order, on the simulator): join_once campaigns hand a customer
the same code every time, other campaigns a fresh one until the pool is empty,
single-use codes refuse a customer's second order, unknown customers are
created by their first publication and orders without a customer get nothing.
The simulator handed to the forecast is not changed.
"""

from __future__ import annotations

import copy
from typing import Any

import pandas as pd
import pytest
import yaml

from promolab import Simulator, samples
from promolab.analysis.forecast import CostModel, compare_scenarios, forecast
from promolab.analysis.forecast.one_by_one import send_one_by_one

COMPARED = ["order_id", "qualified_tier_id", "redeemed", "tier_id", "redeemables", "discount"]
_DOC = yaml.safe_load(samples.forecast_scenario().read_text())
_MONTH = pd.read_parquet(samples.month_orders())


def _orders(n: int) -> pd.DataFrame:
    """`n` of the month's orders, spread over the month (repeat customers,
    unknown ones, some without a customer)."""
    ids = _MONTH["order_id"].unique()
    return _MONTH[_MONTH["order_id"].isin(ids[:: len(ids) // n][:n])].reset_index(drop=True)


def with_single_use(*, join_once: bool, codes: int = 40) -> dict[str, Any]:
    """The forecast scenario with camp_single: `codes` single-use $3 codes."""
    doc = copy.deepcopy(_DOC)
    doc["campaigns"].append({
        "id": "camp_single", "name": "Single-use $3", "type": "DISCOUNT_COUPONS", "join_once": join_once,
        "discount": {"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ORDER"},
        "vouchers": [{"code": f"ONE-{k:03d}", "redemption_quantity": 1} for k in range(codes)],
    })
    return doc


def _cells(frame: pd.DataFrame) -> list[list[str]]:
    part = frame[COMPARED].astype(object)
    return part.where(part.notna(), None).astype(str).values.tolist()


def _both(doc: dict[str, Any], policy: list[str], publish: set[str], n: int = 1_500,
          costs: CostModel | None = None) -> tuple[Any, pd.DataFrame]:
    orders = _orders(n)
    sim = Simulator.from_scenario(doc)
    before = sim.dump_json()
    result = forecast(sim, orders, policy=policy, costs=costs, progress=False)
    assert sim.dump_json() == before  # published on a copy
    reference = Simulator.from_scenario(doc)
    with reference.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, policy=policy, costs=costs, clock=reference,
                               campaigns=result.tier_campaigns, publish=publish)
    assert _cells(result.orders) == _cells(sent)
    return result, sent


def test_join_once_hands_each_customer_one_code_until_the_pool_is_empty() -> None:
    """camp_newsletter (join_once, 25 codes, 10 % off): 25 customers get a code
    and use it on every order; later customers find the pool empty."""
    result, _ = _both(_DOC, ["camp_newsletter"], {"camp_newsletter"})
    orders = result.orders
    redeemed = orders[orders["redeemed"]]
    assert redeemed["customer"].nunique() == 25
    assert redeemed.groupby("customer")["published_codes"].nunique().eq(1).all()  # one code per customer
    assert (redeemed.groupby("customer").size() > 1).any()  # ... used again
    assert orders.loc[orders["customer"].isna(), "published_codes"].isna().all()
    assert not orders.loc[orders["customer"].isna(), "redeemed"].any()
    held = orders[orders["held_back_by"] == "code pool (codes left to publish)"]
    assert len(held) > 0 and set(held["held_back_tier_id"].astype(str)) == {"camp_newsletter"}
    row = result.budgets.set_index("rule").loc["code pool (codes left to publish)"]
    assert (row["tier_id"], row["limit"], row["used"], row["orders_held_back"]) == ("camp_newsletter", 25, 25, len(held))
    assert row["ran_out_at"] == held["placed_at"].iloc[0]


def test_without_join_once_every_order_takes_a_fresh_code() -> None:
    result, _ = _both(with_single_use(join_once=False), ["camp_single"], {"camp_single"})
    orders = result.orders
    assert int(orders["redeemed"].sum()) == 40
    assert orders["published_codes"].dropna().is_unique
    assert int(orders["discount"].sum()) == 40 * 300


def test_join_once_single_use_codes_refuse_a_customers_second_order() -> None:
    result, _ = _both(with_single_use(join_once=True), ["camp_single"], {"camp_single"})
    orders = result.orders
    by = orders["held_back_by"].astype(str)
    stock = orders[by == "code stock (redemption quantity)"]
    assert len(stock) > 0
    first_use = orders[orders["redeemed"]].groupby("customer")["placed_at"].min()
    assert (stock["placed_at"].to_numpy() > first_use.loc[stock["customer"]].to_numpy()).all()
    assert orders.loc[orders["redeemed"], "customer"].is_unique


@pytest.mark.parametrize("costs", [None, CostModel(redemption_rate={"camp_newsletter": 0.5}, seed=2)])
def test_a_published_code_stacked_with_a_tier(costs: CostModel | None) -> None:
    result, sent = _both(_DOC, ["promo_beans_15", "camp_newsletter"], {"camp_newsletter"}, n=2_500, costs=costs)
    stacks = result.orders["redeemables"].dropna()
    assert (stacks == "promo_beans_15,camp_newsletter").sum() > 0
    assert int(sent["redeemed"].sum()) > 0


def test_scenarios_compared_under_a_fixed_set_differ_by_their_pools() -> None:
    bigger = copy.deepcopy(_DOC)
    next(c for c in bigger["campaigns"] if c["id"] == "camp_newsletter")["code_pool"]["count"] = 200
    cmp = compare_scenarios({"now": Simulator.from_scenario(_DOC), "bigger pool": Simulator.from_scenario(bigger)},
                            _orders(3_000), policy=["camp_newsletter"])
    wide = cmp.campaigns()
    assert list(wide.index) == ["camp_newsletter"]
    now, bigger_pool = wide.loc["camp_newsletter", ("redemptions", "now")], wide.loc["camp_newsletter", ("redemptions", "bigger pool")]
    assert 25 <= now < bigger_pool
    assert wide.loc["camp_newsletter", ("held_back", "now")] > wide.loc["camp_newsletter", ("held_back", "bigger pool")]
