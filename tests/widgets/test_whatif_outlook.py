"""The what-if's outlook: expected incremental net revenue of the edited tier and its band.

Its figure must be `response.expect`'s on the same orders (the one set of
formulas), its band the optimizer's normal approximation around it; the
controller must hand it the orders its own sweep prices.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.analysis import sweep
from promolab.analysis.optimize.spread import Z90, p90, spend_variance
from promolab.analysis.response import Offers, ResponseModel, expect
from promolab.widgets import WhatIfController, outlook, outlook_line


def _direct(sim: Simulator, controller: WhatIfController, kind: str) -> tuple[float, float]:
    """`expect` by hand on the what-if tier's own sweep: the order amount read
    back from the engine's totals (total + discount), not from the controller."""
    whatif = controller.result.whatif
    assert whatif is not None
    frame = sweep(sim, controller.orders, [whatif], progress=False).frame
    given = frame["valid"].to_numpy(dtype=bool) & (frame["discount_amount"].fillna(0).to_numpy() > 0)
    d = frame["discount_amount"].to_numpy(dtype="float64", na_value=0.0)[given]
    a = frame["total_amount"].to_numpy(dtype="float64")[given] + d
    offers = Offers(depth=d / a, distance=np.zeros(len(d)), kind=np.full(len(d), kind, dtype=object),
                    segment=np.full(len(d), "", dtype=object))
    e = expect(ResponseModel(), offers, a, d)
    return float(e.incremental_net_revenue.sum()), float(spend_variance(e.redemptions, e.orders, d).sum())


@pytest.mark.parametrize(
    ("tier", "value"),
    [
        ("promo_welcome_10", None),  # as in the scenario
        ("promo_welcome_10", 2500),  # an AMOUNT edited up
        ("promo_beans_15", 30),  # a PERCENT on items, with limits, edited
        ("promo_vip_10pct", 5),  # a PERCENT with an amount limit, edited down
    ],
)
def test_the_figure_is_expect_on_the_swept_orders(
    sim: Simulator, controller: WhatIfController, tier: str, value: float | None
) -> None:
    controller.select_tier(tier)
    if value is not None:
        controller.set_value(value)
    result = controller.result
    found = result.outlook
    assert found is not None
    mean, variance = _direct(sim, controller, result.edit.discount_type)
    assert found.orders_offered > 0
    assert found.incremental_net_revenue == pytest.approx(mean, rel=1e-12)
    assert found.p90 == pytest.approx(p90(mean, variance), rel=1e-12)
    assert found.p10 == pytest.approx(mean - Z90 * math.sqrt(variance), rel=1e-12)
    assert found.p10 < found.incremental_net_revenue < found.p90


def test_a_deeper_discount_changes_the_outlook_and_nothing_offered_is_zero(controller: WhatIfController) -> None:
    base = controller.result.outlook
    deeper = controller.set_value(controller.edit.value * 2).outlook
    assert base is not None and deeper is not None
    assert deeper.orders_offered == base.orders_offered
    assert deeper.spend > base.spend
    none = controller.set_value(0).outlook
    assert none is not None
    assert (none.orders_offered, none.incremental_net_revenue, none.p10, none.p90) == (0, 0.0, 0.0, 0.0)


def test_a_refused_edit_has_no_outlook_and_says_so(controller: WhatIfController) -> None:
    import dataclasses

    spec = controller.tiers["promo_welcome_10"]
    broken = {"rules": {"1": {"name": "no.such.rule", "conditions": {"$is": [1]}}, "logic": "1"}}
    controller.tiers["promo_welcome_10"] = dataclasses.replace(spec, rules=broken)
    result = controller.set_value(1200)
    assert result.outlook is None
    assert outlook_line(result) == "cost -; expected incremental net revenue -"


def test_the_line_shows_cost_and_band_in_the_controllers_currency(sim: Simulator, orders: pd.DataFrame) -> None:
    result = WhatIfController(sim, orders, sample=300, currency="EUR").result
    found = result.outlook
    assert found is not None
    line = outlook_line(result)
    cost = int(result.tier_table.at["after", "cost"])
    assert line.startswith(f"cost €{cost / 100:,.2f}; expected incremental net revenue "
                           f"€{round(found.incremental_net_revenue) / 100:,.2f} (P10-P90 €")
    assert f"€{round(found.p90) / 100:,.2f}, default response model, {found.orders_offered:,} orders offered)" in line
    assert "$" not in line


# -- the pure function ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("amount", "discount", "offered"),
    [
        ([4000, 5000, 6000], [0, 0, 0], 0),  # nothing given: nothing expected
        ([4000, 5000, 6000], [1000, 0, 1000], 2),  # only where it gives
        ([0, 5000], [100, 500], 1),  # an order of no amount is not offered a depth
    ],
)
def test_only_orders_given_something_count(amount: list[int], discount: list[int], offered: int) -> None:
    found = outlook("AMOUNT", np.array(amount), np.array(discount))
    assert found.orders_offered == offered
    assert (found.incremental_net_revenue == 0.0) == (offered == 0)


def test_the_kind_reaches_the_model() -> None:
    model = ResponseModel(kind={"PERCENT": -1.0})
    amount, discount = np.array([5000, 8000]), np.array([500, 800])
    as_amount = outlook("AMOUNT", amount, discount, model)
    as_percent = outlook("PERCENT", amount, discount, model)
    assert as_percent.spend < as_amount.spend  # PERCENT redeems less under this model


@pytest.mark.parametrize(
    ("amount", "discount", "message"),
    [([100, 200], [10], "amount has 2 entries, discount has 1"), ([100], [-5], "cannot be negative")],
)
def test_bad_input_is_refused(amount: list[int], discount: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        outlook("AMOUNT", np.array(amount), np.array(discount))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 50_000), st.integers(0, 100)), min_size=1, max_size=40))
def test_the_band_holds_the_mean(orders: list[tuple[int, int]]) -> None:
    amount = np.array([a for a, _ in orders])
    discount = np.array([a * pct // 100 for a, pct in orders])
    found = outlook("PERCENT", amount, discount)
    assert found.p10 <= found.incremental_net_revenue <= found.p90
    # symmetric: the normal approximation's band
    assert found.p90 - found.incremental_net_revenue == pytest.approx(
        found.incremental_net_revenue - found.p10, abs=1e-6)
