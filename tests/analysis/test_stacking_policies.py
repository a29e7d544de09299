"""Stacking-policy comparison vs the per-request engine (`evaluate_stack`): zero differences.

Every cell of the per-order and per-redeemable frames (valid, counts,
amounts, statuses, reason keys, messages and `why`) is compared with the
engine's answer for the same order, entries and rules; random stacks cover
every stacking-rules setting, table-driven cases pin the amounts.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.analysis import compare_stacking_policies, prepare_orders
from promolab.analysis.stacking_policies import DEFAULT_POLICIES, ORDER_COLUMNS, REDEEMABLE_COLUMNS
from promolab.analysis.stacking_policies.policy_rules import policy_rules
from promolab.engine import (
    CampaignInfo,
    PricingContext,
    StackCategory,
    StackEntry,
    TierSpec,
    compile_tier,
)
from promolab.models import RedeemableInput
from promolab.sim.operations.stacked_validation import validate_stacked
from promolab.sim.promotions import pricing_view
from promolab.sim.sessions import held
from promolab.sim.stack_redeemables import resolve_redeemables
from promolab.sim.usage import usage_of

from .stacking_reference import (
    assert_equals_engine,
    assert_same,
    engine_rows,
    plain,
    random_categories,
    random_entries,
    random_rules,
)
from .support import random_orders, random_tier

DEMO_STACK = [
    {"object": "promotion_tier", "id": "promo_beans_15"},
    {"object": "voucher", "id": "WELCOME-OPEN-1"},
    {"object": "promotion_tier", "id": "promo_welcome_10"},
    {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 1200}},
    {"object": "promotion_tier", "id": "promo_vip_mug_5"},
]
#: Every setting of the stacking rules changed by at least one policy (the demo's
#: campaigns get categories in `categorised`).
EVERY_FIELD = {
    "project": {},
    "partial": {"redeemables_application_mode": "PARTIAL"},
    "initial": {"discount_calculation_mode": "INITIAL_AMOUNT", "redeemables_no_effect_rule": "SKIP"},
    "once": {"redeemables_products_application_mode": "ONCE", "redeemables_application_mode": "PARTIAL"},
    "hierarchy": {"redeemables_sorting_rule": "CATEGORY_HIERARCHY", "redeemables_application_mode": "PARTIAL"},
    "exclusive": {"exclusive_categories": ["cat_beans"], "joint_categories": ["cat_gift"],
                  "redeemables_application_mode": "PARTIAL", "applicable_exclusive_redeemables_limit": 2,
                  "applicable_exclusive_redeemables_per_category_limit": None},
    "limits": {"applicable_redeemables_limit": 2, "applicable_redeemables_per_category_limit": None,
               "applicable_redeemables_category_limits": {"cat_welcome": 1}, "redeemables_limit": 5,
               "redeemables_application_mode": "PARTIAL", "redeemables_rollback_order_mode": "WITHOUT_ORDER"},
    "by_category": {"initial_amount_mode_categories": ["cat_welcome"], "discounted_amount_mode_categories": ["cat_beans"],
                    "no_effect_skip_categories": ["cat_vip"], "no_effect_redeem_anyway_categories": ["cat_gift"],
                    "redeemables_application_mode": "PARTIAL", "applicable_redeemables_per_category_limit": 2},
    # exclusive ones by hierarchy, one of them also in a common category with a limit of its own
    "exclusive_hierarchy": {"redeemables_sorting_rule": "CATEGORY_HIERARCHY", "exclusive_categories": ["cat_mugs", "cat_beans"],
                            "joint_categories": ["cat_welcome"], "applicable_exclusive_redeemables_limit": 2,
                            "applicable_exclusive_redeemables_per_category_limit": 1,
                            "applicable_redeemables_category_limits": {"cat_vip": 1, "cat_beans": 2},
                            "redeemables_application_mode": "PARTIAL"},
}


@pytest.fixture
def categorised(_demo_document: dict[str, Any]) -> Simulator:
    """The demo with its campaigns in categories of several hierarchies (the
    demo's own hold only the campaigns added for them): one campaign in two, codes by the one-item `category_id`,
    and a tier in categories of its own instead of its campaign's."""
    document = copy.deepcopy(_demo_document)
    hierarchies = {"cat_beans": 2, "cat_welcome": 0, "cat_gift": 1, "cat_vip": 3, "cat_mugs": 1}
    document["categories"] = [*document.get("categories", []),  # the demo's own, for its kettle and mug codes
                              *({"id": c, "name": c, "hierarchy": h} for c, h in hierarchies.items())]
    names = {"camp_beans": ["cat_beans"], "camp_welcome": ["cat_welcome"], "camp_gift": ["cat_gift"],
             "camp_vip": ["cat_vip", "cat_welcome"]}
    for campaign in document["campaigns"]:
        if campaign["id"] in names:
            campaign["categories"] = names[campaign["id"]]
        if campaign["id"] == "camp_welcome_codes":
            campaign["category_id"] = "cat_welcome"
        for tier in campaign.get("tiers", ()):
            if tier["id"] == "promo_vip_mug_5":
                tier["categories"] = ["cat_mugs", "cat_vip"]
    return Simulator.from_scenario(document)


def _reference(sim: Simulator, frame: pd.DataFrame, redeemables: list[dict[str, Any]], policies: dict[str, Any]):
    view = pricing_view(sim)
    sent = [RedeemableInput.model_validate(r) for r in redeemables]
    entries = [r.entry for r in resolve_redeemables(sim, view, sent, held(sim))]
    ctx = PricingContext(sim.now, {}, usage=usage_of(sim))
    return engine_rows(prepare_orders(sim, frame), entries, policy_rules(sim, policies), view.catalogue, ctx)


def test_demo_stack_3000_orders_every_policy_field_equals_the_engine(categorised: Simulator) -> None:
    orders = random_orders(3000, seed=11)
    result = compare_stacking_policies(categorised, orders, DEMO_STACK, EVERY_FIELD, chunk_size=1024)
    assert list(result.orders.columns) == ORDER_COLUMNS and list(result.redeemables.columns) == REDEEMABLE_COLUMNS
    assert result.paths["path"].tolist() == ["vectorized"] and result.paths["engine_orders"].tolist() == [0]
    want_orders, want_redeemables = _reference(categorised, orders, DEMO_STACK, EVERY_FIELD)
    assert_same(plain(result.orders), want_orders, "orders")
    assert_same(plain(result.redeemables), want_redeemables, "redeemables")
    summary = result.summary().set_index("policy")
    # the policies really differ, so the comparison is not trivially equal everywhere
    assert summary["total_discount"].nunique() >= 5
    assert summary.loc["partial", "valid_orders"] > summary.loc["project", "valid_orders"]
    reasons = set(result.redeemables["reason_key"].dropna().astype(str))
    assert {"order_rules_violated", "customer_rules_violated", "preceding_validation_failed", "no_effect",
            "exclusion_rules_not_met", "applicable_redeemables_limit_exceeded",
            "applicable_redeemables_per_category_limit_exceeded"} <= reasons


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n_entries=st.integers(1, 6), orders=st.integers(1, 120))
def test_random_stacks_and_rules_equal_the_engine(sim: Simulator, seed: int, n_entries: int, orders: int) -> None:
    rng = np.random.default_rng(seed)
    frame = random_orders(orders, seed=seed % 1000)
    entries = random_entries(rng, n_entries, seed % 97)
    rules = {f"p{k}": random_rules(rng) for k in range(3)}
    ctx = PricingContext(sim.now, {"channel": "app"} if seed % 2 else {})
    assert_equals_engine(prepare_orders(sim, frame), entries, rules, pricing_view(sim).catalogue, ctx, chunk_size=37)


