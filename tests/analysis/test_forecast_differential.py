"""The forecast equals sending its orders one by one through the redemption operation.

`send_one_by_one` moves a simulator's clock to each order's instant, asks the
promotion validation what each candidate tier gives, and redeems the best
through the redemption operation (which spends the budgets). The forecast,
which sends nothing, must give the same tier, redemption and discount for
every order: here on 10,000 dated orders over three weeks of a demo
scenario with a campaign discount budget, a per-customer daily limit and a
weekly campaign redemption cap, and on smaller samples with redemption
rates and cohort factors.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis.forecast import CostModel, forecast
from promolab.analysis.forecast.one_by_one import send_one_by_one

from .forecast_support import budgeted_demo, dated_orders

#: Slow (each test sends thousands of orders one by one through the client): run once, on the newest Python (`make test-compat` leaves it out).
pytestmark = pytest.mark.slow

COMPARED = ["order_id", "qualified_tier_id", "redeemed", "tier_id", "discount"]
#: The demo's free-item (UNIT) tiers.
UNIT_TIERS = ["promo_free_shipping", "promo_weekend_filters", "promo_weekend_starter"]


def _rows(frame: pd.DataFrame) -> list[tuple[object, ...]]:
    return [
        tuple(None if pd.isna(v) else (bool(v) if isinstance(v, bool) else str(v)) for v in row)
        for row in frame[COMPARED].astype(object).itertuples(index=False)
    ]


def _both(n: int, costs: CostModel | None = None, tiers: list[str] | None = None, **kw: object) -> tuple[pd.DataFrame, pd.DataFrame, object]:
    orders = dated_orders(n, **kw)  # type: ignore[arg-type]  # days / seed / start
    doc = budgeted_demo()
    result = forecast(Simulator.from_scenario(doc), orders, tiers=tiers, costs=costs, progress=False)
    sim = Simulator.from_scenario(doc)
    with sim.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, costs=costs, clock=sim)
    return result.orders, sent, result


def test_ten_thousand_orders_forecast_as_sent_one_by_one() -> None:
    forecast_rows, sent, result = _both(10_000)
    assert _rows(forecast_rows) == _rows(sent)
    budgets = result.budgets.set_index("tier_id")  # type: ignore[attr-defined]
    # the budgets bind: each of them refused orders its tier would have won
    assert (budgets["orders_held_back"] > 0).all(), budgets
    assert budgets.loc["promo_vip_10pct", "used"] >= 500_000  # the redemption crossing the line still goes through
    assert sent["redeemed"].sum() > 1000
    assert not result.excluded  # free items (UNIT) are redeemed as the operation redeems them
    redeemed = forecast_rows[forecast_rows["redeemed"]]
    assert redeemed["tier_id"].astype(str).isin(UNIT_TIERS).sum() > 50


@pytest.mark.parametrize("costs", [
    CostModel(redemption_rate=0.5, seed=3),
    CostModel(redemption_rate={"promo_gear_split": 0.9, "camp_beans": 0.3}, default_rate=0.7),
    CostModel(redemption_rate=0.8, cohort_rates={"channel": {"app": 1.0, "store": 0.25}}),
])
def test_redemption_rates_draw_the_same_orders_in_both(costs: CostModel) -> None:
    forecast_rows, sent, _ = _both(2_000, costs=costs, days=5, seed=7)
    assert _rows(forecast_rows) == _rows(sent)
    assert 0 < forecast_rows["redeemed"].sum() < forecast_rows["qualified_tier_id"].notna().sum()


def test_the_stack_policy_forecasts_as_stacks_sent_one_by_one() -> None:
    orders = dated_orders(3_000, days=10, seed=5)
    doc = budgeted_demo()
    result = forecast(Simulator.from_scenario(doc), orders, policy="stack", progress=False)
    sim = Simulator.from_scenario(doc)
    with sim.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, policy="stack", clock=sim)
    columns = [*COMPARED, "redeemables"]
    assert result.orders[columns].astype(object).where(result.orders[columns].notna(), None).astype(str).values.tolist() \
        == sent[columns].astype(object).where(sent[columns].notna(), None).astype(str).values.tolist()
    assert (result.orders["redeemables"].str.contains(",", na=False)).sum() > 100  # real stacks
    stacked = result.orders["redeemables"].dropna().astype(str)
    assert stacked.str.contains("|".join(UNIT_TIERS)).sum() > 20  # free items in the stacks redeemed


@pytest.mark.parametrize("fixed", [["promo_welcome_10", "promo_beans_15"], ["promo_beans_per_bag", "promo_mug_3", "promo_vip_10pct"],
                                   ["promo_weekend_filters", "promo_beans_15", "promo_free_shipping"]])
def test_a_fixed_set_forecasts_as_that_set_sent_with_every_order(fixed: list[str]) -> None:
    orders = dated_orders(1_500, days=6, seed=9)
    doc = budgeted_demo()
    result = forecast(Simulator.from_scenario(doc), orders, policy=fixed, progress=False)
    sim = Simulator.from_scenario(doc)
    with sim.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, policy=fixed, clock=sim)
    columns = [*COMPARED, "redeemables"]
    got = result.orders[columns].astype(object).where(result.orders[columns].notna(), None).astype(str).values.tolist()
    expected = sent[columns].astype(object).where(sent[columns].notna(), None).astype(str).values.tolist()
    assert got == expected
    assert 0 < int(result.orders["redeemed"].sum()) < len(result.orders)
    held = result.orders["held_back_tier_id"].dropna().astype(str)
    assert set(held) <= set(fixed)  # only a tier sent can be held back


@pytest.mark.parametrize(("policy", "message"), [
    ([], "a non-empty list of promotion tier ids"),
    (["promo_mug_3", "promo_mug_3"], "names a tier, code or campaign twice"),
    (["promo_nope"], "neither a candidate tier, a code nor a campaign"),
    ("cheapest", "policy must be one of best, stack or a list of tier ids"),
])  # fmt: skip
def test_a_bad_policy_is_refused(policy: object, message: str) -> None:
    """(and `policy=None` is a TypeError, see below)"""
    with pytest.raises(ValueError, match=message):
        forecast(Simulator.from_scenario(budgeted_demo()), dated_orders(20), policy=policy, progress=False)  # type: ignore[arg-type]  # bad on purpose


@pytest.mark.parametrize("policy", ["best", "stack"])
def test_a_simulator_with_redemptions_already_made_forecasts_from_them(policy: str) -> None:
    """What the simulator has spent counts: the forecast starts from its totals."""
    orders = dated_orders(1_500, days=4, seed=13, start="2026-03-09T00:00:00Z")
    used = Simulator.from_scenario(budgeted_demo())
    used.advance(datetime.fromisoformat("2026-03-08T23:00:00+00:00") - used.now)  # Monday 00:00 in Berlin: the orders' week
    with used.client() as client:  # the beans campaign's weekly cap half spent before the orders come
        for _ in range(150):
            client.redeem_stacked(redeemables=[{"object": "promotion_tier", "id": "promo_beans_15"}],
                                  order={"items": [{"product_id": "prod_beans_ethiopia", "quantity": 1}]})
    snapshot = used.snapshot()
    result = forecast(Simulator.restore(snapshot), orders, policy=policy, progress=False)
    sim = Simulator.restore(snapshot)
    with sim.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, policy=policy, clock=sim)
    assert _rows(result.orders) == _rows(sent)
    fresh = forecast(Simulator.from_scenario(budgeted_demo()), orders, policy=policy, progress=False)
    assert int(result.orders["redeemed"].sum()) != int(fresh.orders["redeemed"].sum())  # the history mattered



def test_a_policy_that_is_not_a_name_or_a_list_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="policy must be one of"):
        forecast(Simulator.from_scenario(budgeted_demo()), dated_orders(20), policy=None, progress=False)  # type: ignore[arg-type]  # bad on purpose
