"""The charts say what they show: names, budgets and their crossings, changes,
counts, reasons. Checked through the matplotlib objects (lines, texts, labels,
marker sizes), not pixels: what a reader would read off the picture."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import yaml

from promolab import Simulator, samples
from promolab.analysis import (
    CostModel,
    compare_scenarios,
    delivery_slots,
    forecast,
    notebook_style,
    plot_delivery_attempts,
    plot_discount_by_tier,
    plot_discount_distribution,
    prepare_orders,
    scenario_names,
    sweep,
)
from promolab.analysis.forecast.scenario_chart import change_label

from .forecast_support import dated_orders

VIP_BUDGET = 20_000  # cents: small enough for two weeks of orders to pass it


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _scenario(vip_budget: int = VIP_BUDGET, beans_cap: int = 300) -> dict[str, Any]:
    document = yaml.safe_load(samples.forecast_scenario().read_text(encoding="utf-8"))
    for campaign in document["campaigns"]:
        for tier in campaign.get("tiers") or []:
            for rule_id, rule in tier.get("validation_rules", {}).get("rules", {}).items():
                if rule_id == "logic":
                    continue
                if rule["name"] == "campaign.orders.amount_discounted":
                    rule["conditions"] = {"$less_than": [vip_budget]}
                if rule["name"] == "campaign.redemptions.count.weekly":
                    rule["conditions"] = {"$less_than": [beans_cap]}
    return document


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    return dated_orders(4_000, days=14, seed=11)


@pytest.fixture(scope="module")
def sim() -> Simulator:
    return Simulator.from_scenario(_scenario())


@pytest.fixture(scope="module")
def result(sim: Simulator, orders: pd.DataFrame) -> Any:
    return forecast(sim, orders, costs=CostModel(redemption_rate=0.8, seed=1), progress=False)


# -- names -----------------------------------------------------------------------------------
def test_scenario_names_are_the_scenarios(sim: Simulator) -> None:
    names = scenario_names(sim)
    assert names["promo_vip_10pct"] == sim.state.tiers["promo_vip_10pct"].name == "VIP 10% off the order (max $50)"
    assert names["camp_vip"] == "VIP perks"
    assert set(names) == set(sim.state.tiers) | set(sim.state.campaigns)


def test_a_sweeps_chart_reads_tier_names(sim: Simulator) -> None:
    orders = pd.read_parquet("data/orders/sample_orders.parquet")
    result = sweep(sim, prepare_orders(sim, orders.head(3000)), progress=False)
    names = scenario_names(sim)
    ax = plot_discount_by_tier(result.frame, names=names)
    expected = [names[t].replace("$", r"\$") for t in result.frame["tier_id"].cat.categories]
    assert [t.get_text() for t in ax.get_yticklabels()] == expected
    # without names the ids stay (nothing invented)
    bare = plot_discount_by_tier(result.frame)
    assert [t.get_text() for t in bare.get_yticklabels()] == list(result.frame["tier_id"].cat.categories)
    focus = ["promo_beans_15", "promo_welcome_10"]
    hist = plot_discount_distribution(result.frame[result.frame["tier_id"].isin(focus)], tiers=focus, names=names)
    assert [t.get_text() for t in hist.get_legend().get_texts()] == [names[t].replace("$", r"\$") for t in focus]


# -- the burn-down reads its budget from the scenario ------------------------------------------
def test_burn_down_reads_the_budget_and_marks_the_crossing(result: Any) -> None:
    ax = result.plot_burn_down("camp_vip")
    (budget_line,) = [line for line in ax.lines if str(line.get_label()).startswith("budget")]
    assert list(budget_line.get_ydata()) == [VIP_BUDGET, VIP_BUDGET]  # the scenario's bound, not a copy of it
    (vip,) = [line for line in ax.lines if line.get_label() == "VIP perks"]
    daily = result.periods("day")
    vip_days = daily[daily["campaign_id"] == "camp_vip"]
    assert vip.get_ydata().tolist() == vip_days["discount_to_date"].astype(float).tolist()
    (crossing,) = [line for line in ax.lines if line.get_gid() == "crossing"]
    first = vip_days[vip_days["discount_to_date"] >= VIP_BUDGET].iloc[0]
    assert crossing.get_ydata().tolist() == [float(first["discount_to_date"])]
    assert pd.Timestamp(crossing.get_xdata()[0]) == first["period_start"].tz_convert(None)
    (caption,) = [t.get_text() for t in ax.texts if t.get_gid() == "crossing-note"]
    budgets = result.budgets.set_index("tier_id")
    refused_at = budgets.loc["promo_vip_10pct", "ran_out_at"]
    assert f"period starting {first['period_start'].strftime('%d %b %Y')}" in caption
    assert f"from {refused_at.strftime('%d %b %H:%M')} the budget refuses VIP 10% off the order" in caption
    # why past it: the campaign's other tiers redeemed after the refusal, named, with what they added
    r = result.redemptions
    placed = result.orders["placed_at"].iloc[r["row"].to_numpy()].to_numpy()
    late = r[(r["campaign_id"] == "camp_vip").to_numpy() & (placed >= refused_at)
             & (r["tier_id"] != "promo_vip_10pct").to_numpy()]
    assert len(late) > 0
    for tier in set(late["tier_id"].astype(str)):
        assert result.names[tier].replace("$", r"\$") in caption
    assert f"{int(late['discount'].sum()) // 100:,}." in caption.replace(r"\$", "")


def test_burn_down_of_a_count_budget_and_a_campaign_without_one(result: Any) -> None:
    with pytest.raises(ValueError, match=r"camp_beans.*no budget of its whole total.*campaign.redemptions.count.weekly"):
        result.plot_burn_down("camp_beans")  # its cap is weekly: no running total to hold against it
    with pytest.raises(ValueError, match="no campaign 'camp_nope'"):
        result.plot_burn_down("camp_nope")


def test_a_budget_never_reached_has_no_crossing(orders: pd.DataFrame) -> None:
    roomy = forecast(Simulator.from_scenario(_scenario(vip_budget=10_000_000)), orders, progress=False)
    ax = roomy.plot_burn_down("camp_vip")
    assert not [line for line in ax.lines if line.get_gid() == "crossing"] and not ax.texts


# -- a scenario comparison shows the differences ------------------------------------------------
@pytest.mark.parametrize(("before", "after", "text"), [
    (30_000_000, 31_800_000, "+$18,000.00 (+6.0%)"),
    (70_000_000, 69_650_000, "-$3,500.00 (-0.5%)"),
    (500, 500, "no change"),
    (0, 1200, "+$12.00"),
])
def test_change_label(before: int, after: int, text: str) -> None:
    assert change_label(before, after, "USD") == text


def test_scenario_chart_writes_each_change(sim: Simulator, orders: pd.DataFrame) -> None:
    proposal = Simulator.from_scenario(_scenario(beans_cap=600))
    cmp = compare_scenarios({"now": sim, "proposal": proposal}, orders, costs=CostModel(redemption_rate=0.8, seed=1))
    wide = cmp.campaigns()
    ax = cmp.plot()
    changes = [t.get_text() for t in ax.texts if t.get_gid() == "change"]
    expected = [change_label(int(a), int(b), "USD").replace("$", r"\$")
                for a, b in zip(wide[("discount", "now")], wide[("discount", "proposal")], strict=True)]
    assert changes == expected and any(c != "no change" for c in changes)
    names = scenario_names(sim)
    assert [t.get_text() for t in ax.get_yticklabels()] == [names[c] for c in wide.index]
    empty = [t.get_text() for t in ax.texts if t.get_gid() == "empty-row"]
    assert len(empty) == int((wide.xs("discount", axis=1, level=0) == 0).all(axis=1).sum())
    assert all(e == "no discount under any scenario" for e in empty)
    # the differences as bars: one per campaign, its length the change
    diff = cmp.plot(difference=True)
    widths = [p.get_width() for p in diff.patches]
    assert widths == (wide[("discount", "proposal")] - wide[("discount", "now")]).astype(float).tolist()
    assert diff.get_legend().get_texts()[0].get_text() == "proposal"


# -- overlapping markers are counted ------------------------------------------------------------
def _deliveries() -> pd.DataFrame:
    start = pd.Timestamp("2026-03-06T12:00:00Z")
    minutes = [0, 1, 1.03, 2, 2.03, 3.03, 4, 5.03, 8, 9.03, 16, 17.03, 32, 33.03]  # a receiver retrying
    rows = [{"webhook_id": "wh_crm", "attempted_at": start + pd.Timedelta(minutes=m), "outcome": "failed"}
            for m in minutes]
    rows += [{"webhook_id": "wh_notebook", "attempted_at": start + pd.Timedelta(hours=h), "outcome": "delivered"}
             for h in (0, 0.02, 6)]
    frame = pd.DataFrame(rows)
    frame["outcome"] = frame["outcome"].astype("category")
    return frame


def test_delivery_slots_count_every_attempt_once() -> None:
    deliveries = _deliveries()
    slots = delivery_slots(deliveries, "10min")
    assert int(slots["attempts"].sum()) == len(deliveries)
    crm = slots[slots["webhook_id"] == "wh_crm"]
    assert crm["attempts"].tolist() == [10, 2, 2]
    assert crm["first_at"].tolist()[1] == pd.Timestamp("2026-03-06T12:16:00Z")
    with pytest.raises(ValueError, match="positive duration"):
        delivery_slots(deliveries, "0min")
    with pytest.raises(KeyError, match="'outcome'"):
        delivery_slots(deliveries.drop(columns="outcome"))


def test_delivery_chart_is_legible() -> None:
    deliveries = _deliveries()
    ax = plot_delivery_attempts(deliveries, slot="10min")
    counts = [t.get_text() for t in ax.texts if t.get_gid() == "attempt-count"]
    assert counts == ["×10", "×2", "×2", "×2"]  # crm's three slots, then the notebook's first one
    drawn = sum(len(c.get_offsets()) for c in ax.collections)
    assert drawn == 5 and len(deliveries) == 17  # 5 markers, each saying how many it stands for
    sizes = np.concatenate([c.get_sizes() for c in ax.collections])
    assert sizes.max() == pytest.approx(30 * np.sqrt(10))  # a bigger marker for more attempts
    assert ax.get_title() == "Webhook delivery attempts (17 in all)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["wh_crm", "wh_notebook"]
    assert ax.get_legend().get_title().get_text() == "×n: attempts within 10 min"


# -- crisp for slides --------------------------------------------------------------------------
def test_notebook_style_draws_at_high_density() -> None:
    with matplotlib.rc_context():
        notebook_style()
        assert matplotlib.rcParams["savefig.dpi"] >= 144
        fig, _ = plt.subplots()
        assert fig.get_size_inches().tolist() == [8.0, 4.0]


def test_delivery_slots_follow_the_time_drawn() -> None:
    deliveries = _deliveries()
    _, (top, ax) = plt.subplots(2, 1, sharex=True)
    day = pd.Timestamp("2026-03-06T10:00:00Z")
    top.plot([day.to_datetime64(), (day + pd.Timedelta(hours=14)).to_datetime64()], [0, 0])  # the panel above: a day
    plot_delivery_attempts(deliveries, ax=ax)
    assert ax.get_legend().get_title().get_text() == "×n: attempts within 60 min"
    assert [t.get_text() for t in ax.texts if t.get_gid() == "attempt-count"] == ["×14", "×2"]
    alone = plot_delivery_attempts(deliveries)  # its own axis: slots of its own span (6 h)
    assert alone.get_legend().get_title().get_text() == "×n: attempts within 15 min"
