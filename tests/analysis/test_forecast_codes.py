"""Codes in a forecast: a fixed set of tiers and codes sent with every order.

The forecast must equal sending the same orders one by one (`send_one_by_one`)
order for order, while a code's stock (its redemption quantity) runs out, a
gift card's balance is spent, a code expires half way, a validation session
holds a use until it ends, and a redemption rate keyed by the code's campaign
draws the same orders in both.
"""

from __future__ import annotations

import copy
from typing import Any

import pandas as pd
import pytest
import yaml

from promolab import Simulator
from promolab.analysis.forecast import CostModel, forecast
from promolab.analysis.forecast.one_by_one import send_one_by_one

from .forecast_support import budgeted_demo, dated_orders

#: Slow (forecasts checked against codes sent one by one): run once, on the newest Python (`make test-compat` leaves it out).
pytestmark = pytest.mark.slow

COMPARED = ["order_id", "qualified_tier_id", "redeemed", "tier_id", "redeemables", "discount"]
START = "2026-03-02T00:00:00Z"

_DOC = yaml.safe_load(budgeted_demo().read_text())


def coded_demo(*, quantity: int = 60, expires: str | None = None) -> dict[str, Any]:
    """The budgeted demo with a generic $5 code SPRING-5 usable `quantity` times,
    and LATE-10 (10 % off, 25 uses) valid until `expires`."""
    doc = copy.deepcopy(_DOC)
    late: dict[str, Any] = {"code": "LATE-10", "redemption_quantity": 25,
                            "discount": {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"}}
    if expires is not None:
        late["expiration_date"] = expires
    doc["campaigns"].append({
        "id": "camp_spring", "name": "Spring codes", "type": "DISCOUNT_COUPONS",
        "discount": {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"},
        "vouchers": [{"code": "SPRING-5", "redemption_quantity": quantity}, late],
    })
    return doc


def _cells(frame: pd.DataFrame) -> list[list[str]]:
    part = frame[COMPARED].astype(object)
    return part.where(part.notna(), None).astype(str).values.tolist()


def _both(doc: dict[str, Any], policy: list[str], n: int = 1_200, days: int = 6, costs: CostModel | None = None,
          sim: Simulator | None = None) -> tuple[Any, pd.DataFrame]:
    orders = dated_orders(n, days=days, seed=21, start=START)
    snapshot = (sim or Simulator.from_scenario(doc)).snapshot()
    result = forecast(Simulator.restore(snapshot), orders, policy=policy, costs=costs, progress=False)
    reference = Simulator.restore(snapshot)
    with reference.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, policy=policy, costs=costs, clock=reference,
                               campaigns=result.tier_campaigns)
    assert _cells(result.orders) == _cells(sent)
    return result, sent


def test_a_code_redeems_until_its_stock_runs_out() -> None:
    result, _ = _both(coded_demo(quantity=60), ["SPRING-5"])
    orders = result.orders
    assert int(orders["redeemed"].sum()) == 60
    assert set(orders.loc[orders["redeemed"], "discount"]) == {500}
    held = orders[orders["held_back_tier_id"].notna()]
    assert len(held) == len(orders) - 60 and set(held["held_back_by"].astype(str)) == {"code stock (redemption quantity)"}
    row = result.budgets.set_index("tier_id").loc["SPRING-5"]
    assert (row["campaign_id"], row["limit"], row["used"], row["orders_held_back"]) == ("camp_spring", 60, 60, len(held))
    assert row["ran_out_at"] == held["placed_at"].iloc[0]  # the first order refused
    assert (held["placed_at"] >= orders.loc[orders["redeemed"], "placed_at"].max()).all()
    summary = result.summary().set_index("campaign_id").loc["camp_spring"]
    assert (summary["redemptions"], summary["discount"]) == (60, 30_000)


def test_a_code_stacked_with_a_budgeted_tier() -> None:
    """All or nothing (the demo's rules): once the code is spent, the tier is not redeemed either."""
    result, _ = _both(coded_demo(quantity=400), ["promo_beans_15", "SPRING-5"], n=3_000, days=10)
    stacks = result.redemptions.groupby("row").size()
    assert (stacks == 2).sum() > 50
    orders = result.orders
    assert int(orders["redeemed"].sum()) == 400
    by = orders["held_back_by"].astype(str)
    assert (by == "code stock (redemption quantity)").sum() > 0
    assert by.str.startswith("campaign.redemptions.count.weekly").sum() > 0  # the beans cap binds too
    assert not orders.loc[orders["placed_at"] > result.budgets.set_index("tier_id").loc["SPRING-5", "ran_out_at"],
                          "redeemed"].any()


def test_codes_already_used_and_sessions_that_end_count() -> None:
    """SPRING-5 used 20 times before the forecast and held by a session for a
    day: 30 uses at first, 31 once the session has ended."""
    doc = coded_demo(quantity=51)
    sim = Simulator.from_scenario(doc)
    sim.advance(pd.Timestamp(START).to_pydatetime() - sim.now)  # the session starts with the orders
    with sim.client() as client:
        item = {"items": [{"product_id": "prod_beans_ethiopia", "quantity": 1}]}
        for _ in range(20):
            client.redeem_stacked(redeemables=[{"object": "voucher", "id": "SPRING-5"}], order=item)
        client.validate_stacked(redeemables=[{"object": "voucher", "id": "SPRING-5"}], order=item,
                                session={"type": "LOCK", "key": "cart-1", "ttl": 1, "ttl_unit": "DAYS"})
    result, _ = _both(doc, ["SPRING-5"], n=600, days=4, sim=sim)
    orders = result.orders
    assert int(orders["redeemed"].sum()) == 31  # 51 - 20, the session's use given back when it ended
    day_one = orders["placed_at"] < pd.Timestamp(START) + pd.Timedelta(days=1)
    assert int(orders.loc[day_one, "redeemed"].sum()) <= 30
    assert result.budgets.set_index("tier_id").loc["SPRING-5", "used"] == 51


def test_a_code_that_expires_half_way_is_not_held_back_by_its_stock() -> None:
    result, _ = _both(coded_demo(expires="2026-03-04T12:00:00Z"), ["LATE-10"], n=800, days=6)
    orders = result.orders
    late = orders["placed_at"] > pd.Timestamp("2026-03-04T12:00:00Z")
    assert not orders.loc[late, "redeemed"].any()
    assert orders.loc[late, "held_back_tier_id"].isna().all()  # expired, not out of stock
    assert 0 < int(orders["redeemed"].sum()) <= 25


def test_a_gift_card_is_spent_down_to_its_balance() -> None:
    """GIFT-BOB-25 holds $18.00: the credits given over the orders add up to it."""
    result, _ = _both(coded_demo(), ["promo_mug_3", "GIFT-BOB-25"], n=400, days=3)
    gift = result.redemptions[result.redemptions["tier_id"] == "GIFT-BOB-25"]
    assert len(gift) > 0 and int(gift["discount"].sum()) == 1_800


def test_a_redemption_rate_keyed_by_the_codes_campaign() -> None:
    costs = CostModel(redemption_rate={"camp_spring": 0.4}, default_rate=1.0, seed=5)
    result, _ = _both(coded_demo(quantity=1_000), ["SPRING-5"], costs=costs)
    share = result.orders["redeemed"].mean()
    assert 0.3 < share < 0.5


@pytest.mark.parametrize("rate", [1.0, 0.5])
def test_every_order_after_a_code_ran_out_is_held_back_whatever_the_rate(rate: float) -> None:
    """Held back means the code would refuse the order, decided before its draw
    (as a tier's budget verdicts are): the count does not depend on who redeems."""
    result, _ = _both(coded_demo(quantity=20), ["SPRING-5"], costs=CostModel(redemption_rate=rate, seed=4))
    orders, row = result.orders, result.budgets.set_index("tier_id").loc["SPRING-5"]
    after = orders["placed_at"] >= row["ran_out_at"]
    assert row["used"] == 20 and row["orders_held_back"] == int(after.sum()) > 0
    assert (orders.loc[after, "held_back_tier_id"] == "SPRING-5").all()


@pytest.mark.parametrize(("policy", "message"), [
    (["SPRING-5", "SPRING-5"], "names a tier, code or campaign twice"),
    (["NOPE-1"], "neither a candidate tier, a code nor a campaign of codes; candidate tiers: promo_welcome_10, "),
    (["promo_mug_3", 5], "a non-empty list of promotion tier ids, codes and campaign ids"),
    (["camp_beans"], "camp_beans is a PROMOTION campaign: a fixed policy publishes codes of DISCOUNT_COUPONS"),
])  # fmt: skip
def test_a_bad_code_in_a_fixed_policy_is_refused(policy: list[Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        forecast(Simulator.from_scenario(coded_demo()), dated_orders(20), policy=policy, progress=False)


def test_a_name_that_is_both_a_tier_and_a_code_is_refused() -> None:
    doc = coded_demo()
    doc["campaigns"][-1]["vouchers"].append({"code": "promo_mug_3"})
    with pytest.raises(ValueError, match="'promo_mug_3' is both a candidate tier and a code"):
        forecast(Simulator.from_scenario(doc), dated_orders(20), policy=["promo_mug_3"], progress=False)


def test_a_set_of_codes_alone_needs_no_promotion_tier() -> None:
    """Only the set's tiers are candidates: a shop without any promotion (or
    with every tier left out by tiers=) still forecasts its codes."""
    doc = coded_demo(quantity=30)
    doc["campaigns"] = [c for c in doc["campaigns"] if c.get("type", "PROMOTION") != "PROMOTION"]
    doc.pop("promotion_stacks", None)
    result, _ = _both(doc, ["SPRING-5"], n=300, days=3)
    assert result.tier_ids == () and int(result.orders["redeemed"].sum()) == 30
    coded = forecast(Simulator.from_scenario(coded_demo(quantity=30)), dated_orders(300, days=3, seed=21, start=START),
                     tiers=["promo_free_shipping"], policy=["SPRING-5"], progress=False)
    assert int(coded.orders["redeemed"].sum()) == 30 and coded.tier_ids == ()


def test_a_scoped_code_and_a_gift_cards_rule_in_a_fixed_set_equal_the_operations() -> None:
    """SPRING-5 made a scoped code (half off each mug line, carts over $30)
    and a generic gift card spendable on carts of $40 or more: the forecast
    equals the codes redeemed one by one, and only mug lines are discounted."""
    doc = coded_demo(quantity=500)
    spring = next(c for c in doc["campaigns"] if c["id"] == "camp_spring")
    spring["vouchers"][0]["discount"] = {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}
    spring["vouchers"][0]["applicable_to"] = {"included": [{"object": "product", "id": "prod_mug"}]}
    spring["vouchers"][0]["validation_rules"] = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [3000]}}}}
    doc["campaigns"].append({"id": "camp_cards", "name": "Cards", "type": "GIFT_VOUCHERS", "gift_amount": 100_000,
                             "validation_rules": {"rules": {"1": {"name": "order.amount",
                                                                  "conditions": {"$more_than_or_equal": [4000]}}}},
                             "vouchers": [{"code": "CARD-1"}]})
    result, _ = _both(doc, ["SPRING-5"], n=600, days=3)
    orders = result.orders
    assert 0 < int(orders["redeemed"].sum()) < len(orders)  # the scope and the rule both decide
    lines = dated_orders(600, days=3, seed=21, start=START)
    mug_lines = lines[lines["product_id"] == "prod_mug"]
    mug_amount = (mug_lines["price"].fillna(1200).astype(int) * mug_lines["quantity"]).groupby(mug_lines["order_id"]).sum()
    for order_id, discount in orders.loc[orders["redeemed"], ["order_id", "discount"]].itertuples(index=False):
        # half the mug lines (each line's half rounded), nothing off any other line
        assert abs(discount - mug_amount.get(order_id, 0) / 2) <= len(mug_lines[mug_lines["order_id"] == order_id])
    assert (orders.loc[orders["redeemed"], "discount"] > 0).any()
    carded, _ = _both(doc, ["CARD-1"], n=400, days=3)
    assert 0 < int(carded.orders["redeemed"].sum()) < len(carded.orders)