def test_many_random_stacks_on_2000_orders(sim: Simulator) -> None:
    batch = prepare_orders(sim, random_orders(2000, seed=5))
    catalogue = pricing_view(sim).catalogue
    seen: set[str] = set()
    for seed in range(12):
        rng = np.random.default_rng(1000 + seed)
        rules = {f"p{k}": random_rules(rng) for k in range(3)}
        result = assert_equals_engine(batch, random_entries(rng, 5, seed), rules, catalogue,
                                      PricingContext(sim.now, {"channel": "app"}), chunk_size=700)
        seen |= set(result.redeemables["reason_key"].dropna().astype(str))
    assert len(seen) >= 10  # limits, exclusivity, no effect, rules, refusals... all met


# -- table-driven cases: the amounts themselves --------------------------------------------------
def _tier(discount: dict[str, Any], *, rules: dict[str, Any] | None = None, applicable_to: Any = None,
          tier_id: str = "t") -> Any:
    return compile_tier(TierSpec(id=tier_id, campaign=CampaignInfo(id=f"camp_{tier_id}"), discount=discount,
                                 rules=rules, applicable_to=applicable_to))


def _code(position: int, discount: dict[str, Any], *cats: StackCategory, **kw: Any) -> StackEntry:
    return StackEntry(position, "voucher", f"C{position}", discount=_tier(discount, tier_id=f"c{position}", **kw),
                      categories=cats)


