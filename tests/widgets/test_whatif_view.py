"""The ipywidgets view is thin: a control change reaches the controller and the
table and chart widgets are redrawn at once. Widgets work without a kernel."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from promolab import Simulator
from promolab.widgets import WhatIfController, WhatIfDashboard, outlook_line, what_if

ORDERS = Path(__file__).resolve().parents[2] / "data" / "orders" / "sample_orders.parquet"


@pytest.fixture
def dashboard(sim: Simulator) -> WhatIfDashboard:
    return what_if(sim, pd.read_parquet(ORDERS), sample=800)


def test_controls_start_from_the_tier(dashboard: WhatIfDashboard) -> None:
    assert dashboard.tier.value == "promo_welcome_10"
    assert dashboard.value.value == 10.0 and dashboard.value.description == "Amount off ($)"
    assert dashboard.effect.value == "APPLY_TO_ORDER"
    assert dashboard.min_amount.value == 50.0
    assert "promo_welcome_10: before vs after" in dashboard.tier_table.value
    assert bytes(dashboard.chart.value).startswith(b"\x89PNG")


def test_a_control_change_redraws_table_and_chart(dashboard: WhatIfDashboard) -> None:
    table, chart = dashboard.tier_table.value, dashboard.chart.value
    dashboard.effect.value = "APPLY_TO_ITEMS"
    assert dashboard.controller.edit.effect == "APPLY_TO_ITEMS"
    assert dashboard.tier_table.value != table
    assert dashboard.chart.value != chart
    assert "APPLY_TO_ITEMS" in dashboard.status.value


def test_order_builder_and_customer(dashboard: WhatIfDashboard) -> None:
    dashboard.quantities["prod_grinder"].value = 1
    dashboard.quantities["prod_kettle"].value = 1
    dashboard.customer.value = "alice"
    assert dashboard.controller.draft.request() == {
        "order": {"items": [{"product_id": "prod_grinder", "quantity": 1},
                            {"product_id": "prod_kettle", "quantity": 1}]},
        "customer": {"source_id": "alice"},
    }
    assert "promo_brew_bundle" in dashboard.order_table.value
    assert "$24.00" in dashboard.order_table.value  # the bundle: 143.00 -> 119.00


def test_tier_switch_resyncs_controls_and_reset(dashboard: WhatIfDashboard) -> None:
    dashboard.tier.value = "promo_vip_10pct"
    assert dashboard.value.description == "Percent off (%)" and dashboard.value.value == 10.0
    assert list(dashboard.effect.options) == ["APPLY_TO_ORDER", "APPLY_TO_ITEMS"]
    assert dashboard.min_amount.value == 0.0
    assert dashboard.controller.edit.min_amount is None  # syncing did not write back
    dashboard.value.value = 25.0
    dashboard.min_amount.value = 100.0
    assert dashboard.controller.edit.value == 25.0 and dashboard.controller.edit.min_amount == 10000
    dashboard.reset.click()
    assert dashboard.value.value == 10.0 and dashboard.min_amount.value == 0.0
    assert dashboard.controller.edit.min_amount is None


def test_value_slider_in_dollars_is_cents_in_the_controller(sim: Simulator) -> None:
    controller = WhatIfController(sim, pd.read_parquet(ORDERS), sample=200, tier="promo_brew_bundle")
    dashboard = WhatIfDashboard(controller)
    assert dashboard.value.description == "Fixed price ($)" and dashboard.value.max == 240.0
    dashboard.value.value = 99.5
    assert controller.edit.value == 9950


def test_changes_made_in_code_show_in_the_controls(dashboard: WhatIfDashboard) -> None:
    dashboard.controller.set_order("dave", prod_mug=2)
    assert dashboard.customer.value == "dave"
    assert dashboard.quantities["prod_mug"].value == 2 and dashboard.quantities["prod_grinder"].value == 0
    assert dashboard.controller.draft.request()["order"]["items"] == [{"product_id": "prod_mug", "quantity": 2}]
    dashboard.controller.select_tier("promo_beans_15")
    assert dashboard.tier.value == "promo_beans_15" and dashboard.value.value == 15.0


def test_the_outlook_follows_the_slider_and_is_in_the_snapshot(dashboard: WhatIfDashboard) -> None:
    first = dashboard.outlook.value
    assert outlook_line(dashboard.controller.result) in first
    dashboard.value.value = 20.0
    assert dashboard.outlook.value != first
    assert outlook_line(dashboard.controller.result) in dashboard.outlook.value
    assert dashboard.outlook.value in dashboard.snapshot_html()
