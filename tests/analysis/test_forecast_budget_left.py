"""`ForecastResult.budget_left`: each budget's total and what was left, at the end of every period.

Differential: the forecast's redemptions replayed one by one into a copy of
the simulator's own `UsageLedger` (what the redemption operation counts
with), read at each period's last instant, must give the same totals as the
report, which computes them from the end totals at once. On a simulator
with redemptions already made (they count), for the three report
frequencies, the "best" and "stack" policies; and a code's stock.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pandas as pd
import pytest
import yaml

from promolab import Simulator, samples
from promolab.analysis.forecast import forecast
from promolab.engine import BUDGET_FAMILIES, UsageLedger, period_keys, period_slot
from promolab.sim.usage import usage_of

from .forecast_support import dated_orders
from .test_forecast_codes import START, coded_demo


def _with_history() -> Simulator:
    """The forecast scenario with 40 beans and 5 VIP redemptions made on 2 March, before the orders."""
    sim = Simulator.from_scenario(samples.forecast_scenario())
    sim.advance(datetime.fromisoformat("2026-03-02T08:00:00+00:00") - sim.now)
    with sim.client() as client:
        for _ in range(40):
            client.redeem_stacked(redeemables=[{"object": "promotion_tier", "id": "promo_beans_15"}],
                                  order={"items": [{"product_id": "prod_beans_ethiopia", "quantity": 1}]})
    return sim


def _replayed(sim: Simulator, result: Any, freq: str) -> pd.DataFrame:
    """The report, recomputed by recording each redemption and reading the ledger at each period end;
    its parts by ledgers of their own: the history alone (never recorded into) and, per tier, that
    tier's redemptions alone."""
    ledger = usage_of(sim).copy()
    history = usage_of(sim).copy()
    own = {t: UsageLedger(ledger.timezone, ledger.week_start) for t in result.tier_campaigns}
    orders, redemptions = result.orders, result.redemptions
    starts = result.period_starts(freq)
    step = {"day": pd.DateOffset(days=1), "week": pd.DateOffset(weeks=1), "month": pd.DateOffset(months=1)}[freq]
    ends = (starts.tz_localize(None) + step).tz_localize(starts.tz, ambiguous=False, nonexistent="shift_forward")
    tracks = [t for t in result.budget_tracks if t.rule in BUDGET_FAMILIES]
    rows, done = [], 0
    children = redemptions.sort_values("row", kind="stable").to_dict("records")
    for start, end in zip(starts, ends, strict=True):
        while done < len(children) and orders["placed_at"].iloc[children[done]["row"]] < end:
            child = children[done]
            at = orders["placed_at"].iloc[child["row"]].to_pydatetime()
            for book in (ledger, own[str(child["tier_id"])]):
                book.record(str(child["tier_id"]), str(child["campaign_id"]), None, ledger.keys(at),
                            int(child["discount"]), int(orders["amount"].iloc[child["row"]]), str(child["order_id"]))
            done += 1
        last = (end - timedelta(microseconds=1)).to_pydatetime()
        for track in tracks:
            read = (BUDGET_FAMILIES[track.rule], track.tier_id, track.campaign_id, None, last)
            used, before, by_tier = ledger.value(*read), history.value(*read), own[track.tier_id].value(*read)
            rows.append((track.rule, start, used, by_tier, used - by_tier - before, before))
    return pd.DataFrame(rows, columns=["rule", "period_start", *_SPLIT])


#: `used` and its parts: the tier's own redemptions, the campaign's other tiers', the simulator's before
_SPLIT = ("used", "used_by_tier", "used_by_other_tiers", "used_before")


@pytest.mark.parametrize("policy", ["best", "stack"])
@pytest.mark.parametrize("freq", ["day", "week", "month"])
def test_budget_left_equals_the_ledger_read_at_each_period_end(policy: str, freq: str) -> None:
    sim = _with_history()
    orders = dated_orders(2_500, days=12, seed=5, start="2026-03-02T09:00:00Z")
    result = forecast(sim, orders, policy=policy, progress=False)
    left = result.budget_left(freq)
    got = left[left["rule"].isin(list(BUDGET_FAMILIES))][["rule", "period_start", *_SPLIT]]
    got = got.sort_values(["rule", "period_start"], kind="stable")
    expected = _replayed(sim, result, freq).sort_values(["rule", "period_start"], kind="stable")
    assert got.astype(object).values.tolist() == expected.astype(object).values.tolist()
    # `used` is the sum of its parts by construction; what can break is a part going negative
    # (a tier's own ledger reading more than the campaign's, history counted twice)
    assert (left[list(_SPLIT)] >= 0).all().all(), left[list(_SPLIT)].min()
    if freq != "month":  # (the month's end falls in a week after the orders: that week's cap reads 0)
        beans = left[left["rule"] == "campaign.redemptions.count.weekly"]
        assert (beans["used_by_other_tiers"] > 0).any()  # the campaign's tiers without the cap count toward it
    if freq == "day":  # the history counts: 40 beans redemptions that Monday before the first order
        beans = left[left["rule"] == "campaign.redemptions.count.weekly"]
        assert int(beans["used"].iloc[0]) >= 40


