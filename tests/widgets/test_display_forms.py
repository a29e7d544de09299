"""What a person reads: tables through `readable`, charts with money axes, the
dashboard's static snapshot. Data stays in cents; only the display forms change.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import compare_tiers, plot_discount_by_tier, plot_discount_distribution
from promolab.analysis.plots import bar_note, count_axis, money_axis
from promolab.widgets import WhatIfController, readable, what_if, whatif_figure
from promolab.widgets.charts import DPI, FIGSIZE, FONT_SIZE, SCALE, figure_png
from promolab.widgets.present import NO_MATHS

ORDERS = Path(__file__).resolve().parents[2] / "data" / "orders" / "sample_orders.parquet"
MONEY_TICK = re.compile(r"^-?\$\d{1,3}(,\d{3})*(\.\d\d)?$")


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    return pd.read_parquet(ORDERS)


def _labels(ticks: list[object]) -> list[str]:
    return [t.get_text() for t in ticks if t.get_text()]  # type: ignore[attr-defined]  # matplotlib ticks are typed loosely


# -- readable -----------------------------------------------------------------------------
def test_readable_formats_the_named_columns_and_leaves_the_data() -> None:
    frame = pd.DataFrame({
        "tier": ["a", "b", "c"],
        "cost": pd.array([10495000, 0, None], dtype="Int64"),
        "avg": [1773.95, float("nan"), 5.0],
        "reach": [0.874583, 0.0004, float("nan")],
        "orders": pd.array([10495, 3, None], dtype="Int64"),
    })
    shown = readable(frame, money=["cost", "avg"], shares=["reach"], counts=["orders"])
    assert shown.to_dict("list") == {
        "tier": ["a", "b", "c"],
        "cost": ["$104,950.00", "$0.00", "-"],
        "avg": ["$17.74", "-", "$0.05"],
        "reach": ["87.5%", "<0.1%", "-"],
        "orders": ["10,495", "3", "-"],
    }
    assert frame["cost"].dtype == "Int64" and frame.at[0, "cost"] == 10495000  # the data is untouched
    assert readable(frame, money=["cost"], currency="EUR").at[0, "cost"] == "€104,950.00"


def test_readable_keeps_the_index_and_refuses_an_unknown_column() -> None:
    frame = pd.DataFrame({"x": [100, 250]}, index=pd.Index(["p", "q"], name="k"))
    shown = readable(frame, money=["x"])
    assert shown.index.equals(frame.index) and shown["x"].tolist() == ["$1.00", "$2.50"]
    with pytest.raises(KeyError, match="no column 'y'"):
        readable(frame, money=["y"])


# -- matplotlib axes ------------------------------------------------------------------------
def test_money_and_count_axes() -> None:
    fig, ax = plt.subplots()
    try:
        ax.plot([0, 14_000_000], [0, 6000])
        money_axis(ax.xaxis)
        count_axis(ax.yaxis)
        fig.canvas.draw()
        xs, ys = _labels(ax.get_xticklabels()), _labels(ax.get_yticklabels())
        assert xs and all(MONEY_TICK.match(x) for x in xs), xs
        assert "$100,000" in xs and not any(x.endswith(".00") for x in xs)
        assert "6,000" in ys or "5,000" in ys, ys
    finally:
        plt.close(fig)


def test_plot_discount_by_tier_reads_money_and_counts_orders(sim: Simulator, orders: pd.DataFrame) -> None:
    baskets = orders[orders["order_id"].isin(pd.unique(orders["order_id"])[:12])]
    frame = compare_tiers(sim, baskets)
    fig, ax = plt.subplots()
    try:
        plot_discount_by_tier(frame, stat="mean", ax=ax)
        fig.canvas.draw()
        assert all(MONEY_TICK.match(x) for x in _labels(ax.get_xticklabels()))
        notes = {t.get_text() for t in ax.texts}
        valid = frame[frame["valid"]].groupby("tier_id", observed=True).size()
        assert f"{valid['promo_beans_15']} orders" in notes and "1 order" in notes
        # a bar-less row says why: no orders and the refusal they met, or no money off
        by_label = dict(zip(_labels(ax.get_yticklabels()), (t.get_text() for t in ax.texts), strict=True))
        assert by_label[r"\$5 off anything"] == "no orders: the tier is inactive"
        assert by_label["20% off everything"] == "no orders: not active at this time"
        assert by_label["VIP mugs at \\$5"] == "no orders: no customer qualifies"
        assert by_label[r"Free shipping over \$30"] == f"{valid['promo_free_shipping']} orders, no money off"
        # tiers read by name (the frame's tier_name), `$` kept out of mathtext
        names = frame.drop_duplicates("tier_id")["tier_name"].str.replace("$", r"\$").tolist()
        assert _labels(ax.get_yticklabels()) == names
        widths = [p.get_width() for p in ax.patches]
        assert max(widths) == pytest.approx(2260.0)  # the VIP tier's one order, in cents
    finally:
        plt.close(fig)


def test_plot_discount_distribution_axes(sim: Simulator, orders: pd.DataFrame) -> None:
    baskets = orders[orders["order_id"].isin(pd.unique(orders["order_id"])[:200])]
    fig, ax = plt.subplots()
    try:
        plot_discount_distribution(compare_tiers(sim, baskets), tiers=["promo_beans_15"], ax=ax)
        fig.canvas.draw()
        assert all(MONEY_TICK.match(x) for x in _labels(ax.get_xticklabels()))
        assert all(re.match(r"^\d{1,3}(,\d{3})*$", y) for y in _labels(ax.get_yticklabels()))
    finally:
        plt.close(fig)


# -- the what-if chart -----------------------------------------------------------------------
def test_whatif_chart_is_legible_and_in_money(sim: Simulator, orders: pd.DataFrame) -> None:
    controller = WhatIfController(sim, orders)
    controller.set_order("bob", prod_kettle=1, prod_mug=2)
    result = controller.update(value=1500, min_amount=8000)
    fig = whatif_figure(result)
    fig.canvas.draw()
    left, right = fig.axes
    tier_labels = left.get_yticklabels()
    assert all(t.get_fontsize() >= FONT_SIZE >= 9 for t in tier_labels)
    # 9 pt at the figure's dpi is 12 px on screen: the image is shown at its own size
    assert FONT_SIZE * fig.dpi / 72 >= 11.5
    costs = _labels(right.get_yticklabels())
    assert costs and all(MONEY_TICK.match(c) for c in costs) and any("," in c for c in costs), costs
    assert all(MONEY_TICK.match(x) for x in _labels(left.get_xticklabels()))
    notes = [t.get_text() for t in right.texts]
    assert notes == ["reach 87.5%\n10,495 orders", "reach 76.4%\n9,171 orders"]
    assert "$10.00" in [t.get_text() for t in left.texts]  # the original tier on Bob's cart
    colours = {t.get_text(): t.get_color() for t in tier_labels}
    welcome = r"\$10 off orders over \$50"  # tiers by name (as the scenario has them), `$` not mathtext
    assert colours[welcome] == "black"
    assert colours[welcome + " (what-if)"] != colours[welcome]  # does not apply: pale
    assert r"15% off beans (max \$15 a line, \$30…" in colours  # a long name cut to the label column
    assert right.get_title() == "\\$10 off orders over \\$50\nover 12,000 orders"


def test_whatif_chart_says_why_a_tier_row_has_no_bar(sim: Simulator, orders: pd.DataFrame) -> None:
    controller = WhatIfController(sim, orders, sample=300, seed=0)
    result = controller.set_order("bob", prod_kettle=1, prod_mug=2)
    fig = whatif_figure(result)
    fig.canvas.draw()
    left, right = fig.axes
    labels = _labels(left.get_yticklabels())
    notes = {labels[round(t.xy[1])]: t.get_text() for t in left.texts}  # a note sits on its tier's row
    table = result.order_table
    applies = table[table["valid"]]
    assert len(notes) == len(applies)  # every tier that applies writes something after its row
    free = table[table["tier_id"] == "promo_free_shipping"].iloc[0]
    assert free["valid"] and pd.isna(free["discount_amount"])  # applies, no money off
    assert notes[r"Free shipping over \$30"] == bar_note(1, 0.0) == "1 order, no money off"
    assert notes[r"\$10 off orders over \$50"] == "$10.00"
    # the campaign-cost bars count their orders with the same words
    reached = result.tier_table.at["before", "orders_reached"]
    assert right.texts[0].get_text().endswith(f"\n{bar_note(int(reached), 1.0)}")


def test_whatif_png_holds_twice_the_pixels_it_is_shown_at(sim: Simulator, orders: pd.DataFrame) -> None:
    controller = WhatIfController(sim, orders, sample=300, seed=0)
    png = figure_png(whatif_figure(controller.set_order("bob", prod_grinder=1)))
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # the IHDR chunk
    assert SCALE == 2 and (width, height) == (round(FIGSIZE[0] * DPI * SCALE), round(FIGSIZE[1] * DPI * SCALE))
    assert DPI * SCALE >= 144  # crisp on a slide
    dashboard = what_if(sim, orders, sample=300)
    assert dashboard.chart.layout.width == f"{round(FIGSIZE[0] * DPI)}px"  # shown at its on-screen size


# -- the dashboard's static snapshot -----------------------------------------------------------
def test_dashboard_bundle_carries_a_static_snapshot(sim: Simulator, orders: pd.DataFrame) -> None:
    dashboard = what_if(sim, orders, sample=800)
    bundle = dashboard._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"].startswith("What-if dashboard: promo_welcome_10 (what-if): $10.00 off")
    snapshot = bundle["text/html"]
    assert f'class="promolab-snapshot {NO_MATHS}"' in snapshot
    assert dashboard.tier_table.value in snapshot and dashboard.order_table.value in snapshot
    image = re.search(r'src="data:image/png;base64,([^"]+)"', snapshot)
    assert image is not None and base64.b64decode(image.group(1)) == bytes(dashboard.chart.value)

    dashboard.effect.value = "APPLY_TO_ITEMS"  # the snapshot follows the dashboard
    again = dashboard._repr_mimebundle_()["text/html"]
    assert again != snapshot and "APPLY_TO_ITEMS" in again
