"""Categories in a stack, at the engine: the order redeemables are tried in, and each category's limit.

Table-driven cases pin the application order (REQUESTED_ORDER against
CATEGORY_HIERARCHY, ties, several categories per redeemable, the groups
exclusive / common / joint) and which limit holds for a category
(`category_limits`); a hypothesis invariant holds over generated stacks with
categories of every kind: the applied discounts add up to the order's, no
total goes below zero, and the order tried is a permutation of the request
that keeps the groups and, under CATEGORY_HIERARCHY, the hierarchies.
The service's own examples on categories run through the simulator in
tests/sim/test_categories.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pricing_builders import ctx, tier

from promolab.engine import (
    Catalogue,
    CatalogueProduct,
    StackCategory,
    StackEntry,
    StackResult,
    application_order,
    category_limits,
    compile_tier,
    evaluate_stack,
    normalize_order,
    stack_order,
)
from promolab.models import StackingRules

CATALOGUE = Catalogue(products=[CatalogueProduct("prod_a", "a", "A", 2500), CatalogueProduct("prod_b", "b", "B", 999)])

#: The categories of the tables: hierarchy as the service's `Category.hierarchy`.
CATS = {
    "x0": StackCategory("cat_x0", 0), "x1": StackCategory("cat_x1", 1), "x2": StackCategory("cat_x2", 2),
    "y0": StackCategory("cat_y0", 0), "y2": StackCategory("cat_y2", 2), "j0": StackCategory("cat_j0", 0),
    "j3": StackCategory("cat_j3", 3), "e1": StackCategory("cat_e1", 1), "e2": StackCategory("cat_e2", 2),
}
EXCLUSIVE = ["cat_e1", "cat_e2"]
JOINT = ["cat_j0", "cat_j3"]


def entry(position: int, *categories: str, off: int = 100) -> StackEntry:
    spec = tier({"type": "AMOUNT", "amount_off": off}, id=f"CODE{position}")
    return StackEntry(position, "voucher", f"CODE{position}", discount=compile_tier(spec),
                      categories=tuple(CATS[c] for c in categories))


# -- the order they are tried in -----------------------------------------------------------------------------
ORDERS: list[tuple[str, list[tuple[str, ...]], list[int], list[int]]] = [
    # (case, each entry's categories, tried under REQUESTED_ORDER, tried under CATEGORY_HIERARCHY)
    ("no categories: the request's order both ways", [(), (), ()], [0, 1, 2], [0, 1, 2]),
    ("lower hierarchy first", [("x2",), ("x1",), ("x0",)], [0, 1, 2], [2, 1, 0]),
    ("no category counts as the default 1: after 0, before 2", [("x2",), (), ("x0",)], [0, 1, 2], [2, 1, 0]),
    ("ties keep the request's order", [("x1",), ("y2",), (), ("x1",)], [0, 1, 2, 3], [0, 2, 3, 1]),
    ("two categories: the lower hierarchy of the two counts", [("x2",), ("y2", "y0"), ("x1",)], [0, 1, 2], [1, 2, 0]),
    ("exclusive first whatever the order sent", [("x0",), ("e2",), ()], [1, 0, 2], [1, 0, 2]),
    ("exclusive ones among themselves by hierarchy", [("e2",), ("e1",), ("x0",)], [0, 1, 2], [1, 0, 2]),
    ("joint last, in the request's order: their hierarchies are ignored", [("j3",), ("j0",), ("x2",)],
     [2, 0, 1], [2, 0, 1]),
    ("an exclusive category wins over a joint one of the same redeemable", [("j0", "e2"), ("x0",)], [0, 1], [0, 1]),
    ("every group at once", [("j0",), ("x2",), ("e2",), ("x0",), ("e1",), ()],
     [2, 4, 1, 3, 5, 0], [4, 2, 3, 5, 1, 0]),
]


@pytest.mark.parametrize(("case", "categories", "requested", "hierarchy"), ORDERS, ids=[c[0] for c in ORDERS])
def test_the_order_redeemables_are_tried_in(
    case: str, categories: list[tuple[str, ...]], requested: list[int], hierarchy: list[int]
) -> None:
    entries = [entry(i, *cats) for i, cats in enumerate(categories)]
    for sorting, expected in (("REQUESTED_ORDER", requested), ("CATEGORY_HIERARCHY", hierarchy)):
        rules = StackingRules(redeemables_sorting_rule=sorting, exclusive_categories=EXCLUSIVE, joint_categories=JOINT)
        assert [e.position for e, _ in application_order(entries, rules)] == expected, (case, sorting)
        order = normalize_order(CATALOGUE, {"amount": 100000}, None)
        no_limits = rules.model_copy(update={"applicable_redeemables_limit": 30, "applicable_exclusive_redeemables_limit": 5,
                                             "applicable_redeemables_per_category_limit": None,
                                             "applicable_exclusive_redeemables_per_category_limit": None})
        assert list(evaluate_stack(entries, order, None, ctx(), no_limits).tried) == expected, (case, sorting)


# -- each category's limit -------------------------------------------------------------------------------------
LIMITS: list[tuple[str, dict[str, Any], tuple[str, ...], list[tuple[str, int | None, str]]]] = [
    # (case, rules, the entry's categories, (category, limit, key) per category; None: no limit)
    ("a common category: the per-category limit", {}, ("x0",),
     [("cat_x0", 1, "applicable_redeemables_per_category_limit_exceeded")]),
    ("an override wins", {"applicable_redeemables_category_limits": {"cat_x0": 3}}, ("x0", "x1"),
     [("cat_x0", 3, "applicable_redeemables_per_category_limit_exceeded"),
      ("cat_x1", 1, "applicable_redeemables_per_category_limit_exceeded")]),
    ("an exclusive category: the exclusive per-category limit", {"applicable_exclusive_redeemables_per_category_limit": 4},
     ("e1",), [("cat_e1", 4, "applicable_exclusive_redeemables_per_category_limit_exceeded")]),
    ("an override names an exclusive category's limit too", {"applicable_redeemables_category_limits": {"cat_e1": 2}},
     ("e1",), [("cat_e1", 2, "applicable_exclusive_redeemables_per_category_limit_exceeded")]),
    ("an exclusive redeemable's common category keeps the common limit",
     {"applicable_redeemables_per_category_limit": 2, "applicable_exclusive_redeemables_per_category_limit": 3},
     ("x0", "e2"), [("cat_x0", 2, "applicable_redeemables_per_category_limit_exceeded"),
                    ("cat_e2", 3, "applicable_exclusive_redeemables_per_category_limit_exceeded")]),
    ("no limit: null", {"applicable_redeemables_per_category_limit": None,
                        "applicable_exclusive_redeemables_per_category_limit": None}, ("x0", "e1"), []),
    ("a joint category counts like a common one", {}, ("j0",),
     [("cat_j0", 1, "applicable_redeemables_per_category_limit_exceeded")]),
]


@pytest.mark.parametrize(("case", "changes", "categories", "expected"), LIMITS, ids=[c[0] for c in LIMITS])
def test_which_limit_holds_for_a_category(
    case: str, changes: dict[str, Any], categories: tuple[str, ...], expected: list[tuple[str, int | None, str]]
) -> None:
    rules = StackingRules(exclusive_categories=EXCLUSIVE, joint_categories=JOINT, **changes)
    found = [(c.category, c.limit, c.failure.key) for c in category_limits(entry(0, *categories), rules)]
    assert found == expected, case


def test_an_exclusive_redeemable_counts_in_its_common_category_under_that_categorys_limit() -> None:
    """An exclusive redeemable also in the common cat_x0 is tried first and
    excludes the common one; two exclusive ones apply within the exclusive
    limits, until both are in cat_x0 too: its common limit (1) holds the
    second back."""
    entries = [entry(0, "x0", off=300), entry(1, "x0", "e1", off=500)]
    order = normalize_order(CATALOGUE, {"amount": 10000}, None)
    rules = StackingRules(exclusive_categories=EXCLUSIVE, redeemables_application_mode="PARTIAL")
    result = evaluate_stack(entries, order, None, ctx(), rules)
    assert [(r.status, r.reason_key) for r in result.redeemables] == [
        ("SKIPPED", "exclusion_rules_not_met"), ("APPLICABLE", None)]
    # the same two, the second in an exclusive category only: the common cat_x0 limit no longer meets it
    both = [entry(0, "e1", off=300), entry(1, "x0", "e1", off=500)]
    rules = rules.model_copy(update={"applicable_exclusive_redeemables_limit": 2,
                                     "applicable_exclusive_redeemables_per_category_limit": 2})
    result = evaluate_stack(both, order, None, ctx(), rules)
    assert [r.status for r in result.redeemables] == ["APPLICABLE", "APPLICABLE"]
    assert result.running.total == 9200
    three = [entry(0, "x0", "e1", off=100), entry(1, "x0", "e2", off=200)]
    result = evaluate_stack(three, order, None, ctx(), rules)
    assert [(r.status, r.reason_key) for r in result.redeemables] == [
        ("APPLICABLE", None), ("SKIPPED", "applicable_redeemables_per_category_limit_exceeded")]


# -- an invariant over generated stacks ------------------------------------------------------------------------
ALL_CATS = list(CATS.values())
categories = st.lists(st.sampled_from(ALL_CATS), max_size=3, unique_by=lambda c: c.id).map(tuple)
discounts = st.one_of(
    st.builds(lambda a: {"type": "AMOUNT", "amount_off": a}, st.integers(0, 6000)),
    st.builds(lambda p: {"type": "PERCENT", "percent_off": p}, st.integers(1, 100)),
    st.builds(lambda a: {"type": "AMOUNT", "amount_off": a, "effect": "APPLY_TO_ITEMS"}, st.integers(1, 3000)),
)
limits = st.none() | st.integers(1, 3)


@st.composite
def rules_with_categories(draw: st.DrawFn) -> StackingRules:
    total = draw(st.integers(1, 8))
    per_category = draw(st.none() | st.integers(1, total))
    overrides = draw(st.dictionaries(st.sampled_from([c.id for c in ALL_CATS]), st.integers(1, 3), max_size=3))
    return StackingRules(
        exclusive_categories=EXCLUSIVE, joint_categories=JOINT,
        applicable_redeemables_limit=total, applicable_redeemables_per_category_limit=per_category,
        applicable_redeemables_category_limits=overrides,
        applicable_exclusive_redeemables_limit=draw(st.integers(1, 5)),
        applicable_exclusive_redeemables_per_category_limit=draw(st.none() | st.integers(1, 5)),
        redeemables_sorting_rule=draw(st.sampled_from(["REQUESTED_ORDER", "CATEGORY_HIERARCHY"])),
        redeemables_application_mode=draw(st.sampled_from(["ALL", "PARTIAL"])),
        discount_calculation_mode=draw(st.sampled_from(["DISCOUNTED_AMOUNT", "INITIAL_AMOUNT"])),
    )


_GROUP = {"EXCLUSIVE": 0, "COMMON": 1, "JOINT": 2}


def _hierarchy(entry: StackEntry) -> int:
    return min((c.hierarchy for c in entry.categories), default=1)


def _check_order(result: StackResult, rules: StackingRules) -> None:
    tried = [result.redeemables[p] for p in result.tried]
    assert sorted(result.tried) == list(range(len(result.redeemables)))  # a permutation of the request
    groups = [_GROUP[r.kind] for r in tried]
    assert groups == sorted(groups)
    for group in ("EXCLUSIVE", "COMMON", "JOINT"):
        members = [r.entry for r in tried if r.kind == group]
        by_hierarchy = rules.redeemables_sorting_rule == "CATEGORY_HIERARCHY" and group != "JOINT"
        keys = [(_hierarchy(e), e.position) if by_hierarchy else (0, e.position) for e in members]
        assert keys == sorted(keys)


def _check_limits(result: StackResult, rules: StackingRules) -> None:
    applied = result.applicable
    assert len(applied) <= rules.applicable_redeemables_limit
    assert sum(r.kind == "EXCLUSIVE" for r in applied) <= rules.applicable_exclusive_redeemables_limit
    if any(r.kind == "EXCLUSIVE" for r in applied):
        assert all(r.kind != "COMMON" for r in applied)
    for category in ALL_CATS:
        members = sum(category in r.entry.categories for r in applied)
        default = (rules.applicable_exclusive_redeemables_per_category_limit if category.id in EXCLUSIVE
                   else rules.applicable_redeemables_per_category_limit)
        limit = rules.applicable_redeemables_category_limits.get(category.id, default)
        assert limit is None or members <= limit, category.id


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(discounts, categories), min_size=1, max_size=8), rules_with_categories(),
       st.integers(1, 4), st.integers(0, 3))
def test_stacks_with_categories_add_up_stay_positive_and_keep_the_group_order(
    specs: list[tuple[dict[str, Any], tuple[StackCategory, ...]]], rules: StackingRules, a: int, b: int
) -> None:
    entries = [StackEntry(i, "voucher", f"CODE{i}", discount=compile_tier(tier(d, id=f"CODE{i}")), categories=cats)
               for i, (d, cats) in enumerate(specs)]
    items = [{"product_id": "prod_a", "quantity": a}] + ([{"product_id": "prod_b", "quantity": b}] if b else [])
    order = normalize_order(CATALOGUE, {"items": items}, None)
    result = evaluate_stack(entries, order, None, ctx(), rules)
    _check_order(result, rules)
    _check_limits(result, rules)
    applied = sum(r.applied for r in result.applicable)
    final = stack_order(result)
    assert final["total_amount"] >= 0 and all(line.get("subtotal_amount", 0) >= 0 for line in final.get("items", ()))
    if result.valid:
        assert applied == result.discount == order.amount - final["total_amount"]
        assert final.get("total_discount_amount", 0) == applied
    else:
        assert result.discount == 0 and final["total_amount"] == order.amount