def test_an_ever_budget_only_grows_and_ends_at_what_budgets_reports() -> None:
    result = forecast(Simulator.from_scenario(samples.forecast_scenario()), dated_orders(3_000, days=10, seed=2),
                      progress=False)
    vip = result.budget_left("day").query("rule == 'campaign.orders.amount_discounted'")
    assert vip["used"].is_monotonic_increasing and (vip["period"].isna()).all()
    assert int(vip["used"].iloc[-1]) == int(result.budgets.set_index("rule").loc["campaign.orders.amount_discounted", "used"])
    everyone = result.budgets.loc[~result.budgets["per_customer"], "rule"].tolist()  # per-customer limits left out
    assert list(dict.fromkeys(result.budget_left("day")["rule"])) == everyone


def test_a_codes_stock_runs_down_to_zero_on_the_day_it_ran_out() -> None:
    orders = dated_orders(1_200, days=6, seed=21, start=START)
    result = forecast(Simulator.from_scenario(coded_demo(quantity=60)), orders, policy=["SPRING-5"], progress=False)
    stock = result.budget_left("day").query("tier_id == 'SPRING-5'")
    ran_out = result.budgets.set_index("tier_id").loc["SPRING-5", "ran_out_at"]
    assert stock["left"].is_monotonic_decreasing and int(stock["left"].iloc[-1]) == 0
    first_empty = stock.loc[stock["left"] == 0, "period_start"].iloc[0]
    assert first_empty == ran_out.normalize()
    assert int(stock["used"].iloc[0]) == int(result.orders["redeemed"][result.orders["placed_at"] < stock["period_start"].iloc[0]
                                                                         + pd.Timedelta(days=1)].sum())


def test_without_orders_or_budgets_the_frame_is_empty_with_its_columns() -> None:
    from promolab.analysis.forecast.budget_left import BUDGET_LEFT_COLUMNS

    result = forecast(Simulator.from_scenario(samples.demo_scenario()), dated_orders(50), progress=False)
    empty = result.budget_left("week")
    assert list(empty.columns) == list(BUDGET_LEFT_COLUMNS) and empty.empty
    assert (str(empty["limit"].dtype), str(empty["rule"].dtype), str(empty["period_start"].dt.tz)) == (
        "Int64", "string", result.timezone)  # typed as a frame with rows: a file of it reads back the same
    with pytest.raises(ValueError, match="freq must be one of"):
        result.budget_left("year")  # type: ignore[arg-type]  # bad on purpose


def _more_budgets() -> dict[str, Any]:
    """The forecast scenario plus budgets of the other measures and periods: the
    orders amount of the gear campaign, a daily count of the mug tier, a monthly
    count of the merch campaign."""
    doc = yaml.safe_load(samples.forecast_scenario().read_text())
    tiers = {t["id"]: t for c in doc["campaigns"] for t in c.get("tiers") or []}
    for tier_id, name, bound in (("promo_gear_split", "campaign.orders.amount", 900_000),
                                 ("promo_mug_3", "redemption.count.daily", 6),
                                 ("promo_merch_split", "campaign.redemptions.count.monthly", 500)):
        rules = tiers[tier_id].setdefault("validation_rules", {}).setdefault("rules", {})
        ids = [k for k in rules if k != "logic"]
        new = str(len(ids) + 1)
        rules[new] = {"name": name, "conditions": {"$less_than": [bound]}}
        rules["logic"] = f"({rules['logic']}) and {new}" if rules.get("logic") else " and ".join([*ids, new])
    return doc


@pytest.mark.parametrize("policy", ["best", "stack"])
def test_budget_left_equals_a_forecast_of_the_orders_placed_before_each_day_ends(policy: str) -> None:
    """Not from the report's own inputs: the orders placed before each day's end
    forecast alone leave the ledger totals the report must show for that day
    (across the DST change of 29 March and the month's end)."""
    doc = _more_budgets()
    orders = dated_orders(1_200, days=8, seed=3, start="2026-03-26T00:00:00Z")
    full = forecast(Simulator.from_scenario(doc), orders, policy=policy, progress=False)
    left = full.budget_left("day").set_index(["rule", "period_start"])["used"]
    assert {"campaign.orders.amount", "redemption.count.daily", "campaign.redemptions.count.monthly"} <= set(
        left.index.get_level_values("rule"))
    placed = pd.to_datetime(orders["placed_at"], utc=True)
    checked = 0
    for start in full.period_starts("day")[:-1]:
        end = (start.tz_localize(None) + pd.Timedelta(days=1)).tz_localize(start.tz)
        before = orders[placed < end]
        prefix = forecast(Simulator.from_scenario(doc), before, policy=policy, progress=False)
        keys = period_keys((end - pd.Timedelta(microseconds=1)).to_pydatetime(), full.timezone, full.week_start)
        for track in prefix.budget_tracks:
            slot = period_slot(BUDGET_FAMILIES[track.rule].period)
            want = track.totals.get(None if slot is None else keys[slot], 0)
            assert int(left[(track.rule, start)]) == want, (track.rule, start)
            checked += 1
    assert checked >= 7 * 4
