"""The stacking-policy comparison with scoped codes and gift cards with rules: vectorized, and equal to the engine.

A code's scope is per line (the tier path's kernel), a gift card's rules are
masks like a tier's: neither sends a stack to the engine path. A rule on
`order.total_amount` reads the running total less the redeemable's own
step, which the arrays take before its rules; only when the caller ignores
that rule (qualifications) does the stack take the engine path.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import compare_stacking_policies, prepare_orders, sweep
from promolab.analysis.stacking_policies import DEFAULT_POLICIES
from promolab.analysis.stacking_policies.policy_rules import policy_rules
from promolab.engine import CampaignInfo, PricingContext, TierSpec, compile_tier
from promolab.models import RedeemableInput
from promolab.sim.promotions import pricing_view
from promolab.sim.sessions import held
from promolab.sim.stack_redeemables import resolve_redeemables
from scoped_codes_scenario import SCENARIO

from .stacking_reference import assert_equals_engine, random_rules
from .support import assert_same_rows, random_orders
from .support import engine_rows as sweep_engine_rows

KEYS = [("prod_mug", None), ("prod_tote", None), ("prod_beans", "sku_beans_1000"), ("prod_beans", "sku_beans_250")]


@pytest.fixture(scope="module")
def scoped() -> Simulator:
    return Simulator.from_scenario(copy.deepcopy(SCENARIO))


def _orders(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    lines = rng.integers(1, 5, size=n)
    order = np.repeat(np.arange(n), lines)
    pick = rng.integers(0, len(KEYS), size=order.size)
    return pd.DataFrame({
        "order_id": order + 1,
        "product_id": pd.array([KEYS[k][0] for k in pick], dtype="string"),
        "sku_id": pd.array([KEYS[k][1] for k in pick], dtype="string"),
        "quantity": rng.integers(1, 4, size=order.size),
    })


def _entries(sim: Simulator, redeemables: list[dict[str, Any]]) -> list[Any]:
    sent = [RedeemableInput.model_validate(r) for r in redeemables]
    return [r.entry for r in resolve_redeemables(sim, pricing_view(sim), sent, held(sim))]


VECTORIZED = [
    {"object": "voucher", "id": "MUG50"},
    {"object": "voucher", "id": "MERCH10"},
    {"object": "voucher", "id": "SKU500"},
    {"object": "voucher", "id": "GIFT1", "gift": {"credits": 1500}},
    {"object": "voucher", "id": "BIG"},
]


def test_scoped_codes_and_a_gift_card_with_rules_stay_vectorized_and_equal_the_engine(scoped: Simulator) -> None:
    batch = prepare_orders(scoped, _orders(400, seed=3))
    result = assert_equals_engine(batch, _entries(scoped, VECTORIZED), policy_rules(scoped, DEFAULT_POLICIES),
                                  pricing_view(scoped).catalogue, PricingContext(scoped.now, {}), chunk_size=97)
    assert result.paths["path"].tolist() == ["vectorized"]
    reasons = set(result.redeemables["reason_key"].dropna().astype(str))
    assert "order_rules_violated" in reasons  # the gift card's and BIG's amount rules refused some orders
    frame = result.redeemables
    gift = frame[frame["redeemable_id"] == "GIFT1"]
    assert set(gift["status"].astype(str)) >= {"APPLICABLE", "INAPPLICABLE"}  # its rule decides per order


TOTAL_STACK = [{"object": "voucher", "id": "MUG50"}, {"object": "voucher", "id": "TOTAL"},
               {"object": "voucher", "id": "GIFT-TOTAL", "gift": {"credits": 800}}]


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_a_total_amount_rule_is_vectorized_and_equals_the_engine(scoped: Simulator, seed: int) -> None:
    """The rule reads the running total less the redeemable's own step, taken
    before its rules (`evaluation._after`): every policy setting drawn."""
    rng = np.random.default_rng(seed)
    rules = {**policy_rules(scoped, DEFAULT_POLICIES), **{f"r{k}": random_rules(rng) for k in range(3)}}
    batch = prepare_orders(scoped, _orders(500, seed=seed))
    result = assert_equals_engine(batch, _entries(scoped, TOTAL_STACK), rules, pricing_view(scoped).catalogue,
                                  PricingContext(scoped.now, {}), chunk_size=128)
    assert result.paths["path"].tolist() == ["vectorized"] and result.paths["engine_orders"].tolist() == [0]
    frame = result.redeemables
    for code in ("TOTAL", "GIFT-TOTAL"):  # its rule decides per order
        assert set(frame[frame["redeemable_id"] == code]["status"].astype(str)) >= {"APPLICABLE", "INAPPLICABLE"}


def test_a_total_amount_rule_ignored_takes_the_engine_path_and_equals_it(scoped: Simulator) -> None:
    batch = prepare_orders(scoped, _orders(120, seed=4))
    ctx = PricingContext(scoped.now, {}, ignored_rules=frozenset({"order.total_amount"}))
    result = assert_equals_engine(batch, _entries(scoped, TOTAL_STACK), policy_rules(scoped, DEFAULT_POLICIES),
                                  pricing_view(scoped).catalogue, ctx)
    assert result.paths["path"].tolist() == ["fallback"]
    assert "order.total_amount" in result.paths["reason"].iloc[0]


def test_the_public_comparison_prices_a_codes_scope(scoped: Simulator) -> None:
    frame = pd.DataFrame({"order_id": [1, 1], "product_id": ["prod_mug", "prod_tote"], "quantity": [1, 1]})
    result = compare_stacking_policies(scoped, frame, [{"object": "voucher", "id": "MUG50"}], {"project": {}})
    assert result.orders["discount"].tolist() == [600]  # half the mug, nothing off the tote


def test_a_sweep_of_a_tier_with_a_total_amount_rule_equals_the_engine(sim: Simulator) -> None:
    """The sweep's masks have no form for the rule: the tier takes the engine
    path (the single-tier engine: the total after its discount alone)."""
    spec = TierSpec(
        id="promo_total_left", campaign=CampaignInfo(id="camp_x"),
        discount={"type": "PERCENT", "percent_off": 20, "effect": "APPLY_TO_ITEMS"},
        applicable_to={"included": [{"object": "products_collection", "id": "pc_beans"}]},
        rules={"rules": {"1": {"name": "order.total_amount", "conditions": {"$more_than": [6000]}}}},
    )
    orders = random_orders(300, seed=6)
    result = sweep(sim, orders, [spec], progress=False)
    assert list(result.paths["path"]) != ["vectorized"]
    assert_same_rows(result.frame, sweep_engine_rows(sim, orders, [compile_tier(spec)], sim.now))
    assert 0 < result.frame["valid"].mean() < 1  # the rule decides: some orders pass, some do not
