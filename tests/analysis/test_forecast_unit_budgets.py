"""A tier with unit budgets in the forecast and the sweep: exact, or left out with why.

The stacked forecast prices each order with the engine and a ledger that
counts the units spent, so it must equal the same orders sent one by one
through the redemption operation; the "best" forecast compares discounts
swept before its walk, so it leaves the tier out and says so; the sweep's
vectorized kernels hand the tier to the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from promolab import Simulator
from promolab.analysis.forecast import forecast
from promolab.analysis.forecast.one_by_one import send_one_by_one
from promolab.analysis.sweep.vectorized import DiscountKernel, NotVectorizable
from promolab.sim import pricing_view

from .forecast_support import budgeted_demo, dated_orders

#: The bag budget: 40 bags over the campaign, 4 per customer.
LIMITS = {"product_in_collection_campaign_quantity_limit": 40,
          "product_in_collection_customer_campaign_quantity_limit": 4}


def _budgeted(tmp_path: Path) -> Path:
    doc: dict[str, Any] = yaml.safe_load(budgeted_demo().read_text())
    for campaign in doc["campaigns"]:
        for tier in campaign.get("tiers", []):
            if tier["id"] == "promo_beans_per_bag":
                [entry] = tier["applicable_to"]["included"]
                entry.update(LIMITS)
    path = tmp_path / "budgeted.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _table(frame: pd.DataFrame, columns: list[str]) -> list[list[str]]:
    return frame[columns].astype(object).where(frame[columns].notna(), None).astype(str).values.tolist()


@pytest.mark.slow
def test_the_stacked_forecast_spends_unit_budgets_as_the_redemptions_do(tmp_path: Path) -> None:
    doc = _budgeted(tmp_path)
    orders = dated_orders(1_200, days=6, seed=4)
    result = forecast(Simulator.from_scenario(doc), orders, policy="stack", progress=False)
    sim = Simulator.from_scenario(doc)
    with sim.client() as client:
        sent = send_one_by_one(client, orders, result.tier_ids, policy="stack", clock=sim)
    columns = ["order_id", "qualified_tier_id", "redeemed", "tier_id", "discount", "redeemables"]
    assert _table(result.orders, columns) == _table(sent, columns)
    spent: dict[str, int] = {}
    for record in sim.state.redemptions.values():
        for product, n in record.units.items():
            spent[product] = spent.get(product, 0) + n
    # the budget counts each product of the collection, and it binds
    assert set(spent.values()) == {LIMITS["product_in_collection_campaign_quantity_limit"]}, spent


def test_the_best_forecast_leaves_a_budgeted_tier_out_with_why(tmp_path: Path) -> None:
    doc = _budgeted(tmp_path)
    result = forecast(Simulator.from_scenario(doc), dated_orders(50, days=2), progress=False)
    assert "promo_beans_per_bag" not in result.tier_ids
    assert "policy 'stack'" in result.excluded["promo_beans_per_bag"]


def test_the_sweep_kernel_hands_a_budgeted_tier_to_the_engine(tmp_path: Path) -> None:
    view = pricing_view(Simulator.from_scenario(_budgeted(tmp_path)))
    tier = next(t for t in view.tiers if t.id == "promo_beans_per_bag")
    with pytest.raises(NotVectorizable, match="unit budgets"):
        DiscountKernel(tier, None)  # type: ignore[arg-type]  # refused before the key table is read


def test_the_policy_comparison_prices_a_budgeted_tier_by_the_engine_on_what_was_spent(tmp_path: Path) -> None:
    """Once redemptions spent the bag budget of two of the three bags, the
    comparison quotes what a stacked validation quotes now, order for order,
    and less than on a fresh simulator."""
    from promolab.analysis import compare_stacking_policies, orders_from_frame

    doc = _budgeted(tmp_path)
    sim = Simulator.from_scenario(doc)
    stack = [{"object": "promotion_tier", "id": "promo_beans_per_bag"}]
    bags = {"items": [{"product_id": "prod_beans_ethiopia", "quantity": 4},
                      {"product_id": "prod_beans_colombia", "quantity": 4}]}
    with sim.client() as client:
        for _ in range(10):  # no customer: at most 4 of each bag a time (the per-customer cap): 40 of 40
            client.redeem_stacked(redeemables=stack, order=bags)
    orders = dated_orders(60, days=1)
    result = compare_stacking_policies(sim, orders, stack, {"project": {}})
    fresh = compare_stacking_policies(Simulator.from_scenario(doc), orders, stack, {"project": {}})
    assert "unit budgets" in " ".join(result.paths["reason"].astype(str))
    assert (result.orders["discount"].to_numpy() < fresh.orders["discount"].to_numpy()).any()
    with sim.client() as client:
        for (order_id, request), row in zip(orders_from_frame(orders).items(), result.orders.itertuples(), strict=True):
            answer = client.validate_stacked(redeemables=stack, order=request["order"],
                                             customer=request.get("customer"))
            assert (row.order_id, row.total) == (order_id, answer.order.total_amount)
