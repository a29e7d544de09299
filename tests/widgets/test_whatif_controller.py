"""The what-if controller on the demo scenario: no widgets, no browser.

The controller's figures must be the analysis layer's: the order table is
`compare_tiers` on the built order, `before` is the sweep of the scenario's
tier, `after` the sweep of the edited copy.
"""

from __future__ import annotations

import dataclasses

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import compare_tiers, sweep
from promolab.sim.promotions import pricing_view
from promolab.widgets import (
    METRICS,
    ORDER_COLUMNS,
    WhatIfController,
    figure_png,
    order_display,
    sample_orders,
    status_line,
    tier_display,
    whatif_figure,
)


@pytest.fixture
def controller(sim: Simulator, orders: pd.DataFrame) -> WhatIfController:
    return WhatIfController(sim, orders, sample=1500)


def test_sample_orders_is_seeded_and_keeps_whole_orders(orders: pd.DataFrame) -> None:
    a, b = sample_orders(orders, 300, seed=3), sample_orders(orders, 300, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert a["order_id"].nunique() == 300
    full = orders.groupby("order_id").size()
    assert (a.groupby("order_id").size() == full[a["order_id"].unique()]).all()
    assert sample_orders(orders, None) is orders
    assert not sample_orders(orders, 300, seed=4).equals(a)


def test_initial_state_is_the_scenario(controller: WhatIfController, sim: Simulator) -> None:
    result = controller.result
    assert controller.edit.tier_id == "promo_welcome_10"
    assert list(result.tier_table.columns) == METRICS
    assert (result.tier_table.loc["change"] == 0).all()
    assert result.order_table.columns.tolist() == ORDER_COLUMNS
    assert result.order_table["reason"].eq("the order is empty").all()  # nothing built yet
    assert controller.tunable == [t.id for t in pricing_view(sim).tiers
                                  if t.spec.discount["type"] in ("AMOUNT", "PERCENT", "FIXED")]


def test_order_table_is_compare_tiers_plus_the_whatif_row(controller: WhatIfController, sim: Simulator) -> None:
    result = controller.set_order("alice", prod_grinder=1, prod_beans_ethiopia=3)
    table = result.order_table
    ids = table["tier_id"].tolist()
    assert ids[:2] == ["promo_welcome_10", "promo_welcome_10 (what-if)"]
    assert table["whatif"].tolist() == [i == "promo_welcome_10 (what-if)" for i in ids]
    request = {"customer": {"source_id": "alice"},
               "order": {"items": [{"product_id": "prod_beans_ethiopia", "quantity": 3},
                                   {"product_id": "prod_grinder", "quantity": 1}]}}
    expected = compare_tiers(sim, request)
    plain = table[~table["whatif"]].reset_index(drop=True)
    assert plain["tier_id"].tolist() == expected["tier_id"].astype(str).tolist()
    assert plain["discount_amount"].tolist() == expected["discount_amount"].tolist()
    assert plain["valid"].tolist() == expected["valid"].tolist()
    # the validation response agrees for the tiers that apply
    response = sim.client().validate_promotions(request)
    valid = plain[plain["valid"]]
    assert valid["tier_id"].tolist() == [t.id for t in response.promotions]


def test_tuning_the_value_re_runs_the_sweep(controller: WhatIfController, sim: Simulator) -> None:
    before = controller.result.tier_table.loc["before"].copy()
    result = controller.set_value(2000)
    table = result.tier_table
    pd.testing.assert_series_equal(table.loc["before"], before)
    assert table.at["after", "cost"] == 2 * table.at["before", "cost"]
    assert table.at["after", "orders_reached"] == table.at["before", "orders_reached"]
    # `after` is exactly the analysis layer's sweep of the what-if tier
    assert result.whatif is not None
    direct = sweep(sim, controller.orders, [result.whatif], progress=False).summary().iloc[0]
    assert table.at["after", "cost"] == direct["cost"]
    assert table.at["after", "orders_reached"] == direct["valid_orders"]


def test_minimum_order_amount_cuts_reach(controller: WhatIfController) -> None:
    result = controller.set_min_amount(8000)
    table = result.tier_table
    assert table.at["after", "orders_reached"] < table.at["before", "orders_reached"]
    assert table.at["change", "orders_reached"] < 0
    assert result.whatif is not None and result.whatif.rules is not None
    assert result.whatif.rules["rules"]["1"]["conditions"] == {"$more_than": [8000]}
    controller.set_order(None, prod_kettle=1, prod_mug=1)  # 6600 cents: above 50, below 80
    table = controller.result.order_table.set_index("tier_id")
    assert bool(table.at["promo_welcome_10", "valid"]) is True
    assert bool(table.at["promo_welcome_10 (what-if)", "valid"]) is False
    assert table.at["promo_welcome_10 (what-if)", "reason"] == "order.amount must be more than 8000"


def test_effect_and_tier_switch_and_reset(controller: WhatIfController) -> None:
    controller.set_effect("APPLY_TO_ITEMS")
    assert controller.result.tier_table.at["after", "cost"] > controller.result.tier_table.at["before", "cost"]
    controller.select_tier("promo_vip_10pct")
    assert controller.edit.discount_type == "PERCENT"
    assert controller.effects == ("APPLY_TO_ORDER", "APPLY_TO_ITEMS")
    assert controller.slider.unit == "%"
    controller.update(value=20, min_amount=10000)
    assert controller.result.tier_table.at["change", "orders_reached"] < 0
    controller.reset_tier()
    assert (controller.result.tier_table.loc["change"] == 0).all()
    with pytest.raises(ValueError, match="not a tunable"):
        controller.select_tier("promo_free_shipping")
    with pytest.raises(ValueError, match="not allowed"):
        controller.set_effect("APPLY_TO_ITEMS_BY_QUANTITY")
    with pytest.raises(TypeError, match="unknown changes"):
        controller.update(colour="red")


def test_listeners_see_every_change(controller: WhatIfController) -> None:
    seen = []
    controller.on_change(lambda result: seen.append((result.edit.value, result.draft.customer)))
    controller.set_value(1500)
    controller.set_customer("bob")
    controller.set_quantity("prod_mug", 2)
    assert seen == [(1500, None), (1500, "bob"), (1500, "bob")]


def test_changes_do_not_touch_the_simulator(controller: WhatIfController, sim: Simulator) -> None:
    state = sim.dump_json()
    controller.set_order("alice", prod_grinder=1)
    controller.update(value=5000, effect="APPLY_TO_ITEMS", min_amount=0)
    assert sim.dump_json() == state
    assert next(t.id for t in pricing_view(sim).tiers) == "promo_welcome_10"


def test_display_forms_and_chart_are_deterministic(controller: WhatIfController) -> None:
    result = controller.set_order("alice", prod_grinder=1, prod_beans_ethiopia=3)
    result = controller.set_value(2000)
    tiers = tier_display(result)
    assert tiers.loc["campaign cost", "change"].startswith("+$")
    order = order_display(result).set_index("tier")
    assert order.at["promo_welcome_10 (what-if)", "discount"] == "$20.00"
    assert order.at["promo_welcome_10", "discount"] == "$10.00"
    assert status_line(result) == (
        "promo_welcome_10 (what-if): $20.00 off, APPLY_TO_ORDER, minimum order $50.00; swept over 1,500 orders"
    )
    png = figure_png(whatif_figure(result))
    assert png.startswith(b"\x89PNG") and png == figure_png(whatif_figure(result))
    other = figure_png(whatif_figure(controller.set_value(3000)))
    assert other != png


def test_an_edit_the_engine_refuses_is_reported_not_raised(controller: WhatIfController) -> None:
    # every edit the tuner offers compiles; a tier the engine refuses (here a rule
    # family it does not know, patched in by hand) must not break the dashboard
    spec = controller.tiers["promo_welcome_10"]
    broken = {"rules": {"1": {"name": "no.such.rule", "conditions": {"$is": [1]}}, "logic": "1"}}
    controller.tiers["promo_welcome_10"] = dataclasses.replace(spec, rules=broken)
    result = controller.set_value(1200)
    assert result.error is not None and result.whatif is None
    assert pd.isna(result.tier_table.at["after", "cost"])
    assert "Not evaluated" in status_line(result)


def test_a_categorised_tier_of_the_demo_is_tuned_beside_a_unit_tier_and_a_scoped_code(
    sim: Simulator, orders: pd.DataFrame
) -> None:
    """The demo's stacking additions (docs/stacking.md#categories): a tier in a category
    (`promo_kettle_10pct`, in *Shop offers*) is tunable like any other, the UNIT tier of a
    category of its own is priced in the order table but not offered for tuning, and the
    scoped member codes' campaign does not disturb the tier list."""
    controller = WhatIfController(sim, orders, sample=400, tier="promo_kettle_10pct")
    assert "promo_kettle_10pct" in controller.tunable
    assert "promo_kettle_filters" not in controller.tunable  # UNIT: nothing to slide
    result = controller.set_order("dave", prod_kettle=1, prod_mug=2)
    rows = result.order_table.set_index("tier_id")
    assert result.error is None
    assert rows.loc["promo_kettle_10pct", "discount_amount"] == 540  # 10 % of the $54.00 kettle
    assert rows.loc["promo_kettle_filters", "discount_amount"] == 1200  # two $6.00 packs, added and free
    tuned = controller.set_value(25)
    assert tuned.error is None
    assert tuned.order_table.set_index("tier_id").loc["promo_kettle_10pct (what-if)", "discount_amount"] == 1350
    before, after = tuned.before, tuned.after
    assert after["orders_reached"] == before["orders_reached"] > 0  # the same kettle orders
    assert after["cost"] == pytest.approx(before["cost"] * 2.5, rel=0.01)  # 25 % instead of 10 %
