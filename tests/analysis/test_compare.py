"""compare_tiers agrees with validate_promotions; reasons; best_tier; pivots; plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import (
    COMPARE_COLUMNS,
    best_tier,
    compare_tiers,
    discount_matrix,
    orders_from_frame,
    pivot_tiers,
    plot_discount_by_tier,
    plot_discount_distribution,
    sweep,
)

from .support import random_orders

CART = {"items": [{"product_id": "prod_grinder", "quantity": 1}, {"product_id": "prod_kettle", "quantity": 1}]}


def test_valid_tiers_match_validate_promotions(sim: Simulator) -> None:
    orders = orders_from_frame(random_orders(120, seed=31))
    frame = compare_tiers(sim, orders)
    client = sim.client()
    for order_id, request in orders.items():
        response = client.validate_promotions(request)
        rows = frame[(frame["order_id"] == order_id) & frame["valid"]]
        assert list(rows["tier_id"].astype(str)) == [t.id for t in response.promotions]
        for row, tier in zip(rows.itertuples(), response.promotions):
            expected = tier.discount_amount
            assert (None if row.discount_amount is pd.NA else row.discount_amount) == expected
            assert row.total_amount == tier.order.total_amount


def test_invalid_tiers_carry_the_engine_reason(sim: Simulator) -> None:
    frame = compare_tiers(sim, {"o1": CART}).set_index("tier_id")
    assert frame.loc["promo_winter_20", "reason_key"] == "promotion_not_active_now"
    assert frame.loc["promo_winter_20", "reason"] == "campaign has expired"
    assert frame.loc["promo_flash_5", "reason_key"] == "promotion_inactive"
    assert frame.loc["promo_vip_10pct", "reason_key"] == "customer_rules_violated"
    assert frame.loc["promo_mug_3", "reason_key"] == "order_rules_violated"
    assert frame.loc["promo_brew_bundle", "valid"]
    assert pd.isna(frame.loc["promo_brew_bundle", "reason_key"])
    assert frame.loc["promo_mug_3", "discount_amount"] == 0
    assert frame.loc["promo_mug_3", "total_amount"] == frame.loc["promo_mug_3", "amount"] == 14300


def test_compare_columns_and_dtypes(sim: Simulator) -> None:
    frame = compare_tiers(sim, [CART])
    assert list(frame.columns) == COMPARE_COLUMNS
    dtypes = {c: str(t) for c, t in frame.dtypes.items()}
    assert dtypes == {
        "order_id": "category", "customer_source_id": "string", "tier_id": "category", "tier_name": "string",
        "campaign_id": "string", "valid": "bool", "discount_amount": "Int64", "total_amount": "Int64",
        "amount": "Int64", "reason_key": "category", "reason": "string",
    }


def test_customers_cross_product_and_per_order(sim: Simulator) -> None:
    both = compare_tiers(sim, {"o1": CART}, customers=["alice", "bob"])
    vip = both[both["tier_id"] == "promo_vip_10pct"].set_index("customer_source_id")["valid"]
    assert vip["alice"] and not vip["bob"]
    per_order = compare_tiers(sim, {"o1": CART, "o2": CART}, customers={"o1": "dave"})
    vip2 = per_order[per_order["tier_id"] == "promo_vip_10pct"].set_index("order_id")["valid"]
    assert vip2["o1"] and not vip2["o2"]
    best = best_tier(both)
    assert len(best) == 2 and set(best["customer_source_id"]) == {"alice", "bob"}


def test_best_tier_criteria(sim: Simulator) -> None:
    orders = {"cart": CART, "tiny": {"items": [{"product_id": "prod_filters", "quantity": 1}]}}
    frame = compare_tiers(sim, orders, customers="alice")
    by_discount = best_tier(frame).set_index("order_id")
    assert by_discount.loc["cart", "tier_id"] == "promo_brew_bundle"  # 2400 > 1430 > 1000
    by_total = best_tier(frame, "total").set_index("order_id")
    assert by_total.loc["cart", "total_amount"] == 11900
    # A callable: prefer the lowest hierarchy position, i.e. the first valid tier.
    first = best_tier(frame, lambda f: -np.arange(len(f))).set_index("order_id")
    assert first.loc["cart", "tier_id"] == "promo_welcome_10"
    # The tiny cart: only VIP 10% (600 -> 60) and shipping-free tier (no monetary value).
    assert by_discount.loc["tiny", "tier_id"] == "promo_vip_10pct"
    with pytest.raises(ValueError):
        best_tier(frame, "cheapest")


def test_best_tier_when_nothing_applies(sim: Simulator) -> None:
    frame = compare_tiers(sim, [{"items": [{"product_id": "prod_filters", "quantity": 1}]}],
                          tiers=["promo_welcome_10", "promo_mug_3"])
    best = best_tier(frame)
    assert len(best) == 1 and not best["valid"][0] and pd.isna(best["tier_id"][0])


def test_pivots(sim: Simulator) -> None:
    frame = compare_tiers(sim, {"a": CART, "b": {"items": [{"product_id": "prod_mug", "quantity": 2}]}})
    matrix = discount_matrix(frame)
    assert matrix.shape == (2, 17) and str(matrix.dtypes.iloc[0]) == "Int64"
    assert matrix.loc["a", "promo_brew_bundle"] == 2400 and matrix.loc["b", "promo_mug_3"] == 300
    assert pivot_tiers(frame, "valid").loc["b", "promo_mug_3"]


def test_sweep_frames_work_with_best_tier_and_pivots(sim: Simulator) -> None:
    orders = random_orders(40, seed=32)
    result = sweep(sim, orders, progress=False)
    compared = compare_tiers(sim, orders)
    a = best_tier(result.frame)[["order_id", "tier_id", "discount_amount"]].astype(str)
    b = best_tier(compared)[["order_id", "tier_id", "discount_amount"]].astype(str)
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
    assert discount_matrix(result.frame).shape == (40, 17)


def test_plots_are_deterministic(sim: Simulator) -> None:
    frame = sweep(sim, random_orders(300, seed=33), progress=False).frame
    heights = []
    for _ in range(2):
        ax = plot_discount_by_tier(frame)
        heights.append([p.get_width() for p in ax.patches])
        matplotlib.pyplot.close(ax.figure)
    assert heights[0] == heights[1] and len(heights[0]) == 17
    ax = plot_discount_distribution(frame, tiers=["promo_welcome_10", "promo_beans_15"])
    assert ax.get_title() == "Distribution of discounts"
    ax2 = plot_discount_by_tier(frame, stat="mean")
    assert ax2.get_yticklabels()[0].get_text() == "promo_welcome_10"
