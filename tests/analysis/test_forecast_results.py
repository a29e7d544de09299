"""What a forecast reports: periods, budgets, redemptions, costs, scenarios, all consistent.

The differential tests (test_forecast_differential.py) pin which orders
redeem what; these check that the frames built from that agree with each
other and with the sweep: sums across frames, when a budget ran out,
cumulative columns, a scenario compared with itself, and what a cost model
charges.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from promolab import Simulator, samples
from promolab.analysis import CostModel, compare_scenarios, forecast, sweep, sweep_costs

from .forecast_support import dated_orders


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    return dated_orders(4_000, days=14, seed=11)


@pytest.fixture(scope="module")
def sim() -> Simulator:
    return Simulator.from_scenario(samples.forecast_scenario())


@pytest.fixture(scope="module")
def result(sim: Simulator, orders: pd.DataFrame) -> Any:
    return forecast(sim, orders, costs=CostModel(cost_of_goods=0.5), progress=False)


@pytest.mark.parametrize("freq", ["day", "week", "month"])
def test_periods_add_up_to_the_redemptions_and_run_in_totals(result: Any, freq: str) -> None:
    periods = result.periods(freq)
    redemptions = result.redemptions
    by_campaign = periods.groupby("campaign_id")[["redemptions", "discount", "held_back"]].sum()
    expected = redemptions.groupby(redemptions["campaign_id"].astype("string"), observed=True)["discount"].sum()
    assert by_campaign["discount"].loc[expected.index].tolist() == expected.tolist()
    assert int(by_campaign["held_back"].sum()) == int(result.orders["held_back_tier_id"].notna().sum())
    for _, part in periods.groupby("campaign_id"):
        assert part["period_start"].is_monotonic_increasing
        assert part["discount_to_date"].tolist() == part["discount"].cumsum().tolist()
        starts = part["period_start"].dt.tz_convert("Europe/Berlin")
        assert (starts.dt.hour == 0).all() and (starts.dt.minute == 0).all()  # local midnights


def test_the_orders_frame_agrees_with_the_redemptions(result: Any) -> None:
    o = result.orders
    assert o["placed_at"].is_monotonic_increasing
    assert str(o["placed_at"].dt.tz) == "Europe/Berlin"
    assert int(o["discount"].sum()) == int(result.redemptions["discount"].sum())
    assert (o.loc[~o["redeemed"], "discount"] == 0).all()
    assert o.loc[o["redeemed"], "tier_id"].notna().all() and o.loc[~o["redeemed"], "tier_id"].isna().all()
    assert (o["margin"] == o["amount"] - o["cost_of_goods"] - o["discount"]).all()
    assert (o["cost"] == o["discount"]).all()


def test_a_budget_ran_out_at_the_first_order_it_held_back(result: Any) -> None:
    o = result.orders
    for row in result.budgets.itertuples():
        held = o[(o["held_back_tier_id"] == row.tier_id) & (o["held_back_by"] == row.rule)]
        assert row.orders_held_back == len(held)
        if len(held):
            assert row.ran_out_at == held["placed_at"].iloc[0]
    vip = result.budgets.set_index("tier_id").loc["promo_vip_10pct"]
    assert vip["limit"] == 500_000 and vip["used"] >= 500_000  # the redemption crossing the line goes through
    after = o[(o["placed_at"] >= vip["ran_out_at"]) & (o["tier_id"] == "promo_vip_10pct")]
    assert after.empty  # and none of the budgeted tier after (the campaign's other tier still spends)


def test_a_scenario_compared_with_itself_differs_in_nothing(sim: Simulator, orders: pd.DataFrame) -> None:
    same = Simulator.from_scenario(samples.forecast_scenario())
    comparison = compare_scenarios({"a": sim, "b": same}, orders)
    difference = comparison.difference("a", "b")
    assert (difference[["redemptions", "discount", "held_back"]] == 0).all().all()
    wide = comparison.orders()
    assert (wide["discount[a]"] == wide["discount[b]"]).all()


def test_a_bigger_budget_changes_only_its_campaign(sim: Simulator, orders: pd.DataFrame) -> None:
    doc = yaml.safe_load(samples.forecast_scenario().read_text(encoding="utf-8"))
    for campaign in doc["campaigns"]:
        for tier in campaign.get("tiers") or []:
            if tier["id"] == "promo_beans_15":
                rules = tier["validation_rules"]["rules"]
                budget = next(k for k, r in rules.items() if k != "logic" and r["name"].startswith("campaign."))
                rules[budget]["conditions"] = {"$less_than": [10_000]}
    comparison = compare_scenarios({"now": sim, "bigger": Simulator.from_scenario(doc)}, orders)
    difference = comparison.difference("now", "bigger").set_index("campaign_id")
    assert difference.loc["camp_beans", "held_back"] < 0
    assert difference.loc["camp_beans", "redemptions"] > 0
    totals = comparison.totals().set_index("scenario")
    assert totals.loc["bigger", "held_back"] < totals.loc["now", "held_back"]


@pytest.mark.parametrize(("rate", "shipping"), [(1.0, 0), (1.0, 495), (0.5, 495), (0.0, 495)])
def test_sweep_costs_value_free_shipping_and_draw_the_forecasts_orders(sim: Simulator, orders: pd.DataFrame,
                                                                     rate: float, shipping: int) -> None:
    costs = CostModel(redemption_rate=rate, shipping_cost=shipping, seed=4)
    swept = sweep(sim, orders, progress=False)
    table = sweep_costs(sim, swept, costs).set_index("tier_id")
    free = table.loc["promo_free_shipping"]
    assert free["discount"] == 0 and free["shipping"] == free["redemptions"] * shipping == free["cost"]
    if rate == 1.0:
        assert (table["redemptions"] == table["qualifying"]).all()
    if rate == 0.0:
        assert (table["cost"] == 0).all()
    # a tier no budget touches, forecast alone: the same orders redeem in both
    alone = forecast(sim, orders, tiers=["promo_mug_3"], costs=costs, progress=False)
    assert int(alone.orders["redeemed"].sum()) == int(table.loc["promo_mug_3", "redemptions"])
    assert int(alone.orders["discount"].sum()) == int(table.loc["promo_mug_3", "discount"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"redemption_rate": 1.5}, "redemption_rate must be a number between 0 and 1"),
    ({"redemption_rate": {"promo_x": -0.1}}, "redemption_rate['promo_x']"),
    ({"default_rate": True}, "default_rate must be a number"),
    ({"cohort_rates": {"channel": {"app": 2}}}, "cohort_rates['channel']['app']"),
    ({"shipping_cost": -1}, "shipping_cost must be whole cents >= 0"),
    ({"shipping_cost": 4.95}, "shipping_cost must be whole cents >= 0"),
    ({"cost_of_goods": {"prod_mug": -5}}, "cost_of_goods['prod_mug']"),
    ({"cost_of_goods": 1.2}, "cost_of_goods (a share of the price)"),
    ({"seed": 10**16}, "seed must be a whole number from 0 to 10"),
    ({"seed": -1}, "seed must be a whole number"),
])  # fmt: skip
def test_a_bad_cost_model_is_refused_when_made(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        CostModel(**kwargs)


def test_cohort_rates_name_a_column_the_orders_have(sim: Simulator, orders: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="cohort_rates names column 'segment'"):
        forecast(sim, orders, costs=CostModel(cohort_rates={"segment": {"new": 0.5}}), progress=False)


def test_cost_of_goods_per_product_names_what_it_misses(sim: Simulator, orders: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="cost_of_goods has no cost for"):
        forecast(sim, orders, costs=CostModel(cost_of_goods={"prod_mug": 300}), progress=False)


def test_draws_are_stable_and_seeded() -> None:
    ids = pd.Index([f"o{i}" for i in range(20_000)])
    a, b = CostModel(redemption_rate=0.5, seed=1), CostModel(redemption_rate=0.5, seed=2)
    assert np.array_equal(a.draws(ids), CostModel(redemption_rate=0.5, seed=1).draws(ids))
    assert not np.array_equal(a.draws(ids), b.draws(ids))
    assert 0.48 < float((a.draws(ids) < 0.5).mean()) < 0.52


def test_the_burn_down_draws_a_forecasts_running_totals(result: Any) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from promolab.analysis import plot_burn_down

    periods = result.periods("day")
    ax = plot_burn_down(periods, budget=500_000)
    drawn = {line.get_label(): line.get_ydata().tolist() for line in ax.get_lines() if not line.get_label().startswith("budget")}
    for campaign, part in periods.groupby("campaign_id"):
        assert drawn[str(campaign)] == part.sort_values("period_start")["discount_to_date"].astype(float).tolist()
    assert plot_burn_down(periods, cumulative=False).get_lines()[0].get_ydata().tolist() == ax.get_lines()[0].get_ydata().tolist()


@pytest.mark.parametrize(("rule", "stays"), [
    ({"name": "campaign.redemptions.count.weekly", "conditions": {"$less_than": [300]}}, True),
    ({"name": "campaign.orders.amount_discounted", "conditions": {"$less_than_or_equal": [500]}}, True),
    ({"name": "campaign.redemptions.count", "conditions": {"$more_than": [3]}}, False),  # opens later
    ({"name": "campaign.redemptions.count", "conditions": {"$less_than": [9], "$more_than": [3]}}, False),
    ({"name": "redemption.count.per_customer", "conditions": {"$less_than": [1]}}, False),  # per customer
])  # fmt: skip
def test_which_budgets_stay_spent_once_they_fail(rule: dict[str, Any], stays: bool) -> None:
    from promolab.analysis.forecast.budget_leaves import budgeted
    from promolab.engine import CampaignInfo, TierSpec, compile_tier

    spec = TierSpec(id="promo_t", campaign=CampaignInfo(id="camp_t"), discount={"type": "AMOUNT", "amount_off": 100},
                    rules={"rules": {"1": rule, "logic": "1"}})
    split = budgeted(compile_tier(spec))
    assert split is not None and split.leaves[0].stays_spent is stays
    assert len(split.variants) == 2
