""""Find the best" in the what-if: the grid of the tuned tier's value, the
optimizer's answer read back, and that nothing changes until it is applied."""

from __future__ import annotations

import dataclasses

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis.optimize import TierGrid, optimize
from promolab.widgets import (
    BestValue,
    TierEdit,
    WhatIfController,
    WhatIfDashboard,
    best_grid,
    best_line,
    best_values,
)


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("PERCENT", 15, tuple(float(p) for p in range(5, 55, 5))),
        ("AMOUNT", 1000, (500.0, 750.0, 1000.0, 1250.0, 1500.0, 2000.0)),
        ("FIXED", 333, (166.0, 250.0, 333.0, 416.0, 500.0, 666.0)),  # whole minor units
        ("AMOUNT", 1, (1.0, 2.0)),  # tiny values collapse, 0 is never tried
        ("AMOUNT", 0, tuple(float(500 * k) for k in range(1, 11))),
    ],
)
def test_the_grid_is_of_the_tiers_own_kind(kind: str, value: float, expected: tuple[float, ...]) -> None:
    effect = "APPLY_TO_ORDER"
    assert best_values(TierEdit("t", kind, value, effect)) == expected


@pytest.mark.parametrize(
    ("tier", "axis"),
    [("promo_vip_10pct", "percent_off"), ("promo_welcome_10", "amount_off")],
)
def test_the_answer_equals_optimize_called_directly(
    sim: Simulator, controller: WhatIfController, tier: str, axis: str
) -> None:
    controller.select_tier(tier)
    best = controller.find_best()
    values = best_values(controller.edit)
    # the same question asked on the optimizer's own grid axis: a different path to the options
    grid = TierGrid(tier, **{axis: [v if axis == "percent_off" else int(v) for v in values]})
    direct = optimize(sim, controller.orders, grid)
    assert direct.feasible and best.value is not None
    chosen = direct.chosen().iloc[0]["option"]
    assert chosen == f"{axis}={best.value:g}"
    assert (best.objective, best.gap) == (direct.objective, direct.gap)
    assert direct.runner_up is not None
    assert direct.runner_up[tier] == f"{axis}={best.runner_up:g}"
    # and the optimum it carries is optimize's on the controller's grid
    again = optimize(sim, controller.orders, best_grid(controller.tiers[tier], controller.edit))
    pd.testing.assert_frame_equal(best.optimum.table, again.table)


def test_the_grid_keeps_the_edit_but_the_value(controller: WhatIfController) -> None:
    controller.update(effect="APPLY_TO_ITEMS", min_amount=8000)
    grid = best_grid(controller.tiers[controller.edit.tier_id], controller.edit)
    specs = list(grid.variants.values())
    assert [s.discount["amount_off"] for s in specs] == [int(v) for v in best_values(controller.edit)]
    assert {s.discount["effect"] for s in specs} == {"APPLY_TO_ITEMS"}
    whatif = controller.result.whatif
    assert whatif is not None
    assert {str(s.rules) for s in specs} == {str(whatif.rules)}


def test_finding_changes_nothing_until_applied(controller: WhatIfController) -> None:
    controller.select_tier("promo_vip_10pct")
    edit, result = controller.edit, controller.result
    best = controller.find_best()
    assert controller.edit == edit and controller.result is result
    assert best.value is not None and best.value != edit.value
    applied = controller.apply_best(best)
    assert applied.edit == dataclasses.replace(edit, value=best.value)
    controller.select_tier("promo_welcome_10")
    with pytest.raises(ValueError, match="found for promo_vip_10pct, the tuned tier is promo_welcome_10"):
        controller.apply_best(best)


def test_the_answer_in_words(controller: WhatIfController) -> None:
    controller.select_tier("promo_vip_10pct")
    best = controller.find_best()
    assert best.value is not None and best.runner_up is not None and best.gap is not None
    line = best_line(best, controller.edit, currency="EUR")
    assert line == (f"best for promo_vip_10pct: {best.value:g}% off, expected incremental net revenue "
                    f"€{best.objective / 100:,.2f}; runner-up {best.runner_up:g}% off, €{best.gap / 100:,.2f} less")
    refused = BestValue("promo_vip_10pct", None, None, None, None, best.optimum, "budget x cannot be met")
    assert best_line(refused, controller.edit, currency="EUR") == (
        "best for promo_vip_10pct: no value meets the constraints (budget x cannot be met)")
    with pytest.raises(ValueError, match="no value to apply: budget x cannot be met"):
        controller.apply_best(refused)


def test_the_buttons(controller: WhatIfController) -> None:
    dashboard = WhatIfDashboard(controller)
    controller.select_tier("promo_vip_10pct")
    assert dashboard.apply_best.disabled and dashboard.best.value == ""
    dashboard.find_best.click()
    best = controller.find_best()
    assert best_line(best, controller.edit, currency="USD") in dashboard.best.value
    assert controller.edit.value == 10  # not applied yet
    assert not dashboard.apply_best.disabled
    dashboard.apply_best.click()
    assert controller.edit.value == best.value and dashboard.value.value == best.value
    dashboard.tier.value = "promo_welcome_10"  # an answer for another tier is cleared
    assert dashboard.best.value == "" and dashboard.apply_best.disabled