def _gift(position: int, credits: int, *cats: StackCategory) -> StackEntry:
    return StackEntry(position, "voucher", f"G{position}", gift_credits=credits, categories=cats)


BEANS = {"included": [{"object": "products_collection", "id": "pc_beans"}]}
GRINDER_AND_BEANS = pd.DataFrame({"order_id": [1, 1], "product_id": ["prod_grinder", "prod_beans_colombia"],
                                  "quantity": [1, 2]})  # 8900 + 3200 = 12100
A, B = StackCategory("cat_a", 2), StackCategory("cat_b", 0)
CASES = [
    # (name, entries, settings, discount)
    ("gift, 20 % on the running total, 8000 off", lambda: [_gift(0, 100), _code(1, {"type": "PERCENT", "percent_off": 20}),
                                                       _code(2, {"type": "AMOUNT", "amount_off": 8000})], {}, 100 + 2400 + 8000),
    ("10 % then 20 %, discounted", lambda: [_code(0, {"type": "PERCENT", "percent_off": 10}),
                                             _code(1, {"type": "PERCENT", "percent_off": 20})], {}, 1210 + 2178),
    ("10 % then 20 %, initial", lambda: [_code(0, {"type": "PERCENT", "percent_off": 10}),
                                          _code(1, {"type": "PERCENT", "percent_off": 20})],
     {"discount_calculation_mode": "INITIAL_AMOUNT"}, 1210 + 2420),
    ("two item percents stack on beans", lambda: [_code(0, {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS),
                                                  _code(1, {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS)],
     {}, 1600 + 800),
    ("ONCE: the second item percent finds the beans taken", lambda: [
        _code(0, {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS),
        _code(1, {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS)],
     {"redeemables_products_application_mode": "ONCE"}, 1600),
    ("FIXED after a percent ends the line at its price", lambda: [
        _code(0, {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS),
        _code(1, {"type": "FIXED", "fixed_amount": 1000, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS)],
     {}, 320 + (3200 - 2000 - 320)),
    ("item discount trimmed to what the order-level one left", lambda: [
        _code(0, {"type": "AMOUNT", "amount_off": 12000}),
        _code(1, {"type": "AMOUNT", "amount_off": 3000, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS)],
     {}, 12100),
    ("order.amount rule reads the running total", lambda: [
        _code(0, {"type": "AMOUNT", "amount_off": 3000}),
        _code(1, {"type": "AMOUNT", "amount_off": 500}, rules={"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [10000]}}}})],
     {"redeemables_application_mode": "PARTIAL"}, 3000),
    ("ALL: one inapplicable, nothing applies", lambda: [
        _code(0, {"type": "AMOUNT", "amount_off": 3000}),
        _code(1, {"type": "AMOUNT", "amount_off": 500}, rules={"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [10000]}}}})],
     {}, 0),
    ("no effect skipped does not count against the limit", lambda: [
        _code(0, {"type": "AMOUNT", "amount_off": 0}), _code(1, {"type": "AMOUNT", "amount_off": 700})],
     {"redeemables_no_effect_rule": "SKIP", "applicable_redeemables_limit": 1,
      "applicable_redeemables_per_category_limit": 1}, 700),
    ("exclusive one tried first wins over common ones", lambda: [
        _code(0, {"type": "AMOUNT", "amount_off": 700}), _code(1, {"type": "AMOUNT", "amount_off": 300}, A)],
     {"exclusive_categories": ["cat_a"]}, 300),
    ("hierarchy puts the lower category first (it then meets the total limit)", lambda: [
        _code(0, {"type": "AMOUNT", "amount_off": 700}, A), _code(1, {"type": "AMOUNT", "amount_off": 300}, B)],
     {"redeemables_sorting_rule": "CATEGORY_HIERARCHY", "applicable_redeemables_limit": 1,
      "applicable_redeemables_per_category_limit": 1, "redeemables_application_mode": "PARTIAL"}, 300),
    ("a free grinder (the one in the cart), then 10 % of the beans left", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_grinder"}),
        _code(1, {"type": "PERCENT", "percent_off": 10})], {}, 8900 + 320),
    ("a free extra bag of beans raises the amount, 10 % sees the same total", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_beans_colombia"}),
        _code(1, {"type": "PERCENT", "percent_off": 10})], {}, 1600 + 1210),
    ("per-category limit skips the second of a category", lambda: [
        _code(0, {"type": "AMOUNT", "amount_off": 700}, A), _code(1, {"type": "AMOUNT", "amount_off": 300}, A),
        _gift(2, 50)], {"redeemables_application_mode": "PARTIAL"}, 750),
]


@pytest.mark.parametrize(("name", "make", "changes", "discount"), CASES, ids=[c[0] for c in CASES])
def test_table_driven_cases(sim: Simulator, name: str, make: Any, changes: dict[str, Any], discount: int) -> None:
    rules = policy_rules(sim, {"case": changes})
    result = assert_equals_engine(prepare_orders(sim, GRINDER_AND_BEANS), make(), rules, pricing_view(sim).catalogue,
                                  PricingContext(sim.now, {}))
    assert result.orders["discount"].tolist() == [discount], name


# -- UNIT discounts in the running arrays ------------------------------------------------------------
def _random_unit(rng: np.random.Generator, position: int, index: int) -> StackEntry:
    """A random UNIT discount (every effect, targets in and out of the cart, SKUs, the priceless shipping)."""
    while True:
        spec = random_tier(rng, index)
        if spec.discount["type"] == "UNIT":
            break
    return StackEntry(position, "voucher", f"U{position}", discount=compile_tier(spec), categories=random_categories(rng))


def test_random_stacks_with_unit_discounts_are_vectorized_and_equal_the_engine(sim: Simulator) -> None:
    """Stacks of 5 with one or two UNIT discounts, every policy setting drawn: every cell equals
    `evaluate_stack`, and (but for rules on the lines after a UNIT discount) numpy prices them."""
    batch = prepare_orders(sim, random_orders(600, seed=17))
    catalogue = pricing_view(sim).catalogue
    vectorized = engine = 0
    for seed in range(30):
        rng = np.random.default_rng(7000 + seed)
        entries = random_entries(rng, 5, 50 + seed)
        for k in rng.choice(5, size=int(rng.integers(1, 3)), replace=False).tolist():
            entries[k] = _random_unit(rng, k, 900 + 10 * seed + k)
        rules = {f"p{k}": random_rules(rng) for k in range(3)}
        result = assert_equals_engine(batch, entries, rules, catalogue, PricingContext(sim.now, {"channel": "app"}),
                                      chunk_size=250)
        if result.paths["path"].tolist() == ["vectorized"]:
            vectorized += 1
            engine += int(result.paths["engine_orders"][0])
    assert vectorized >= 15
    assert engine < vectorized * 600 * 0.05  # orders the engine trims: few


UNIT_CASES = [
    # (name, entries, settings, discount), on a grinder (8900) and 2 bags of beans (3200)
    ("two free mugs, the second tops up the line the first appended", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_mug"}),
        _code(1, {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 2, "unit_type": "prod_mug"})], {}, 2400),
    ("ONCE: the second free mug is dropped (the line is discounted)", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_mug"}),
        _code(1, {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 2, "unit_type": "prod_mug"})],
     {"redeemables_products_application_mode": "ONCE"}, 1200),
    ("ONCE: a free bag aimed at beans an item percent took is dropped", lambda: [
        _code(0, {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS),
        _code(1, {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_beans_colombia"})],
     {"redeemables_products_application_mode": "ONCE", "redeemables_no_effect_rule": "SKIP",
      "redeemables_application_mode": "PARTIAL"}, 1600),
    ("a free bag, then 50 % of the beans: of their running subtotal", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_beans_colombia"}),
        _code(1, {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}, applicable_to=BEANS)],
     {}, 1600 + 1600),
    ("ADD_MANY: a mug and a 1 kg bag, then 10 %", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": [
            {"effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_mug"},
            {"effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "sku_colombia_1000"}]}),
        _code(1, {"type": "PERCENT", "percent_off": 10})], {}, 1200 + 5500 + 1210),
    ("rules read the lines the units left: a third line, a mug in the cart", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 2, "unit_type": "prod_mug"}),
        _code(1, {"type": "PERCENT", "percent_off": 10},
              rules={"rules": {"1": {"name": "order.items.count", "conditions": {"$more_than": [2]}},
                               "2": {"name": "product.id", "conditions": {"$in": ["prod_mug"]}},
                               "3": {"name": "order.items.quantity", "conditions": {"$more_than": [4]}},
                               "logic": "1 and 2 and 3"}})], {}, 2400 + 1210),
    ("a rule the lines the units left fail: its message is the engine's", lambda: [
        _code(0, {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_mug"}),
        _code(1, {"type": "PERCENT", "percent_off": 10},
              rules={"rules": {"1": {"name": "order.items.quantity", "conditions": {"$less_than": [4]}}}})],
     {"redeemables_application_mode": "PARTIAL"}, 1200),
    ("a gift card takes the total, then a free grinder: the engine trims it", lambda: [
        _gift(0, 12100),
        _code(1, {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_grinder"})],
     {}, 12100 + 8900),
]


@pytest.mark.parametrize(("name", "make", "changes", "discount"), UNIT_CASES, ids=[c[0] for c in UNIT_CASES])
def test_unit_cases_in_the_running_arrays(sim: Simulator, name: str, make: Any, changes: dict[str, Any],
                                         discount: int) -> None:
    rules = policy_rules(sim, {"case": changes})
    result = assert_equals_engine(prepare_orders(sim, GRINDER_AND_BEANS), make(), rules, pricing_view(sim).catalogue,
                                  PricingContext(sim.now, {}))
    assert result.orders["discount"].tolist() == [discount], name
    assert result.paths["path"].tolist() == ["vectorized"], name


# -- paths other than numpy ------------------------------------------------------------------------
def test_a_stack_the_masks_cannot_hold_takes_the_engine_and_still_equals_it(sim: Simulator) -> None:
    budget = {"rules": {"1": {"name": "redemption.count.per_customer", "conditions": {"$less_than": [3]}}}}
    shared = {"included": [{"object": "products_collection", "id": "pc_beans", "aggregated_amount_limit": 500},
                           {"object": "product", "id": "prod_beans_colombia", "aggregated_amount_limit": 300}]}
    for entries in ([_code(0, {"type": "AMOUNT", "amount_off": 100}, rules=budget), _gift(1, 10)],
                    [_code(0, {"type": "PERCENT", "percent_off": 20, "effect": "APPLY_TO_ITEMS"}, applicable_to=shared)],
                    # free units, then a proportional item discount (it would share with the appended lines)
                    [_code(0, {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_mug"}),
                     _code(1, {"type": "AMOUNT", "amount_off": 900, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"},
                           applicable_to=BEANS)]):
        result = assert_equals_engine(prepare_orders(sim, random_orders(150, seed=8)), entries,
                                      policy_rules(sim, DEFAULT_POLICIES), pricing_view(sim).catalogue,
                                      PricingContext(sim.now, {}, usage=usage_of(sim)))
        assert result.paths["path"].tolist() == ["fallback"] and result.paths["engine_orders"].tolist() == [150]


def test_a_chunk_with_huge_amounts_takes_the_engine(sim: Simulator) -> None:
    frame = random_orders(300, seed=9)
    frame.loc[frame.index[:3], "price"] = 2**51  # past 2**52 an order: sums leave the exact range
    rng = np.random.default_rng(4)
    result = assert_equals_engine(prepare_orders(sim, frame), random_entries(rng, 4), {"p": random_rules(rng)},
                                  pricing_view(sim).catalogue, PricingContext(sim.now, {}), chunk_size=100)
    assert result.paths["path"].tolist() == ["vectorized"] and 0 < result.paths["engine_orders"][0] < 300


# -- the public function ---------------------------------------------------------------------------
def test_deterministic_and_independent_of_the_chunk_size(sim: Simulator) -> None:
    orders = random_orders(1500, seed=21)
    first = compare_stacking_policies(sim, orders, DEMO_STACK)
    again = compare_stacking_policies(sim, orders, DEMO_STACK, chunk_size=97)
    for name in ("orders", "redeemables"):
        pd.testing.assert_frame_equal(getattr(first, name), getattr(again, name))
    pd.testing.assert_frame_equal(first.summary(), again.summary())


def test_project_policy_equals_the_simulators_stacked_validation(sim: Simulator) -> None:
    orders = random_orders(40, seed=31)
    result = compare_stacking_policies(sim, orders, DEMO_STACK, {"project": {}})
    from promolab.analysis import orders_from_frame

    for (order_id, request), row in zip(orders_from_frame(orders).items(), result.orders.itertuples(), strict=True):
        answer = validate_stacked(sim, request={**request, "redeemables": DEMO_STACK}).wire
        assert (row.order_id, row.valid, row.total) == (order_id, answer["valid"], answer["order"]["total_amount"])


def test_per_order_lists_order_dicts_and_frames(sim: Simulator) -> None:
    orders = random_orders(60, seed=41)
    ids = list(dict.fromkeys(orders["order_id"]))
    lists = {o: DEMO_STACK[: 1 + i % 4] for i, o in enumerate(ids)}
    result = compare_stacking_policies(sim, orders, lists, {"a": {}, "b": {"redeemables_application_mode": "PARTIAL"}})
    assert len(result.paths) == 4 and result.orders["order_id"].tolist() == [o for o in ids for _ in "ab"]
    for group in (1, 3):
        part = orders[orders["order_id"].isin([o for i, o in enumerate(ids) if i % 4 == group - 1])]
        alone = compare_stacking_policies(sim, part, DEMO_STACK[:group], {"a": {}, "b": {"redeemables_application_mode": "PARTIAL"}})
        mine = result.redeemables[result.redeemables["order_id"].isin(alone.orders["order_id"].astype(object))]
        assert plain(mine.astype({"order_id": object})) == plain(alone.redeemables.astype({"order_id": object}))
    requests = [{"customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 2}]}}]
    dicts = compare_stacking_policies(sim, requests, [{"object": "promotion_tier", "id": "promo_vip_mug_5"}], {"a": {}})
    assert dicts.orders["discount"].tolist() == [2 * (1200 - 500)]


def test_summary_difference_reason_counts_and_plot(sim: Simulator) -> None:
    result = compare_stacking_policies(sim, random_orders(500, seed=51), DEMO_STACK)
    summary = result.summary().set_index("policy")
    orders = result.orders
    for name in DEFAULT_POLICIES:
        mine = orders[orders["policy"] == name]
        assert summary.loc[name, "total_discount"] == mine["discount"].sum()
        assert summary.loc[name, "valid_orders"] == mine["valid"].sum()
    diff = result.difference("project", "partial")
    assert (diff["difference"] == diff["discount_b"] - diff["discount_a"]).all() and diff["difference"].sum() > 0
    counts = result.reason_counts()
    assert counts["redeemables"].sum() == (result.redeemables["status"] != "APPLICABLE").sum()
    ax = result.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == list(DEFAULT_POLICIES)
    assert any("$" in t.get_text() for t in ax.texts)
    result.currency = "EUR"  # what a simulator of a EUR scenario gives its comparisons: the chart follows it
    texts = [t.get_text() for t in result.plot().texts]
    assert texts and all("€" in t and "$" not in t for t in texts)
    with pytest.raises(ValueError, match="unknown policy"):
        result.difference("project", "nope")


@pytest.mark.parametrize(("policies", "redeemables", "message"), [
    ({"x": {"no_such_setting": 1}}, DEMO_STACK, "unknown stacking-rules setting"),
    ({"x": {"applicable_redeemables_limit": 40}}, DEMO_STACK, "policy 'x'"),
    ({"x": {"redeemables_limit": 2, "applicable_redeemables_limit": 2, "applicable_redeemables_per_category_limit": 1}},
     DEMO_STACK, "at most 2 redeemables"),
    ({"x": {}}, DEMO_STACK[:1] * 2, "Duplicated redeemables"),
    ({"x": {}}, [], "non-empty list"),
])
def test_refusals(sim: Simulator, policies: dict[str, Any], redeemables: list[Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compare_stacking_policies(sim, random_orders(5, seed=1), redeemables, policies)


def test_empty_policies_and_unknown_redeemables(sim: Simulator) -> None:
    with pytest.raises(ValueError, match="at least one policy"):
        compare_stacking_policies(sim, random_orders(5, seed=1), DEMO_STACK, {})
    result = compare_stacking_policies(sim, random_orders(5, seed=1), [{"object": "voucher", "id": "NOPE"}], {"a": {}})
    assert set(result.redeemables["status"].astype(str)) == {"INAPPLICABLE"} and not result.orders["valid"].any()
