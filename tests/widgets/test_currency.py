"""The what-if dashboard shows money in the scenario's currency, everywhere.

The simulator carries `project.currency` (`Simulator.currency`, not part of
its state dumps); the controller takes it from there unless told another
(`currency=`), and every display of its results reads it from the controller: the tables, the status line, the slider
and the minimum-order box, both charts, the variants panel and its table.
Table-driven over currencies with a symbol (EUR), without minor units (JPY)
and without a symbol (PLN): each must show its own form and never a "$".
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest
import yaml
from matplotlib.figure import Figure
from matplotlib.text import Text

from promolab import samples
from promolab.display import format_money, minor_digits
from promolab.scenario_file import open_scenario
from promolab.sim.simulator import Simulator
from promolab.widgets import (
    WhatIfController,
    WhatIfDashboard,
    comparison_display,
    order_display,
    status_line,
    tier_display,
    variants_figure,
    what_if,
    whatif_figure,
)
from promolab.widgets.variants import comparison_currency

ORDERS = Path(__file__).resolve().parents[2] / "data" / "orders" / "sample_orders.parquet"

#: currency -> (how its amounts start, one amount of the demo in it: the welcome offer's 1000 minor units)
CURRENCIES = {
    "EUR": ("€", "€10.00"),
    "JPY": ("¥", "¥1,000"),
    "PLN": ("PLN", "PLN10.00"),
    "CLP": ("CLP", "CLP1,000"),  # no minor unit: 1000 minor units are 1,000 pesos
}


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    return pd.read_parquet(ORDERS)


def scenario_in(currency: str, demo: dict[str, Any]) -> dict[str, Any]:
    """The demo scenario with its money in `currency` (`project.currency`)."""
    document = copy.deepcopy(demo)
    document["project"]["currency"] = currency
    return document


def _texts(fig: Figure) -> list[str]:
    """Every piece of text a person sees on a figure: titles, axis labels, tick
    labels (drawn first, so the formatters have run) and annotations."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _frame_text(frame: pd.DataFrame) -> str:
    return frame.to_string() + frame.to_html()


def _no_dollar(where: str, text: str) -> None:
    assert "$" not in text, f"{where} shows dollars: {text!r}"


@pytest.fixture(params=list(CURRENCIES))
def currency(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def controller(currency: str, _demo_document: dict[str, Any], orders: pd.DataFrame) -> WhatIfController:
    sim = Simulator.from_scenario(scenario_in(currency, _demo_document))
    tuner = WhatIfController(sim, orders, sample=400)  # the simulator's currency, by default
    tuner.set_order("bob", prod_kettle=1, prod_mug=2)
    return tuner


def test_the_controller_takes_the_simulators_currency_unless_told_another(
        currency: str, controller: WhatIfController, orders: pd.DataFrame) -> None:
    assert controller.sim.currency == controller.currency == currency
    assert WhatIfController(controller.sim, orders, sample=50, currency="GBP").currency == "GBP"


def test_the_currency_is_read_from_the_scenario_file(
        currency: str, _demo_document: dict[str, Any], tmp_path: Path) -> None:
    """How a notebook gets it: the file's `project.currency` beside its simulator."""
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario_in(currency, _demo_document), sort_keys=False), encoding="utf-8")
    _, read = open_scenario(path)
    assert read == currency
    assert open_scenario(samples.demo_scenario())[1] == "USD"  # the demo (and the notebooks) stay in dollars


def test_tables_and_status_line_are_in_the_currency(currency: str, controller: WhatIfController) -> None:
    start, welcome = CURRENCIES[currency]
    result = controller.update(value=1500, min_amount=8000)
    assert result.currency == currency
    tiers, order, status = tier_display(result), order_display(result), status_line(result)
    for where, text in [("tier table", _frame_text(tiers)), ("order table", _frame_text(order)),
                        ("status line", status)]:
        _no_dollar(where, text)
    assert status.startswith(f"promo_welcome_10 (what-if): {format_money(1500, currency)} off")
    assert f"minimum order {format_money(8000, currency)}" in status
    money_rows = ["campaign cost", "average discount (where valid)", "cost per order", "largest discount"]
    cells = tiers.loc[money_rows].to_numpy().ravel().tolist()
    assert all(c.lstrip("+-").startswith(start) for c in cells), cells
    assert order.loc[order["tier"] == "promo_welcome_10", "discount"].tolist() == [welcome]
    assert all(c == "-" or c.startswith(start) for c in order["discount"].tolist() + order["total"].tolist())


