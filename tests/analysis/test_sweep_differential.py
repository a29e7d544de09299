"""Sweep vs the per-request engine: zero differences (issue #7)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from promolab import Simulator
from promolab.analysis import sweep
from promolab.sim.promotions import pricing_view

from .support import assert_same_rows, engine_rows, random_orders, random_tiers

SATURDAY_HAPPY_HOUR = datetime(2026, 3, 7, 16, 30, tzinfo=UTC)


def test_demo_tiers_10000_orders_equal_the_engine(sim: Simulator) -> None:
    # Every one of the 10,000 orders x 15 demo tiers is checked against the engine.
    orders = random_orders(10_000, seed=1)
    result = sweep(sim, orders, progress=False)
    assert result.frame["valid"].mean() > 0.2  # the comparison is not trivially "all invalid"
    assert_same_rows(result.frame, engine_rows(sim, orders, pricing_view(sim).tiers, sim.now))


def test_demo_tiers_on_a_saturday_happy_hour_in_the_app(sim: Simulator) -> None:
    # Weekend UNIT tiers, the app-only timeframe and redemption metadata all in play.
    orders = random_orders(2_000, seed=2)
    result = sweep(sim, orders, progress=False, at=SATURDAY_HAPPY_HOUR, metadata={"channel": "app"})
    valid = result.frame.groupby("tier_id", observed=True)["valid"].any()
    assert valid["promo_weekend_filters"] and valid["promo_app_espresso"] and valid["promo_weekend_starter"]
    assert set(result.paths["path"]) == {"vectorized"}  # the weekend's ADD_MANY_ITEMS tier too
    reference = engine_rows(sim, orders, pricing_view(sim).tiers, SATURDAY_HAPPY_HOUR, {"channel": "app"})
    assert_same_rows(result.frame, reference)


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_random_tiers_equal_the_engine(sim: Simulator, seed: int) -> None:
    tiers = random_tiers(30, seed)
    orders = random_orders(700, seed=100 + seed)
    result = sweep(sim, orders, tiers, progress=False, metadata={"channel": "app"})
    assert set(result.paths["path"]) <= {"vectorized", "hybrid"}
    assert_same_rows(result.frame, engine_rows(sim, orders, tiers, sim.now, {"channel": "app"}))


def test_every_demo_tier_kind_takes_the_vectorized_path(sim: Simulator) -> None:
    # ADD_MANY_ITEMS too (`ManyUnitKernel`: the stack's column-wise units on the order as sent)
    result = sweep(sim, random_orders(50, seed=3), progress=False)
    paths = dict(zip(result.paths["tier_id"], result.paths["path"]))
    assert paths["promo_weekend_starter"] == "vectorized"
    assert set(paths.values()) == {"vectorized"}
    assert all(result.paths["reason"].str.len() > 0)


def test_a_tier_sharing_two_aggregated_budgets_is_priced_by_the_engine(sim: Simulator) -> None:
    from promolab.engine import CampaignInfo, TierSpec, compile_tier

    spec = TierSpec(
        id="promo_two_budgets", campaign=CampaignInfo(id="camp_x"),
        discount={"type": "AMOUNT", "amount_off": 700, "effect": "APPLY_TO_ITEMS"},
        applicable_to={"included": [
            {"object": "products_collection", "id": "pc_beans", "aggregated_amount_limit": 1000},
            {"object": "product", "id": "prod_beans_colombia", "aggregated_amount_limit": 900},
        ]},
    )
    orders = random_orders(400, seed=5)
    result = sweep(sim, orders, [spec], progress=False)
    assert list(result.paths["path"]) == ["hybrid"]
    assert "shared budgets" in result.paths["reason"][0]
    assert_same_rows(result.frame, engine_rows(sim, orders, [compile_tier(spec)], sim.now))
