"""Saved variants of the what-if dashboard: the controller keeps them, the
comparisons are the analysis layer's figures (checked against `sweep` and
`compare_scenarios` called directly), and the panel's buttons call through."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from promolab import Simulator, samples
from promolab.analysis import CostModel, compare_scenarios, sweep
from promolab.sim.promotions import pricing_view
from promolab.widgets import (
    CURRENT,
    WhatIfController,
    comparison_display,
    figure_png,
    variants_figure,
    what_if,
)
from promolab.widgets.variants import COMPARISON_COLUMNS, DATED_COLUMNS, LIST_COLUMNS

ORDERS = Path(__file__).resolve().parents[2] / "data" / "orders" / "sample_orders.parquet"


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    return pd.read_parquet(ORDERS)


@pytest.fixture(scope="module")
def month() -> pd.DataFrame:
    """The first 4,000 orders of the dated month (enough for budgets to bite)."""
    frame = pd.read_parquet(samples.month_orders())
    keep = set(pd.unique(frame["order_id"])[:4000])
    return frame[frame["order_id"].isin(keep)].reset_index(drop=True)


@pytest.fixture
def controller(sim: Simulator, orders: pd.DataFrame) -> WhatIfController:
    return WhatIfController(sim, orders, sample=1500)


def test_save_list_load_delete_round_trip(controller: WhatIfController) -> None:
    controller.update(value=1500, min_amount=8000)
    saved = controller.save_variant("fifteen over 80")
    assert saved.spec == controller.result.whatif and saved.tier_id == "promo_welcome_10"
    controller.select_tier("promo_vip_10pct")
    controller.set_value(15)
    controller.save_variant("vip 15")
    listed = controller.variants()
    assert list(listed.columns) == LIST_COLUMNS
    assert listed["variant"].tolist() == ["fifteen over 80", "vip 15"]
    assert listed["tier_id"].tolist() == ["promo_welcome_10", "promo_vip_10pct"]
    assert listed["changes"].tolist() == [
        "$10.00 off -> $15.00 off; minimum order $50.00 -> $80.00", "10% off -> 15% off",
    ]

    controller.reset_tier()
    result = controller.load_variant("fifteen over 80")  # another tier: the tuner switches to it
    assert controller.edit == saved.edit and result.whatif == saved.spec
    assert result.tier_table.at["after", "cost"] == controller.compare_variants(["fifteen over 80"]).at[1, "cost"]

    controller.delete_variant("fifteen over 80")
    assert controller.variants()["variant"].tolist() == ["vip 15"]
    with pytest.raises(KeyError, match="no variant 'fifteen over 80'"):
        controller.load_variant("fifteen over 80")
    assert controller.edit == saved.edit  # a refused load leaves the tuner alone


def test_names_are_refused_when_empty_taken_or_the_scenario(controller: WhatIfController) -> None:
    for empty in ("", "   "):
        with pytest.raises(ValueError, match="needs a name"):
            controller.save_variant(empty)
    with pytest.raises(ValueError, match="names the scenario"):
        controller.save_variant(CURRENT)
    controller.set_value(1200)
    controller.save_variant("twelve")
    controller.set_value(1300)
    with pytest.raises(ValueError, match="already has a variant 'twelve'.*replace=True"):
        controller.save_variant("twelve")
    assert controller.variant("twelve").edit.value == 1200
    controller.save_variant("twelve", replace=True)
    assert controller.variant("twelve").edit.value == 1300 and len(controller.book) == 1


def test_a_name_is_unique_per_tier_and_told_apart_by_its_tier(controller: WhatIfController) -> None:
    controller.set_value(1500)
    controller.save_variant("richer")
    controller.select_tier("promo_vip_10pct")
    controller.set_value(20)
    controller.save_variant("richer")  # same name, another tier: allowed
    assert controller.variant("richer").tier_id == "promo_vip_10pct"  # the tier being tuned
    controller.select_tier("promo_brew_bundle")
    with pytest.raises(ValueError, match="several tiers have a variant 'richer'"):
        controller.load_variant("richer")
    controller.load_variant(("promo_welcome_10", "richer"))
    assert controller.edit.tier_id == "promo_welcome_10" and controller.edit.value == 1500


def test_an_edit_the_engine_refuses_is_not_saved(controller: WhatIfController) -> None:
    # as in test_whatif_controller: a rule family the engine does not know, patched in by hand
    broken = {"rules": {"1": {"name": "no.such.rule", "conditions": {"$is": [1]}}, "logic": "1"}}
    controller.tiers["promo_welcome_10"] = replace(controller.tiers["promo_welcome_10"], rules=broken)
    assert controller.set_value(1200).error is not None
    with pytest.raises(ValueError, match="cannot be saved"):
        controller.save_variant("nothing")


def test_compare_variants_is_the_sweep_of_the_same_tiers(controller: WhatIfController, sim: Simulator) -> None:
    controller.update(value=1500)
    controller.save_variant("fifteen")
    controller.update(min_amount=8000, effect="APPLY_TO_ITEMS")
    controller.save_variant("items over 80")
    controller.select_tier("promo_vip_10pct")
    controller.set_value(25)
    controller.save_variant("vip 25")
    frame = controller.compare_variants()
    assert list(frame.columns) == COMPARISON_COLUMNS
    assert frame["variant"].tolist() == [CURRENT, "fifteen", "items over 80", CURRENT, "vip 25"]

    specs = {v.name: v.spec for v in controller.book}
    direct = sweep(sim, controller.orders, ["promo_welcome_10", "promo_vip_10pct"],
                   progress=False).summary().set_index("tier_id")
    for position, row in enumerate(frame.itertuples()):
        if row.variant == CURRENT:
            expected = direct.loc[row.tier_id]
        else:  # what-if copies of one tier share an id: each is swept on its own
            expected = sweep(sim, controller.orders, [specs[row.variant]], progress=False).summary().iloc[0]
        assert row.cost == expected["cost"], position
        assert row.orders_affected == expected["valid_orders"]
        assert row.share_affected == pytest.approx(expected["share_affected"])
        assert row.avg_discount == pytest.approx(expected["avg_discount"])
    base = frame.set_index(["tier_id", "variant"])
    for tier, name in [("promo_welcome_10", "items over 80"), ("promo_vip_10pct", "vip 25")]:
        assert base.at[(tier, name), "cost_change"] == base.at[(tier, name), "cost"] - base.at[(tier, CURRENT), "cost"]
    assert frame.loc[frame["variant"] == CURRENT, "cost_change"].eq(0).all()

    only = controller.compare_variants(["vip 25"])
    assert only["variant"].tolist() == [CURRENT, "vip 25"]

    shown = comparison_display(frame)
    assert shown.at[1, "cost"].startswith("$") and shown.at[1, "cost_change"].startswith("+$")
    assert shown.at[2, "share_change"].endswith(" pts")
    assert figure_png(variants_figure(frame)).startswith(b"\x89PNG")


def test_compare_without_variants_is_refused(controller: WhatIfController) -> None:
    with pytest.raises(ValueError, match="save one first"):
        controller.compare_variants()


def _dated_setup(orders: pd.DataFrame) -> tuple[Simulator, WhatIfController]:
    sim = Simulator.from_scenario(samples.forecast_scenario())
    return sim, WhatIfController(sim, orders, sample=500)


def test_dated_comparison_is_compare_scenarios(orders: pd.DataFrame, month: pd.DataFrame) -> None:
    sim, controller = _dated_setup(orders)
    controller.update(value=1500)
    variant = controller.save_variant("fifteen")
    costs = CostModel(redemption_rate={"promo_welcome_10": 0.6}, default_rate=0.9)
    frame = controller.compare_variants(dated_orders=month, costs=costs)
    assert list(frame.columns) == DATED_COLUMNS
    assert frame["variant"].tolist() == [CURRENT, "fifteen"]

    # the same call made by hand: every active tier, the tuned one replaced under its own id
    tuned = replace(variant.spec, id="promo_welcome_10")
    tiers = [tuned if t.id == "promo_welcome_10" else t.id for t in pricing_view(sim).tiers]
    direct = compare_scenarios({CURRENT: sim, "fifteen": (sim, tiers)}, month, costs=costs).totals()
    for column in ("orders", "redeemed", "discount", "held_back"):
        assert frame[column].tolist() == direct[column].tolist(), column
    assert frame.at[1, "discount_change"] == direct.at[1, "discount"] - direct.at[0, "discount"]
    assert frame.at[1, "discount"] != frame.at[0, "discount"]
    assert comparison_display(frame).at[1, "discount_change"].startswith(("+$", "-$"))


def test_a_variant_as_the_scenario_forecasts_as_the_scenario(orders: pd.DataFrame, month: pd.DataFrame) -> None:
    """The tier replaced by an identical TierSpec under its own id (what a
    dated variant is) changes nothing: budgets, limits and per-tier rates
    read the replacement as the tier."""
    _, controller = _dated_setup(orders)
    controller.save_variant("unchanged")
    costs = CostModel(redemption_rate={"promo_welcome_10": 0.5})
    frame = controller.compare_variants(dated_orders=month, costs=costs)
    assert frame.at[1, "changes"] == "as in the scenario"
    for column in ("redeemed", "discount", "held_back"):
        assert frame.at[1, column] == frame.at[0, column], column
        assert frame.at[1, f"{column}_change"] == 0


# -- the panel ------------------------------------------------------------------------
def test_panel_buttons_call_the_controller(sim: Simulator, orders: pd.DataFrame) -> None:
    dashboard = what_if(sim, orders, sample=600)
    panel, controller = dashboard.variants, dashboard.controller
    assert panel.widget in dashboard.widget.children and panel.saved.options == ()

    panel.save.click()  # no name
    assert "needs a name" in panel.message.value and len(controller.book) == 0

    dashboard.value.value = 15.0
    panel.name.value = "fifteen"
    panel.save.click()
    assert controller.variants()["variant"].tolist() == ["fifteen"]
    assert panel.saved.value == ("promo_welcome_10", "fifteen") and panel.name.value == ""
    assert "$10.00 off -&gt; $15.00 off" in panel.message.value

    panel.name.value = "fifteen"
    panel.save.click()
    assert "already has a variant" in panel.message.value
    dashboard.value.value = 16.0
    panel.name.value, panel.replace.value = "fifteen", True
    panel.save.click()
    assert controller.variant("fifteen").edit.value == 1600

    dashboard.reset.click()
    assert controller.edit.value == 1000
    panel.load.click()
    assert controller.edit.value == 1600 and dashboard.value.value == 16.0  # the tuner's controls follow

    panel.compare.click()
    assert "current scenario" in panel.table.value and "fifteen" in panel.table.value
    assert bytes(panel.chart.value).startswith(b"\x89PNG")

    panel.delete.click()
    assert len(controller.book) == 0 and panel.saved.options == () and panel.saved.value is None
    panel.load.click()
    assert "select a saved variant" in panel.message.value
    panel.compare.click()
    assert "save one first" in panel.message.value