def test_charts_are_in_the_currency(currency: str, controller: WhatIfController) -> None:
    start, welcome = CURRENCIES[currency]
    fig = whatif_figure(controller.update(value=1500))
    texts = _texts(fig)
    # tiers read by their names, which are the shop's own words ("$10 off orders over $50" in
    # this copy too): every other text is in the currency
    names = {t.get_text() for t in fig.axes[0].get_yticklabels()} | {fig.axes[1].get_title()}
    assert r"\$10 off orders over \$50" in names
    _no_dollar("what-if chart", " | ".join(t for t in texts if t not in names))
    left, right = whatif_figure(controller.result).axes
    for axis in (left.get_xticklabels(), right.get_yticklabels()):
        labels = [t.get_text() for t in axis if t.get_text()]
        assert labels and all(t.lstrip("-").startswith(start.strip()) for t in labels), labels
    assert welcome in texts  # the original tier's discount on Bob's cart, written after its bar

    controller.save_variant("fifteen")
    frame = controller.compare_variants()
    assert comparison_currency(frame) == currency
    texts = _texts(variants_figure(frame))
    _no_dollar("variants chart", " | ".join(texts))
    assert any(t.startswith(f"{format_money(frame.at[1, 'cost'], currency)} (+{start}") for t in texts), texts


def test_variants_are_told_and_compared_in_the_currency(currency: str, controller: WhatIfController) -> None:
    start, welcome = CURRENCIES[currency]
    controller.update(value=1500, min_amount=8000)
    saved = controller.save_variant("fifteen over eighty")
    assert saved.changes == (f"{welcome} off -> {format_money(1500, currency)} off; "
                             f"minimum order {format_money(5000, currency)} -> {format_money(8000, currency)}")
    _no_dollar("variants list", _frame_text(controller.variants()))
    shown = comparison_display(controller.compare_variants())
    _no_dollar("comparison", _frame_text(shown))
    assert shown["cost"].str.startswith(start).all() and shown.at[1, "cost_change"].startswith(f"+{start}")
    assert shown.at[0, "cost_change"] == format_money(0, currency)


def test_a_dated_comparison_is_in_the_currency(currency: str, controller: WhatIfController) -> None:
    month = pd.read_parquet(samples.month_orders())
    week = month[month["order_id"].isin(set(pd.unique(month["order_id"])[:300]))]
    controller.update(value=1500)
    controller.save_variant("fifteen")
    frame = controller.compare_variants(dated_orders=week)
    shown = comparison_display(frame)
    _no_dollar("dated comparison", _frame_text(shown))
    assert all(shown[c].str.lstrip("+-").str.startswith(CURRENCIES[currency][0]).all()
               for c in ("discount", "discount_change"))
    assert shown["margin"].tolist() == ["-", "-"]  # no cost model with margins: no amount to show
    _no_dollar("dated chart", " | ".join(_texts(variants_figure(frame))))


def test_the_dashboard_shows_the_currency_everywhere(
        currency: str, _demo_document: dict[str, Any], orders: pd.DataFrame) -> None:
    start, _ = CURRENCIES[currency]
    sim = Simulator.from_scenario(scenario_in(currency, _demo_document))
    dashboard = what_if(sim, orders, sample=300, currency=currency)  # the options reach the controller
    assert dashboard.controller.currency == currency
    assert dashboard.value.description == f"Amount off ({start.strip()})"
    assert dashboard.min_amount.description == f"Min order {start.strip()}"
    scale = 10 ** minor_digits(currency)
    assert dashboard.value.value == 1000 / scale and dashboard.min_amount.value == 5000 / scale
    dashboard.value.value = dashboard.value.value + dashboard.value.step  # one step of the slider
    dashboard.min_amount.value = 8000 / scale
    assert dashboard.controller.edit.value == (1050 if scale == 100 else 1001)
    assert dashboard.controller.edit.min_amount == 8000

    panel = dashboard.variants
    panel.name.value = "richer"
    panel.save.click()
    panel.compare.click()
    bundle = dashboard._repr_mimebundle_()
    for where, text in [
        ("status", dashboard.status.value), ("order table", dashboard.order_table.value),
        ("tier table", dashboard.tier_table.value), ("snapshot", bundle["text/html"]),
        ("text/plain", bundle["text/plain"]), ("variant message", panel.message.value),
        ("saved variants", " ".join(label for label, _ in panel.saved.options)),
        ("variants table", panel.table.value),
    ]:
        _no_dollar(where, text)
    assert format_money(8000, currency) in dashboard.status.value
    assert start in panel.table.value and start in panel.saved.options[0][0]


@pytest.mark.parametrize("bad", ["eur", "EURO", "E1R", "", "US", "EUR\n", b"EUR", 978])
def test_a_currency_that_is_not_an_iso_code_is_refused(bad: object, sim: Simulator, orders: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"three upper-case letters, such as 'USD' or 'EUR'.*not "):
        WhatIfController(sim, orders, sample=10, currency=bad)  # type: ignore[arg-type]  # refused at run time too
    with pytest.raises(ValueError, match="three upper-case letters"):
        WhatIfDashboard(WhatIfController(sim, orders, sample=10, currency=bad))  # type: ignore[arg-type]  # as above


def test_the_demo_is_in_dollars(sim: Simulator, orders: pd.DataFrame) -> None:
    """A controller told nothing shows the simulator's currency: the demo's, dollars."""
    result = WhatIfController(sim, orders, sample=200).result
    assert result.currency == "USD" and status_line(result).startswith("promo_welcome_10 (what-if): $10.00 off")
