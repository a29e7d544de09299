"""`optimize` keeps count limits: P90 redemptions per calendar period (issue 37).

On 2,284 sample orders placed over two weeks and three days (Monday 2 March
2026 on, Europe/Berlin, weeks from Monday as the scenario counts them):

- differential: each week's P90 redemptions of an option, as the weekly
  constraint holds it, equals the P90 of the same option optimized on that
  week's orders alone (the period cut is the budgets' own calendar);
- table-driven: a weekly (monthly, ever) cap picks the best option whose P90
  in every period is within it, by MILP and brute force alike, and a binding
  cap changes the choice; the scenario's own weekly cap of 300 is read;
- bad input: a budget rule the optimizer cannot read is a ValueError naming
  it unless `budgets={key: None}` leaves it out; per-customer limits are
  named in the answer, not dropped in silence; bad `CountLimit`s are refused.
"""

from __future__ import annotations

import copy
import functools
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from promolab import Simulator
from promolab.analysis.forecast import CostModel
from promolab.analysis.optimize import CountLimit, Optimum, Space, TierGrid, optimize
from promolab.analysis.optimize.evaluation import Scope, evaluate
from promolab.analysis.response import ResponseModel

SCENARIO = Path("data/scenarios/march_budgets.yaml")
GRID = TierGrid("promo_beans_15", percent_off=[5, 10, 20, 30])
OPTIONS = [f"percent_off={p}" for p in (5, 10, 20, 30)]


@functools.cache
def sim() -> Simulator:
    return Simulator.from_scenario(SCENARIO)


@functools.cache
def days() -> pd.Series:
    frame = pd.read_csv("data/orders/sample_orders.csv").head(8000)
    return frame["order_id"].str[4:].astype(int) % 17  # day 0..16 from Monday 2 March


@functools.cache
def dated() -> pd.DataFrame:
    frame = pd.read_csv("data/orders/sample_orders.csv").head(8000)
    placed = pd.Timestamp("2026-03-02T10:00:00+01:00") + pd.to_timedelta(days(), unit="D")
    return frame.assign(placed_at=placed.dt.strftime("%Y-%m-%dT%H:%M:%S%z"))


@functools.cache
def free() -> Optimum:
    """Every option's figures, the weekly cap lifted."""
    return optimize(sim(), dated(), GRID, budgets={"camp_beans": CountLimit(10**9, "weekly")})


@functools.cache
def weekly_p90() -> np.ndarray:
    """(weeks, options): each week's orders optimized alone, their P90 redemptions."""
    out = []
    for week in range(3):
        alone = dated()[((days() >= 7 * week) & (days() < 7 * week + 7)).to_numpy()]
        table = optimize(sim(), alone, GRID, budgets={"camp_beans": None}).table
        out.append(table["redemptions_p90"].to_numpy(dtype=np.float64))
    return np.array(out)


def test_each_week_is_held_as_its_own_orders_alone() -> None:
    found = free()
    weeks = [c for c in found.constraints if c.kind == "count"]
    assert [c.name for c in weeks] == [f"weekly count camp_beans, week of 2026-03-{d}" for d in ("02", "09", "16")]
    chosen = OPTIONS.index(found.choice["promo_beans_15"])
    for c, alone in zip(weeks, weekly_p90()[:, chosen], strict=True):
        assert c.used == pytest.approx(alone, abs=1e-3)  # thousandths, rounded up
        assert c.used >= alone
    # the weeks' expected redemptions add up to the total the table reports
    evaluated = evaluate(sim(), dated(), Space((GRID,)), Scope(ResponseModel(), CostModel(), ("weekly", "daily")))
    weekly, daily = evaluated.periods
    total = free().table["redemptions"].to_numpy(dtype=np.float64)
    assert weekly.redemptions.sum(axis=1) == pytest.approx(total)
    assert daily.redemptions.sum(axis=1) == pytest.approx(total) and len(daily.starts) == 17


@pytest.mark.parametrize("method", ["milp", "brute"])
@pytest.mark.parametrize(("limit", "expected"), [
    (CountLimit(10**6, "weekly"), "percent_off=30"),
    (CountLimit(673, "weekly"), "percent_off=30"),  # week 1 of 30 % is 672.3
    (CountLimit(672, "weekly"), "percent_off=20"),  # binds: one redemption less changes the choice
    (CountLimit(500, "weekly"), "percent_off=10"),
    (CountLimit(100, "weekly"), "percent_off=5"),
    (CountLimit(50, "weekly"), None),  # 5 % expects 81 in week 1 at P90
    (CountLimit(1600, "monthly"), "percent_off=20"),  # every order in March: one month, the total
    (CountLimit(1600), "percent_off=20"),  # ever: the total's P90 (30 %: 1,624.7)
])
def test_a_cap_picks_the_best_option_within_it(limit: CountLimit, expected: str | None, method: str) -> None:
    lifted = CountLimit(10**9, "weekly")  # the scenario's weekly cap replaced when another period is tested
    given = limit if limit.period == "weekly" else (lifted, limit)
    found = optimize(sim(), dated(), GRID, budgets={"camp_beans": given}, method=method)
    if expected is None:
        assert not found.feasible
        assert found.reason is not None and "count camp_beans" in found.reason
        return
    assert found.choice == {"promo_beans_15": expected}
    counts = [c for c in found.constraints if c.kind == "count"]
    assert counts and all(c.slack >= 0 for c in counts)
    assert [c.bound for c in counts if c.name.startswith(f"{limit.period or 'total'} count")] == \
        [limit.limit] * (3 if limit.period == "weekly" else 1)
    # the best by value among the options within the cap in every period
    table = free().table
    per_period = weekly_p90() if limit.period == "weekly" else table["redemptions_p90"].to_numpy()[None, :]
    within = (per_period <= limit.limit).all(axis=0)
    values = table["value"].to_numpy(dtype=np.int64)
    assert found.objective == values[within].max()
    assert found.binding == tuple(c.name for c in counts if c.slack <= 0.01 * c.bound)


