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

#: Slow (forecasts checked against codes published and sent one by one): run once, on the newest Python (`make test-compat` leaves it out).
pytestmark = pytest.mark.slow

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


def test_a_code_sent_twice_by_name_and_by_its_campaign_is_refused_as_the_service_does() -> None:
    """Without join_once the campaign publishes its first free code, ONE-000,
    which the set also names: that request is 400 duplicated_redeemables."""
    result, sent = _both(with_single_use(join_once=False), ["ONE-000", "camp_single"], {"camp_single"}, n=300)
    first = result.orders.iloc[0]
    assert first["published_codes"] == "ONE-000" and not first["redeemed"]
    assert int(sent["redeemed"].sum()) == int(result.orders["redeemed"].sum())


def test_more_redeemables_than_the_projects_limit() -> None:
    """A fixed set over the limit is refused before anything is computed; under
    "stack" an order with more valid tiers than the limit redeems nothing, as
    the service refuses that request."""
    doc = copy.deepcopy(_DOC)
    doc["project"]["stacking_rules"] = {"redeemables_limit": 1, "applicable_redeemables_limit": 1,
                                        "applicable_exclusive_redeemables_limit": 1}
    with pytest.raises(ValueError, match=r"a fixed policy of 2 names is more than the project's redeemables_limit \(1\)"):
        forecast(Simulator.from_scenario(doc), _orders(10), policy=["promo_beans_15", "promo_mug_3"], progress=False)
    orders = _orders(400)
    result = forecast(Simulator.from_scenario(doc), orders, policy="stack", progress=False)
    reference = Simulator.from_scenario(doc)
    with reference.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, policy="stack", clock=reference)
    assert _cells(result.orders) == _cells(sent)
    assert result.orders["redeemed"].any() and not result.orders["redeemed"].all()


def test_an_inactive_campaign_or_a_long_repeated_list_is_refused_briefly() -> None:
    doc = copy.deepcopy(_DOC)
    next(c for c in doc["campaigns"] if c["id"] == "camp_newsletter")["active"] = False
    with pytest.raises(ValueError, match="campaign camp_newsletter is not active"):
        forecast(Simulator.from_scenario(doc), _orders(10), policy=["camp_newsletter"], progress=False)
    with pytest.raises(ValueError, match="names a tier, code or campaign twice: 'promo_mug_3'$"):
        forecast(Simulator.from_scenario(_DOC), _orders(10), policy=["promo_mug_3"] * 100_000, progress=False)
