"""`optimize` end to end on the March budgets scenario and the sample orders.

Differential: an option's orders won, spend and redemptions equal what a
plain `sweep` + `best_tier` of the scenario with that option in its tier's
place gives, through `response.expect`. Monotone: a deeper percent off
never lowers expected spend; a higher threshold never wins more orders; a
lower cap never spends more. Segments of one tier add up to the tier. The
answer keeps its budget (read from the scenario or given), the MILP and
brute force agree, infeasible problems are answers, and bad input is a
ValueError naming what is wrong.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import best_tier, sweep
from promolab.analysis.forecast.candidates import candidate_tiers
from promolab.analysis.optimize import CountLimit, Optimum, Space, TierGrid, optimize
from promolab.analysis.response import NO_RESPONSE, Offers, ResponseModel, expect
from promolab.sim import pricing_view

SCENARIO = "data/scenarios/march_budgets.yaml"
PERCENTS = [10, 20, 30, 40]


@functools.cache
def sim() -> Simulator:
    return Simulator.from_scenario(SCENARIO)


@functools.cache
def orders() -> pd.DataFrame:
    frame = pd.read_csv("data/orders/sample_orders.csv")
    vip = frame["customer_source_id"].isin(["alice", "dave"])
    return frame.assign(segment=np.where(vip, "vip", "rest"))


@functools.cache
def beans() -> Optimum:
    return optimize(sim(), orders(), TierGrid("promo_beans_15", percent_off=PERCENTS))


def test_an_option_equals_the_sweep_of_the_scenario_with_it() -> None:
    view = pricing_view(sim())
    tiers, _, _ = candidate_tiers(view, None, best=True)
    base = next(t for t in tiers if t.id == "promo_beans_15").spec
    option = replace(base, id="beans_30", discount={**base.discount, "percent_off": 30})
    swept = sweep(sim(), orders(), [option if t.id == base.id else t for t in tiers], progress=False)
    won = best_tier(swept.frame)
    won = won[(won["tier_id"] == "beans_30") & (won["discount_amount"] > 0)]
    amount = (won["total_amount"] + won["discount_amount"]).to_numpy(dtype=np.float64)
    d = won["discount_amount"].to_numpy(dtype=np.float64)
    offers = Offers(d / amount, np.zeros(len(d)), np.full(len(d), "PERCENT", dtype=object),
                    np.full(len(d), "", dtype=object))
    row = beans().table.set_index("option").loc["percent_off=30"]
    assert row["orders_won"] == len(won)
    assert row["spend"] == round(expect(ResponseModel(), offers, amount, d).spend.sum())
    assert row["redemptions"] == pytest.approx(expect(ResponseModel(), offers, amount, d).redemptions.sum())
    plain = optimize(sim(), orders(), TierGrid("promo_beans_15", percent_off=[30]), model=NO_RESPONSE)
    assert plain.table.loc[0, "spend"] == int(d.sum())  # no response: every order won redeems, to the cent
    assert plain.table.loc[0, "incremental_net_revenue"] == -int(d.sum())  # and none is incremental


def test_a_deeper_discount_spends_more() -> None:
    table = beans().table
    assert table["option"].tolist() == [f"percent_off={p}" for p in PERCENTS]
    spend = table["spend"].to_numpy(dtype=np.int64)
    assert (np.diff(spend) >= 0).all() and spend[-1] > spend[0]
    assert (table["spend_p90"] >= table["spend"]).all()
    assert (table["incremental_spend"] + table["subsidy"] - table["spend"]).abs().max() <= 1


def test_threshold_and_cap_axes_are_monotone() -> None:
    welcome = optimize(sim(), orders(), TierGrid("promo_welcome_10", min_amount=[3000, 5000, 8000, 12000])).table
    assert (np.diff(welcome["orders_won"].to_numpy(dtype=np.int64)) <= 0).all()
    caps = optimize(sim(), orders(), TierGrid("promo_beans_15", percent_off=[30], cap=[None, 3000, 1000, 300])).table
    assert caps["option"].tolist()[:2] == ["percent_off=30, cap=None", "percent_off=30, cap=3000"]
    assert (np.diff(caps["spend"].to_numpy(dtype=np.int64)) <= 0).all()


def test_segments_of_a_tier_add_up_to_the_tier() -> None:
    space = Space([TierGrid("promo_beans_15", percent_off=PERCENTS, segment=s) for s in ("vip", "rest")])
    split = optimize(sim(), orders(), space).table
    both = split.groupby("option", sort=False)[["orders_won", "spend"]].sum()
    whole = beans().table.set_index("option")[["orders_won", "spend"]]
    assert (both["orders_won"] == whole["orders_won"]).all()
    assert ((both["spend"] - whole["spend"]).abs() <= 1).all()


@pytest.mark.parametrize("method", ["milp", "brute"])
def test_a_given_budget_is_kept(method: str) -> None:
    p90 = beans().table.set_index("option")["spend_p90"]
    limit = int(p90["percent_off=30"]) + 1  # 40 % is over it
    lifted = CountLimit(10**6, "weekly")  # the scenario's weekly cap of 300, lifted: the money budget decides
    found = optimize(sim(), orders(), TierGrid("promo_beans_15", percent_off=PERCENTS),
                     budgets={"camp_beans": (limit, lifted)}, method=method)
    assert found.feasible
    chosen = found.chosen()
    assert int(chosen["spend_p90"].sum()) <= limit
    best_within = beans().table[beans().table["spend_p90"] <= limit]["value"].max()
    assert found.objective == best_within
    budget, count = found.constraints
    assert budget.name == "budget camp_beans" and budget.slack >= 0
    assert count.name == "weekly count camp_beans, week of 2026-02-23" and count.bound == 10**6
    assert found.runner_up is not None and found.gap is not None and found.gap >= 0
    assert "$" in found.summary() and "runner-up" in found.summary()


def test_the_scenario_budget_is_read_and_an_impossible_floor_answered() -> None:
    vip = optimize(sim(), orders(), TierGrid("promo_vip_10pct", percent_off=[5, 20, 40]), min_redemptions=1e6)
    assert not vip.feasible and vip.choice == {}
    assert vip.reason is not None and "floor of 1e+06 redemptions" in vip.reason
    assert vip.summary().startswith("no setting meets the constraints")
    kept = optimize(sim(), orders(), TierGrid("promo_vip_10pct", percent_off=[5, 20, 40]))
    (budget,) = kept.constraints
    assert budget.name == "budget camp_vip" and budget.bound == 499_999  # $5,000.00 of VIP discounts, $less_than
    assert budget.used <= budget.bound


@pytest.mark.parametrize(("make", "message"), [
    (lambda: TierGrid("promo_beans_15"), "is empty"),
    (lambda: TierGrid("promo_beans_15", percent_off=[120]), "percent_off must be numbers from 0 to 100"),
    (lambda: TierGrid("promo_welcome_10", amount_off=[-5]), "amount_off must be whole cents >= 0"),
    (lambda: TierGrid("promo_welcome_10", min_amount=[1.5]), "min_amount must be whole cents"),
    (lambda: TierGrid("promo_beans_15", percent_off=[5], amount_off=[5]), "both percent_off and amount_off"),
    (lambda: Space([]), "no group"),
    (lambda: Space([TierGrid("promo_beans_15", cap=[1]), TierGrid("promo_beans_15", cap=[2])]), "repeat"),
])
def test_a_bad_space_is_refused(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]  # a zero-argument callable


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"space": TierGrid("promo_nope", percent_off=[5])}, "unknown or inactive tier 'promo_nope'"),
    ({"space": TierGrid("promo_welcome_10", percent_off=[5])}, "the tier is AMOUNT, not PERCENT"),
    ({"budgets": {"camp_nope": 100}}, "budgets names 'camp_nope'"),
    ({"budgets": {"camp_beans": -1}}, "whole cents >= 0"),
    ({"method": "greedy"}, "method must be one of"),
    ({"min_redemptions": -3}, "min_redemptions"),
])
def test_bad_input_is_refused(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"space": TierGrid("promo_beans_15", percent_off=[5]), "orders": orders(), **kwargs}
    with pytest.raises(ValueError, match=message):
        optimize(sim(), **args)  # type: ignore[arg-type]  # bad on purpose


def test_orders_must_be_a_frame() -> None:
    with pytest.raises(TypeError, match="line-items DataFrame"):
        optimize(sim(), "orders.csv", TierGrid("promo_beans_15", percent_off=[5]))  # type: ignore[arg-type]  # bad on purpose


def test_a_segment_needs_its_column() -> None:
    with pytest.raises(ValueError, match="no 'tier' column"):
        optimize(sim(), orders(), Space([TierGrid("promo_beans_15", percent_off=[5], segment="gold")], "tier"))


def test_a_named_variant_equals_the_same_grid_point() -> None:
    view = pricing_view(sim())
    base = next(t for t in view.tiers if t.id == "promo_beans_15").spec
    deep = replace(base, discount={**base.discount, "percent_off": 30})
    table = optimize(sim(), orders(), TierGrid("promo_beans_15", percent_off=[30], variants={"deep": deep})).table
    figures = ["orders_won", "spend", "spend_p90", "subsidy", "value"]
    assert table["option"].tolist() == ["percent_off=30", "deep"]
    assert table.loc[0, figures].tolist() == table.loc[1, figures].tolist()
    assert table.loc[0, "orders_won"] > 0