def test_the_scenario_weekly_cap_is_read() -> None:
    found = optimize(sim(), dated(), GRID)
    assert found.choice == {"promo_beans_15": "percent_off=10"}  # 20 % expects 536 in week 1 at P90
    assert [c.bound for c in found.constraints] == [300.0, 300.0, 300.0]
    undated = optimize(sim(), dated().drop(columns=["placed_at"]), GRID)  # priced at the clock: its week
    assert [c.name for c in undated.constraints] == ["weekly count camp_beans, week of 2026-02-23"]


def test_what_the_project_used_before_the_orders_is_not_left_to_them() -> None:
    """100 of the beans' 300 a week redeemed on the Monday before the orders: that week holds 200 more (the
    forecast's walk starts from the same totals), and a money budget is less the discount they gave."""
    used = Simulator.from_scenario(SCENARIO)
    used.advance(timedelta(days=1, hours=12))  # Monday 2 March, 12:00 in Berlin: week 1
    with used.client() as client:
        given = sum(client.redeem_stacked(customer={"source_id": f"early-{k}"},
                                          order={"items": [{"product_id": "prod_beans_ethiopia", "quantity": 1}]},
                                          redeemables=[{"object": "promotion_tier", "id": "promo_beans_15"}]
                                          ).order.total_discount_amount for k in range(100))
    found = optimize(used, dated(), GRID)
    assert [c.bound for c in found.constraints] == [200.0, 300.0, 300.0]
    assert found.choice == {"promo_beans_15": "percent_off=5"}  # 10 % expects 220 in week 1 at P90
    assert optimize(sim(), dated(), GRID).choice == {"promo_beans_15": "percent_off=10"}  # nothing used before
    money = optimize(used, dated(), GRID, budgets={"promo_beans_15": 10**7, "camp_beans": None})
    assert [(c.name, c.bound) for c in money.constraints] == [("budget promo_beans_15", 10**7 - given)]
    assert given > 0


def _scenario_with(rule: dict[str, Any]) -> Simulator:
    data = yaml.safe_load(SCENARIO.read_text())
    data = copy.deepcopy(data)
    for campaign in data["campaigns"]:
        for tier in campaign.get("tiers", []):
            if tier["id"] == "promo_beans_15":
                tier["validation_rules"]["rules"]["2"] = rule
    return Simulator.from_scenario(data)


@pytest.mark.parametrize(("rule", "message"), [
    ({"name": "campaign.orders.amount", "conditions": {"$less_than": [100000]}}, "limits order amounts"),
    ({"name": "campaign.redemptions.count.weekly", "conditions": {"$more_than": [3]}}, "not an upper bound"),
])
def test_a_rule_it_cannot_read_is_refused_unless_left_out(rule: dict[str, Any], message: str) -> None:
    unread = _scenario_with(rule)
    with pytest.raises(ValueError, match=f"rule 2 of promo_beans_15 \\({rule['name']}\\) cannot be a constraint: .*"
                                         f"{message}.*budgets=\\{{'camp_beans': None\\}}"):
        optimize(unread, dated(), GRID)
    left = optimize(unread, dated(), GRID, budgets={"camp_beans": None})
    assert left.constraints == ()
    assert left.left_out == (f"rule 2 of promo_beans_15 ({rule['name']}: left out by budgets=)",)
    assert "not constrained (left to the forecast's walk)" in left.summary()


def test_a_per_customer_limit_is_named_not_kept() -> None:
    found = optimize(sim(), dated(), TierGrid("promo_welcome_10", min_amount=[3000, 8000]))
    assert found.constraints == ()
    assert found.left_out == ("rule 2 of promo_welcome_10 (redemption.count.per_customer.daily: per customer)",)
    assert "redemption.count.per_customer.daily: per customer" in found.summary()


@pytest.mark.parametrize(("make", "message"), [
    (lambda: CountLimit(-1), "whole redemptions >= 0"),
    (lambda: CountLimit(2.5), "whole redemptions >= 0"),  # type: ignore[arg-type]  # bad on purpose
    (lambda: CountLimit(5, "hourly"), "period must be one of daily, weekly, monthly"),  # type: ignore[arg-type]  # bad on purpose
    (lambda: optimize(sim(), dated(), GRID, budgets={"camp_beans": "300"}), "a CountLimit, a tuple of them or None"),  # type: ignore[dict-item]  # bad on purpose
    (lambda: optimize(sim(), dated(), GRID, budgets={"camp_beans": ()}), "a CountLimit, a tuple of them or None"),
    # two of one kind: the last would silently replace the first (the tighter one, here)
    (lambda: optimize(sim(), dated(), GRID, budgets={"camp_beans": (CountLimit(5, "daily"), CountLimit(10**6, "daily"))}),
     "two limits of one kind"),
    (lambda: optimize(sim(), dated(), GRID, budgets={"camp_beans": (CountLimit(5), CountLimit(10**6))}),
     "two limits of one kind"),
    (lambda: optimize(sim(), dated(), GRID, budgets={"camp_beans": (100, 10**9)}), "two limits of one kind"),
    (lambda: optimize(sim(), dated(), GRID, budgets={"camp_beans": ((CountLimit(5),),)}),  # type: ignore[dict-item]  # bad on purpose
     "a CountLimit, a tuple of them or None"),
])
def test_a_bad_count_limit_is_refused(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()
