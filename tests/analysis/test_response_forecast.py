"""The forecast reading a response model: switched off it is today's forecast to the cent;
switched on, fewer orders redeem, and the split of a forecast adds up.

On the March scenario with budgets (data/scenarios/march_budgets.yaml) and the
shipped month of orders, sliced (the stack policy prices every order with the engine).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from promolab import Simulator, samples
from promolab.analysis import CostModel, forecast
from promolab.analysis.response import (
    NO_RESPONSE,
    SPLIT_COLUMNS,
    ResponseModel,
    incremental_split,
    tier_kinds,
    won_offers,
)
from pull_support import SCENARIOS

MARCH = SCENARIOS / "march_budgets.yaml"


@functools.cache
def _month() -> pd.DataFrame:
    """The shipped month of orders, read once (tests slice it, never change it)."""
    return pd.read_parquet(samples.month_orders())


def _orders(n: int) -> pd.DataFrame:
    month = _month()
    ids = month["order_id"].unique()[:n]
    return month[month["order_id"].isin(set(ids))].reset_index(drop=True)


@pytest.mark.parametrize(("policy", "n", "cohorts", "seed"), [
    ("best", 20_000, {}, 0),
    ("best", 20_000, {"channel": {"store": 0.5, "app": 0.8}}, 3),  # the cohort factors multiply the model's chance
    ("stack", 1_500, {}, 0),
])
def test_no_response_is_todays_forecast_to_the_cent(policy: str, n: int, cohorts: dict[str, dict[str, float]],
                                                     seed: int) -> None:
    orders = _orders(n)
    sim = Simulator.from_scenario(MARCH)
    today = forecast(sim, orders, policy=policy, costs=CostModel(cohort_rates=cohorts, seed=seed), progress=False)
    switched_off = forecast(sim, orders, policy=policy, progress=False,
                            costs=CostModel(cohort_rates=cohorts, seed=seed, response=NO_RESPONSE))
    assert today.orders["redeemed"].sum() > 0
    pd.testing.assert_frame_equal(switched_off.orders, today.orders)
    pd.testing.assert_frame_equal(switched_off.budgets, today.budgets)
    pd.testing.assert_frame_equal(switched_off.redemptions, today.redemptions)


def test_a_response_model_redeems_fewer_the_shallower_the_offer() -> None:
    """With the default model fewer orders redeem than with everyone redeeming,
    and the ones that do are deeper discounts on average (the chance grows with depth)."""
    orders = _orders(20_000)
    sim = Simulator.from_scenario(MARCH)
    everyone = forecast(sim, orders, costs=CostModel(), progress=False).orders
    modelled = forecast(sim, orders, costs=CostModel(response=ResponseModel()), progress=False).orders
    assert 0 < modelled["redeemed"].sum() < everyone["redeemed"].sum()
    assert _mean_depth(modelled) > _mean_depth(everyone)


def _mean_depth(orders: pd.DataFrame) -> float:
    """The mean discount over the amount of the orders that redeemed."""
    return float((orders["discount"] / orders["amount"])[orders["redeemed"]].mean())


def test_a_segment_column_the_orders_lack_is_refused() -> None:
    with pytest.raises(ValueError, match="'tier_band'"):
        forecast(Simulator.from_scenario(MARCH), _orders(50), costs=CostModel(response=ResponseModel(),
                                                                             segment_column="tier_band"),
                 progress=False)


def test_the_split_of_a_forecast_adds_up_and_matches_the_formulas() -> None:
    """Per tier: incremental spend + subsidy == spend to the cent; under
    NO_RESPONSE spend is the forecast's discount and nothing is incremental;
    under the default model the totals are those of the per-order formulas."""
    orders = _orders(5_000)
    sim = Simulator.from_scenario(MARCH)
    result = forecast(sim, orders, costs=CostModel(), progress=False)
    kinds = tier_kinds(sim)
    off = incremental_split(result, NO_RESPONSE, kinds)
    assert list(off.columns) == list(SPLIT_COLUMNS)
    by_tier = result.orders[result.orders["redeemed"]].groupby("tier_id", observed=True)["discount"].sum()
    assert off["spend"].to_dict() == {str(k): int(v) for k, v in by_tier.items()}
    assert (off["incremental_spend"] == 0).all() and (off["incremental_orders"] == 0).all()
    on = incremental_split(result, ResponseModel(), kinds, by="campaign_id")
    assert (on["incremental_spend"] + on["subsidy"] == on["spend"]).all()
    assert (on["incremental_orders"] > 0).all() and (on["spend"] < on["orders"] * 10**9).all()
    offers = won_offers(result, kinds)
    model = ResponseModel()
    p = model.redeem_probability(offers)
    lift = model.order_lift(offers)
    expected_spend = (lift * p * result.orders["discount"].to_numpy())[offers.offered].sum()
    assert int(on["spend"].sum()) == pytest.approx(expected_spend, abs=len(on))


def test_the_split_refuses_a_forecast_where_qualifying_orders_did_not_redeem() -> None:
    sim = Simulator.from_scenario(MARCH)
    result = forecast(sim, _orders(2_000), costs=CostModel(redemption_rate=0.5), progress=False)
    with pytest.raises(ValueError, match="did not redeem"):
        incremental_split(result, ResponseModel(), tier_kinds(sim))
    with pytest.raises(ValueError, match="by must be"):
        incremental_split(result, ResponseModel(), tier_kinds(sim), by="segment")


def test_a_segment_the_model_marks_down_stops_redeeming() -> None:
    """segment_column names the per-order column the model's segments are read
    from: a segment with a large negative offset stops redeeming."""
    orders = _orders(10_000)
    sim = Simulator.from_scenario(MARCH)
    plain = forecast(sim, orders, costs=CostModel(response=ResponseModel(), segment_column="channel"),
                     progress=False).orders
    marked = forecast(sim, orders, costs=CostModel(response=ResponseModel(segment={"store": -20.0}),
                                                   segment_column="channel"), progress=False).orders
    store = (plain["channel"] == "store").to_numpy()
    assert plain["redeemed"][store].sum() > 0 and marked["redeemed"][store].sum() == 0
    assert marked["redeemed"].sum() < plain["redeemed"].sum()


@pytest.mark.parametrize(("fields", "error", "message"), [
    ({"response": 0.5}, TypeError, "response must be a ResponseModel or None"),
    ({"response": "default"}, TypeError, "response must be a ResponseModel"),
    ({"segment_column": ""}, ValueError, "segment_column must be a column name"),
    ({"segment_column": 3}, ValueError, "segment_column must be a column name"),
])
def test_bad_response_settings_are_refused(fields: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        CostModel(**fields)  # type: ignore[arg-type]  # what is being refused


def test_a_fixed_set_of_codes_is_refused_with_a_response_model() -> None:
    """A code's discount is priced during the walk, not known before it: the
    model has no offer to read, so the forecast says so rather than guess."""
    from .forecast_support import dated_orders
    from .test_forecast_codes import coded_demo

    with pytest.raises(ValueError, match="SPRING-5.*redemption_rate"):
        forecast(Simulator.from_scenario(coded_demo()), dated_orders(50), policy=["SPRING-5"],
                 costs=CostModel(response=ResponseModel()), progress=False)


@pytest.mark.parametrize("count", [1, 5, 62, 63, 70])
def test_the_walks_redeemer_bits_are_the_chance_compared_with_the_draw(count: int) -> None:
    """`_redeemers` (one bit per candidate, Python ints of any width past 62)
    says what `Rates.chance` and the draw say, with flat rates and with a matrix."""
    from promolab.analysis.forecast.spending import Rates, _redeemers

    rng = np.random.default_rng(count)
    n = 200
    block = rng.permutation(n)[:150]
    drawn = rng.random(150)
    for rates in (Rates(rng.random(count), rng.random(n)), Rates(rng.random(count), rng.random(n), rng.random((n, count)))):
        bits = _redeemers(rates, block, drawn)
        for k in range(0, 150, 7):
            for t in range(count):
                assert bool(bits[k] >> t & 1) == bool(drawn[k] < rates.chance(block[k:k + 1], np.array([t]))[0])
