"""Invariants of `evaluate_stack`, on random carts, random stacks and random stacking rules.

The worked examples (test_stacking_examples.py) pin the numbers of a few
cases; these hold for every case: the running total only ever goes down and
never below zero, the final order adds up from the applicable steps, ALL is
all-or-nothing, the limits hold, ONCE discounts a line once, INITIAL_AMOUNT
percentages add up, and one redeemable alone (a UNIT one too) gets what the
single-tier engine (`price_normalized`) gives it. The generated stacks hold
UNIT (free item) discounts: their added units raise the order's amount and
are taken off, so the running total still never rises.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pricing_builders import ctx, included, tier

from promolab.engine import (
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    RuleFailure,
    StackCategory,
    StackEntry,
    StackResult,
    compile_tier,
    evaluate_stack,
    normalize_order,
    outcome_wire,
    price_normalized,
    redeemable_order,
    stack_order,
)
from promolab.models import StackingRules

CATALOGUE = Catalogue(
    products=[
        CatalogueProduct("prod_a", "a", "A", 1200),
        CatalogueProduct("prod_b", "b", "B", 2999),
        CatalogueProduct("prod_c", "c", "C", 450),
        CatalogueProduct("prod_d", "d", "D", 10000),
    ],
    collections=[CatalogueCollection("pc_ab", "A and B", frozenset({"prod_a", "prod_b"}))],
)
PRODUCTS = ["prod_a", "prod_b", "prod_c", "prod_d"]
CATEGORIES = ["cat_x", "cat_y", "cat_z"]
SETTINGS = settings(max_examples=120, deadline=None)

# -- strategies -------------------------------------------------------------------------------------------
lines = st.lists(
    st.fixed_dictionaries({"product_id": st.sampled_from(PRODUCTS), "quantity": st.integers(1, 5)}),
    min_size=1, max_size=4,
)
scopes = st.sampled_from([
    included({"object": "products_collection", "id": "pc_ab"}),
    included({"object": "product", "id": "prod_b"}),
    included({"object": "product", "id": "prod_d", "quantity_limit": 2}),
    included({"object": "product", "id": "prod_a", "price": 700}),
])
ITEM_EFFECTS = ["APPLY_TO_ITEMS", "APPLY_TO_ITEMS_BY_QUANTITY", "APPLY_TO_ITEMS_PROPORTIONALLY",
                "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY"]
order_percent = st.builds(lambda p, cap: {"type": "PERCENT", "percent_off": p, **({"amount_limit": cap} if cap else {})},
                          st.integers(1, 100), st.none() | st.integers(1, 5000))
order_discounts = st.one_of(
    st.builds(lambda a: {"type": "AMOUNT", "amount_off": a}, st.integers(0, 8000)),
    order_percent,
    st.builds(lambda f: {"type": "FIXED", "fixed_amount": f}, st.integers(0, 30000)),
)
item_discounts = st.one_of(
    st.builds(lambda a, e: {"type": "AMOUNT", "amount_off": a, "effect": e}, st.integers(1, 3000), st.sampled_from(ITEM_EFFECTS)),
    st.builds(lambda p, agg: {"type": "PERCENT", "percent_off": p, "effect": "APPLY_TO_ITEMS",
                              **({"aggregated_amount_limit": agg} if agg else {})},
              st.integers(1, 100), st.none() | st.integers(1, 4000)),
    st.builds(lambda f: {"type": "FIXED", "fixed_amount": f, "effect": "APPLY_TO_ITEMS"}, st.integers(0, 3000)),
)
unit_types = st.sampled_from([*PRODUCTS, "prod_5h1pp1ng"])  # the built-in shipping product has no price
unit_effects = st.sampled_from(["ADD_MISSING_ITEMS", "ADD_NEW_ITEMS"])
one_unit = st.builds(lambda e, n, t: {"effect": e, "unit_off": n, "unit_type": t}, unit_effects, st.integers(0, 4), unit_types)
unit_discounts = st.one_of(
    one_unit.map(lambda u: {"type": "UNIT", **u}),
    st.lists(one_unit, min_size=1, max_size=3).map(lambda us: {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": us}),
)
amount_rules = st.none() | st.builds(
    lambda op, v: {"rules": {"1": {"name": "order.amount", "conditions": {op: [v]}}}, "logic": "1"},
    st.sampled_from(["$more_than", "$less_than"]), st.integers(0, 30000),
)
categories = st.lists(st.builds(StackCategory, st.sampled_from(CATEGORIES), st.integers(0, 3)),
                      max_size=2, unique_by=lambda c: c.id).map(tuple)


@st.composite
def entry_specs(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["order", "order", "items", "items", "unit", "gift", "refused"]))
    spec: dict[str, Any] = {"kind": kind, "categories": draw(categories)}
    if kind == "unit":
        spec["discount"], spec["rules"] = draw(unit_discounts), draw(amount_rules)
    elif kind == "order":
        spec["discount"], spec["rules"] = draw(order_discounts), draw(amount_rules)
    elif kind == "items":
        spec["discount"], spec["rules"], spec["scope"] = draw(item_discounts), draw(amount_rules), draw(scopes)
    elif kind == "gift":
        spec["credits"] = draw(st.integers(0, 20000))
    return spec


def build(position: int, spec: dict[str, Any]) -> StackEntry:
    code, cats = f"CODE{position}", spec["categories"]
    if spec["kind"] == "gift":
        return StackEntry(position, "voucher", code, gift_credits=spec["credits"], categories=cats)
    if spec["kind"] == "refused":
        return StackEntry(position, "voucher", code, refusal=RuleFailure("not_found", "gone"), categories=cats)
    compiled = compile_tier(tier(spec["discount"], id=code, rules=spec["rules"], applicable_to=spec.get("scope")))
    return StackEntry(position, "voucher", code, discount=compiled, categories=cats)


@st.composite
def stacking_rules(draw: st.DrawFn) -> StackingRules:
    limit = draw(st.integers(1, 8))
    exclusive = draw(st.lists(st.sampled_from(CATEGORIES), max_size=1, unique=True))
    joint = draw(st.lists(st.sampled_from([c for c in CATEGORIES if c not in exclusive]), max_size=1, unique=True))
    return StackingRules(
        applicable_redeemables_limit=limit,
        applicable_redeemables_per_category_limit=draw(st.none() | st.integers(1, limit)),
        applicable_exclusive_redeemables_limit=draw(st.integers(1, 5)),
        exclusive_categories=exclusive, joint_categories=joint,
        discount_calculation_mode=draw(st.sampled_from(["DISCOUNTED_AMOUNT", "INITIAL_AMOUNT"])),
        redeemables_application_mode=draw(st.sampled_from(["ALL", "PARTIAL"])),
        redeemables_sorting_rule=draw(st.sampled_from(["REQUESTED_ORDER", "CATEGORY_HIERARCHY"])),
        redeemables_products_application_mode=draw(st.sampled_from(["STACK", "ONCE"])),
        redeemables_no_effect_rule=draw(st.sampled_from(["REDEEM_ANYWAY", "SKIP"])),
    )


def evaluate(items: list[dict[str, Any]], specs: list[dict[str, Any]], rules: StackingRules) -> tuple[StackResult, int]:
    order = normalize_order(CATALOGUE, {"items": items}, None)
    entries = [build(i, s) for i, s in enumerate(specs)]
    return evaluate_stack(entries, order, None, ctx(), rules, catalogue=CATALOGUE), order.amount


def in_tried_order(result: StackResult) -> list[Any]:
    return [result.redeemables[p] for p in result.tried]


def total_discount(order: dict[str, Any]) -> int:
    return order.get("total_discount_amount") or 0


# -- the running total ------------------------------------------------------------------------------------
@SETTINGS
@given(lines, st.lists(entry_specs(), min_size=1, max_size=8), stacking_rules())
def test_the_running_total_never_rises_nor_goes_negative_and_the_final_order_adds_up(
    items: list[dict[str, Any]], specs: list[dict[str, Any]], rules: StackingRules
) -> None:
    result, amount = evaluate(items, specs, rules)
    assert sorted(result.tried) == list(range(len(specs)))  # each tried once
    running = amount
    applied = added = 0
    for redeemable in in_tried_order(result):
        if redeemable.status != "APPLICABLE":
            assert redeemable.step is None and redeemable_order(result, redeemable) is None and redeemable.reason_key
            continue
        step = redeemable.step
        assert step.order_discount >= 0 and all(d >= 0 for d in step.line_discounts or ())
        grown = step.units.added_amount if step.units is not None else 0
        snapshot = redeemable_order(result, redeemable)
        after = result.pricing_of(redeemable)  # the typed running order the snapshot renders
        assert after is not None and (after.total, after.applied_order, after.applied_items) == (
            snapshot["total_amount"], step.order_discount, step.items)
        assert [line.applied for line in after.lines(result.lines_of(redeemable))][:len(step.line_discounts or ())] == [
            a if a or (step.units is not None and k in step.units.touched) else 0
            for k, a in enumerate(step.line_discounts or ())]
        assert snapshot["total_amount"] == running + grown - step.total <= running  # free units are taken off
        assert snapshot["total_amount"] >= 0
        assert all(line.get("subtotal_amount", 0) >= 0 for line in snapshot.get("items", ()))
        added += grown
        assert snapshot["amount"] == amount + added
        assert total_discount(snapshot) == snapshot["amount"] - snapshot["total_amount"]
        assert snapshot.get("total_applied_discount_amount", 0) == step.total
        running += grown - step.total
        applied += step.total
    final = stack_order(result)
    assert (result.final().total, result.final().total_discount) == (final["total_amount"], total_discount(final))
    assert all(line.get("subtotal_amount", 0) >= 0 for line in final.get("items", ()))
    if result.valid:
        assert final["amount"] == amount + added
        assert (total_discount(final), final["total_amount"], result.discount) == (applied, amount + added - applied, applied)
        # the applied discounts add up to the order's, line by line too
        assert final.get("total_applied_discount_amount", 0) == applied
        assert sum(i.get("discount_amount", 0) for i in final["items"]) == final.get("items_discount_amount", 0)
        assert result.running.total == running
    else:
        assert final["amount"] == amount
        assert (total_discount(final), final["total_amount"], result.discount) == (0, amount, 0)


# -- ALL and PARTIAL --------------------------------------------------------------------------------------
@SETTINGS
@given(lines, st.lists(entry_specs(), min_size=1, max_size=8), stacking_rules())
def test_all_is_all_or_nothing_and_partial_keeps_what_applies(
    items: list[dict[str, Any]], specs: list[dict[str, Any]], rules: StackingRules
) -> None:
    result, amount = evaluate(items, specs, rules)
    tried = in_tried_order(result)
    statuses = [r.status for r in tried]
    refused_positions = {i for i, s in enumerate(specs) if s["kind"] == "refused"}
    assert refused_positions <= {r.entry.position for r in result.redeemables if r.status != "APPLICABLE"}
    if rules.redeemables_application_mode == "ALL" and "INAPPLICABLE" in statuses:
        first = statuses.index("INAPPLICABLE")
        assert all(r.status == "SKIPPED" and r.reason_key == "preceding_validation_failed" for r in tried[first + 1:])
        assert not result.valid
        final = stack_order(result)
        assert final["total_amount"] == amount and "discount_amount" not in final and "items_discount_amount" not in final
    else:
        assert result.valid == ("APPLICABLE" in statuses)
        assert "preceding_validation_failed" not in {r.reason_key for r in tried}


# -- the limits and the categories ------------------------------------------------------------------------
@SETTINGS
@given(lines, st.lists(entry_specs(), min_size=1, max_size=8), stacking_rules())
def test_the_limits_and_exclusivity_hold(
    items: list[dict[str, Any]], specs: list[dict[str, Any]], rules: StackingRules
) -> None:
    result, _ = evaluate(items, specs, rules)
    applied = result.applicable
    assert len(applied) <= rules.applicable_redeemables_limit
    exclusive = [r for r in applied if r.kind == "EXCLUSIVE"]
    assert len(exclusive) <= rules.applicable_exclusive_redeemables_limit
    if exclusive:
        assert not [r for r in applied if r.kind == "COMMON"]
    per_category = rules.applicable_redeemables_per_category_limit
    for category in CATEGORIES:
        if category in rules.exclusive_categories:
            continue
        members = [r for r in applied if category in {c.id for c in r.entry.categories} and r.kind != "EXCLUSIVE"]
        assert per_category is None or len(members) <= per_category
    if rules.redeemables_no_effect_rule == "SKIP":
        assert all(r.step.has_effect for r in applied)
    kinds = [result.redeemables[p].kind for p in result.tried]
    assert kinds == sorted(kinds, key=["EXCLUSIVE", "COMMON", "JOINT"].index)  # exclusive first, joint last
    skipped_keys = {r.reason_key for r in result.redeemables if r.status == "SKIPPED"}
    assert skipped_keys <= {
        "preceding_validation_failed", "exclusion_rules_not_met", "no_effect", "applicable_redeemables_limit_exceeded",
        "applicable_redeemables_per_category_limit_exceeded", "applicable_exclusive_redeemables_limit_exceeded",
        "applicable_exclusive_redeemables_per_category_limit_exceeded",
    }


@SETTINGS
@given(lines, st.lists(entry_specs(), min_size=1, max_size=8), stacking_rules())
def test_category_hierarchy_tries_lower_hierarchies_first_within_a_group(
    items: list[dict[str, Any]], specs: list[dict[str, Any]], rules: StackingRules
) -> None:
    result, _ = evaluate(items, specs, rules)
    tried = [result.redeemables[p] for p in result.tried]
    for group in ("EXCLUSIVE", "COMMON", "JOINT"):
        members = [r for r in tried if r.kind == group]
        if rules.redeemables_sorting_rule == "CATEGORY_HIERARCHY" and group != "JOINT":
            keys = [(min((c.hierarchy for c in r.entry.categories), default=1), r.entry.position) for r in members]
        else:
            keys = [r.entry.position for r in members]
        assert keys == sorted(keys)


# -- lines: never below zero, and ONCE discounts a line once -----------------------------------------------
line_stacks = st.lists(st.one_of(
    st.builds(lambda d, s: {"kind": "items", "categories": (), "rules": None, "discount": d, "scope": s}, item_discounts, scopes),
    st.builds(lambda d, s: {"kind": "items", "categories": (), "rules": None, "discount": d, "scope": s}, item_discounts, scopes),
    st.builds(lambda d: {"kind": "order", "categories": (), "rules": None, "discount": d}, order_discounts),
), min_size=2, max_size=6)


ON_A = included({"object": "product", "id": "prod_a"})


def _items_spec(discount: dict[str, Any], scope: dict[str, Any] = ON_A) -> dict[str, Any]:
    return {"kind": "items", "categories": (), "rules": None, "discount": discount, "scope": scope}


A_AND_B = [{"product_id": "prod_a", "quantity": 1}, {"product_id": "prod_b", "quantity": 1}]
HALF_OFF_ITEMS = {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}


@SETTINGS
@given(lines, line_stacks, st.sampled_from(["DISCOUNTED_AMOUNT", "INITIAL_AMOUNT"]), st.sampled_from(["STACK", "ONCE"]))
# $10 off then half of the line as sent: the second stops at the $2 left
@example(A_AND_B, [_items_spec({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS"}),
                   _items_spec(HALF_OFF_ITEMS)], "INITIAL_AMOUNT", "STACK")
# the order brought to $0 first: an item discount has nothing left to take
@example(A_AND_B, [{"kind": "order", "categories": (), "rules": None, "discount": {"type": "FIXED", "fixed_amount": 0}},
                   _items_spec(HALF_OFF_ITEMS)], "DISCOUNTED_AMOUNT", "STACK")
@example(A_AND_B, [_items_spec(HALF_OFF_ITEMS), _items_spec(HALF_OFF_ITEMS)], "DISCOUNTED_AMOUNT", "ONCE")
def test_no_line_goes_below_zero_and_once_discounts_a_line_once(
    items: list[dict[str, Any]], specs: list[dict[str, Any]], mode: str, products: str
) -> None:
    """Item-level stacks, nothing refused and no limit in the way (these are
    the stacks where two discounts meet on one line)."""
    rules = StackingRules(applicable_redeemables_limit=8, applicable_redeemables_per_category_limit=None,
                          discount_calculation_mode=mode, redeemables_products_application_mode=products)
    result, _ = evaluate(items, specs, rules)
    order = normalize_order(CATALOGUE, {"items": items}, None)
    assert result.valid and len(result.applicable) == len(specs)
    taken = [0] * len(order.lines)
    touched: dict[int, str] = {}
    for redeemable in in_tried_order(result):
        for k, value in enumerate(redeemable.step.line_discounts or ()):
            taken[k] += value
            assert taken[k] <= order.lines[k].amount_or_zero, f"line {k} below zero after {redeemable.entry.id}"
            if value and products == "ONCE":
                assert k not in touched, f"line {k}: {touched.get(k)} and {redeemable.entry.id}"
                touched[k] = redeemable.entry.id
    final = stack_order(result)
    assert final["total_amount"] == order.amount - sum(r.step.total for r in result.applicable) >= 0
    assert [line.get("subtotal_amount", 0) for line in final["items"]] == [
        line.amount_or_zero - t for line, t in zip(order.lines, taken, strict=True)]


# -- INITIAL_AMOUNT percentages ---------------------------------------------------------------------------
@SETTINGS
@given(lines, st.lists(order_percent, min_size=1, max_size=5))
def test_initial_amount_percentages_add_up_to_each_alone_capped_at_the_amount(
    items: list[dict[str, Any]], discounts: list[dict[str, Any]]
) -> None:
    specs = [{"kind": "order", "categories": (), "discount": d, "rules": None} for d in discounts]
    result, amount = evaluate(items, specs, StackingRules(discount_calculation_mode="INITIAL_AMOUNT"))
    order = normalize_order(CATALOGUE, {"items": items}, None)
    alone = [price_normalized(CATALOGUE, build(i, s).discount, order, None, ctx()).discount_amount
             for i, s in enumerate(specs)]
    assert result.valid
    assert result.discount == min(sum(alone), amount)
    # each step is its own percentage of the amount as sent, until the total runs out
    left = amount
    for redeemable, own in zip(result.redeemables, alone, strict=True):
        assert redeemable.step.order_discount == min(own, left)
        left -= redeemable.step.order_discount


# -- one redeemable alone is the single-tier engine -------------------------------------------------------
@SETTINGS
@given(lines, st.one_of(
    st.builds(lambda d, r: {"kind": "order", "discount": d, "rules": r}, order_discounts, amount_rules),
    st.builds(lambda d, r, s: {"kind": "items", "discount": d, "rules": r, "scope": s}, item_discounts, amount_rules, scopes),
    st.builds(lambda d, r: {"kind": "unit", "discount": d, "rules": r}, unit_discounts, amount_rules),
), st.sampled_from(["DISCOUNTED_AMOUNT", "INITIAL_AMOUNT"]), st.sampled_from(["STACK", "ONCE"]))
def test_one_redeemable_alone_gets_what_the_single_tier_engine_gives(
    items: list[dict[str, Any]], spec: dict[str, Any], mode: str, products: str
) -> None:
    spec["categories"] = ()
    entry = build(0, spec)
    order = normalize_order(CATALOGUE, {"items": items}, None)
    single = price_normalized(CATALOGUE, entry.discount, order, None, ctx())
    rules = StackingRules(discount_calculation_mode=mode, redeemables_products_application_mode=products)
    result = evaluate_stack([entry], order, None, ctx(), rules, catalogue=CATALOGUE)
    (answer,) = result.redeemables
    assert result.valid == single.valid
    if not single.valid:
        assert (answer.status, answer.reason_key, answer.reason) == ("INAPPLICABLE", single.reason_key, single.reason)
        return
    assert answer.status == "APPLICABLE"
    assert answer.step.total == (single.discount_amount or 0) == result.discount
    assert redeemable_order(result, answer) == outcome_wire(single).order == stack_order(result)


def test_one_gift_card_alone_takes_its_credits_up_to_the_total() -> None:
    for credits, expected in [(0, 0), (999, 999), (2400, 2400), (5000, 2400)]:
        result, amount = evaluate([{"product_id": "prod_a", "quantity": 2}], [{"kind": "gift", "categories": (), "credits": credits}],
                                  StackingRules())
        assert (amount, result.discount, stack_order(result)["total_amount"]) == (2400, expected, 2400 - expected)


# -- FIXED item prices on a line already discounted -------------------------------------------------------
@pytest.mark.parametrize(("mode", "steps", "subtotal"), [("DISCOUNTED_AMOUNT", [300, 400], 500), ("INITIAL_AMOUNT", [300, 700], 200)])
def test_a_fixed_price_after_another_item_discount(mode: str, steps: list[int], subtotal: int) -> None:
    """$3 off a $12 line, then 'the price becomes $5': on the running line the
    line ends at $5; taken of the line as sent, $7 more (it ends at $2)."""
    three_off = {"kind": "items", "categories": (), "rules": None, "scope": included({"object": "product", "id": "prod_a"}),
                 "discount": {"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS"}}
    at_five = {**three_off, "discount": {"type": "FIXED", "fixed_amount": 500, "effect": "APPLY_TO_ITEMS"}}
    result, _ = evaluate([{"product_id": "prod_a", "quantity": 1}], [three_off, at_five],
                         StackingRules(discount_calculation_mode=mode))
    assert [r.applied for r in result.redeemables] == steps
    assert stack_order(result)["items"][0]["subtotal_amount"] == subtotal
