"""UNIT (free item) discounts in a stack, to the cent.

Alone in a stack, a UNIT discount gives exactly the service's example orders
(the single-tier engine's, tests/engine/test_pricing_examples.py); stacked,
the running order carries its units: the added units raise the amount and
the UNIT discount takes them off, so a later percentage sees the same total
over more lines (decisions: docs/decisions.md § Stacked validations and
redemptions).
"""

from __future__ import annotations

from typing import Any

import pytest
from pricing_builders import (
    ctx,
    example_catalogue,
    included,
    load_examples,
    tier,
    tier_from_example,
)

from promolab.engine import (
    Catalogue,
    CatalogueProduct,
    StackEntry,
    StackResult,
    compile_tier,
    evaluate_stack,
    normalize_order,
    redeemable_order,
    stack_order,
)
from promolab.models import StackingRules
from wire_asserts import assert_same_json

EXAMPLES = load_examples()
UNIT_PROMOS = [
    (name, promo["id"])
    for name in ("Customer Rules Only", "Promotion Tier Metadata")
    for promo in EXAMPLES[name]["response"]["promotions"]
    if promo["discount"]["type"] == "UNIT"
]
RED_BLUE = Catalogue([CatalogueProduct("prod_red", None, "Red", 2900), CatalogueProduct("prod_blue", None, "Blue", 3100)])
RED_BLUE_ORDER = {"items": [{"product_id": "prod_red", "quantity": 1}, {"product_id": "prod_blue", "quantity": 1}]}
RED_AND_BLUE_FREE = {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": [
    {"effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_red"},
    {"effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_blue"},
]}


def entry(position: int, discount: dict[str, Any], **kw: Any) -> StackEntry:
    code = f"CODE{position}"
    return StackEntry(position, "voucher", code, discount=compile_tier(tier(discount, id=code, **kw)))


def run(entries: list[StackEntry], order: dict[str, Any], catalogue: Catalogue, **rules: Any) -> StackResult:
    normalized = normalize_order(catalogue, order, None)
    return evaluate_stack(entries, normalized, None, ctx(), StackingRules(**rules), catalogue=catalogue)


def amounts(order: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in order.items() if isinstance(v, int)}


@pytest.mark.parametrize(("example", "promo_id"), UNIT_PROMOS, ids=[f"{n}:{p}" for n, p in UNIT_PROMOS])
def test_each_unit_example_alone_in_a_stack_is_the_services_order(example: str, promo_id: str) -> None:
    """ADD_MISSING (the vase topped up 1 -> 5), ADD_NEW (an SKU line, a new
    last line), ADD_MANY, free shipping without a price: the running order
    and the final order are the example's, field by field."""
    promo = next(p for p in EXAMPLES[example]["response"]["promotions"] if p["id"] == promo_id)
    catalogue = example_catalogue()
    order = normalize_order(catalogue, EXAMPLES[example]["request"]["order"], None)
    alone = StackEntry(0, "promotion_tier", promo_id, discount=compile_tier(tier_from_example(promo)))
    result = evaluate_stack([alone], order, None, ctx(), StackingRules(), catalogue=catalogue)
    (answer,) = result.redeemables
    assert answer.status == "APPLICABLE"
    expected = {**promo["order"], "customer_id": None, "referrer_id": None}
    assert_same_json(redeemable_order(result, answer), expected)
    assert_same_json(stack_order(result), expected)
    assert result.discount == promo["order"]["amount"] - promo["order"]["total_amount"]


def test_a_percentage_after_free_units_sees_the_total_the_units_left() -> None:
    """Red (ADD_MISSING 1) and Blue (ADD_NEW 1) free on a 6000 cart: amount
    9100, 6000 off, total 3100 (the service's ADD_MANY example); then 10 %
    of the order takes 310 of the 3100 left, and the final order shows the
    units with the running totals."""
    result = run([entry(0, RED_AND_BLUE_FREE), entry(1, {"type": "PERCENT", "percent_off": 10})], RED_BLUE_ORDER, RED_BLUE)
    units, ten = result.redeemables
    assert amounts(redeemable_order(result, units)) == {
        "amount": 9100, "initial_amount": 6000, "items_discount_amount": 6000, "total_discount_amount": 6000,
        "total_amount": 3100, "items_applied_discount_amount": 6000, "total_applied_discount_amount": 6000}
    after = redeemable_order(result, ten)
    assert amounts(after) == {
        "amount": 9100, "initial_amount": 6000, "discount_amount": 310, "items_discount_amount": 6000,
        "total_discount_amount": 6310, "total_amount": 2790, "applied_discount_amount": 310,
        "total_applied_discount_amount": 310}
    red, blue = after["items"]
    # the unit fields stay; the percentage did not touch the lines, so no applied amount on them
    assert (red["quantity"], red["discount_quantity"], red["initial_quantity"], red["discount_amount"]) == (1, 1, 1, 2900)
    assert (blue["quantity"], blue["initial_quantity"], blue["amount"], blue["initial_amount"], blue["subtotal_amount"]) == (
        2, 1, 6200, 3100, 3100)
    assert "applied_discount_amount" not in red and "applied_discount_amount" not in blue
    final = stack_order(result)
    assert amounts(final) == {**amounts(after), "items_applied_discount_amount": 6000, "total_applied_discount_amount": 6310}
    assert [i["applied_discount_amount"] for i in final["items"]] == [2900, 3100]
    assert result.discount == 6310


@pytest.mark.parametrize(("mode", "percent"), [("DISCOUNTED_AMOUNT", 310), ("INITIAL_AMOUNT", 600)])
def test_an_initial_amount_percentage_is_taken_of_the_amount_as_sent(mode: str, percent: int) -> None:
    result = run([entry(0, RED_AND_BLUE_FREE), entry(1, {"type": "PERCENT", "percent_off": 10})], RED_BLUE_ORDER,
                 RED_BLUE, discount_calculation_mode=mode)
    assert [r.applied for r in result.redeemables] == [6000, percent]
    assert stack_order(result)["total_amount"] == 3100 - percent


def test_the_qualification_example_charger_then_fifteen_percent() -> None:
    """The qualification guide's cart of 50000 (10000 + 40000): the UNIT
    ADD_MISSING charger at 3500 gives amount 53500, initial_amount 50000,
    3500 off, total 50000; its 15 % tier alone gives 7500. Stacked, the 15 %
    still takes 7500: the free charger does not move the total."""
    catalogue = Catalogue([CatalogueProduct("prod_drill", None, "Drill", 10000), CatalogueProduct("prod_saw", None, "Saw", 40000),
                           CatalogueProduct("prod_charger", None, "Charger", 3500)])
    order = {"items": [{"product_id": "prod_drill", "quantity": 1}, {"product_id": "prod_saw", "quantity": 1}]}
    charger = entry(0, {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_charger"})
    result = run([charger, entry(1, {"type": "PERCENT", "percent_off": 15})], order, catalogue)
    assert amounts(redeemable_order(result, result.redeemables[0])) == {
        "amount": 53500, "initial_amount": 50000, "items_discount_amount": 3500, "total_discount_amount": 3500,
        "total_amount": 50000, "items_applied_discount_amount": 3500, "total_applied_discount_amount": 3500}
    assert result.redeemables[1].applied == 7500
    assert stack_order(result)["total_amount"] == 42500
    charger_line = stack_order(result)["items"][2]
    assert (charger_line["quantity"], charger_line["initial_quantity"], charger_line["initial_amount"]) == (1, 0, 0)


def test_an_item_discount_after_a_unit_reaches_the_added_line_and_stops_at_its_subtotal() -> None:
    """ADD_NEW 1 Blue (the line: 2 units, 6200, 3100 off), then 50 % off Blue
    items: half of the 3100 left, 1550; a second ADD_NEW tops the same line
    up (3 units), and its free unit is taken off in full."""
    on_blue = included({"object": "product", "id": "prod_blue"})
    blue_free = {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_blue"}
    result = run([entry(0, blue_free), entry(1, {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"},
                                              applicable_to=on_blue), entry(2, blue_free)],
                 {"items": [{"product_id": "prod_blue", "quantity": 1}]}, RED_BLUE)
    assert [r.applied for r in result.redeemables] == [3100, 1550, 3100]
    (line,) = stack_order(result)["items"]
    assert (line["quantity"], line["discount_quantity"], line["initial_quantity"], line["amount"], line["discount_amount"],
            line["subtotal_amount"]) == (3, 2, 1, 9300, 7750, 1550)
    assert stack_order(result)["total_amount"] == 1550


def test_a_unit_added_line_is_topped_up_not_duplicated() -> None:
    """Two ADD_MISSING 2 of a product not in the cart: the first adds a line
    of 2 (free), the second finds it and changes nothing."""
    two_red = {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 2, "unit_type": "prod_red"}
    result = run([entry(0, two_red), entry(1, two_red)], {"items": [{"product_id": "prod_blue", "quantity": 1}]}, RED_BLUE)
    assert [r.applied for r in result.redeemables] == [5800, 0]
    final = stack_order(result)
    assert [i["quantity"] for i in final["items"]] == [1, 2]
    assert (final["amount"], final["total_amount"]) == (8900, 3100)
    skipped = run([entry(0, two_red), entry(1, two_red)], {"items": [{"product_id": "prod_blue", "quantity": 1}]}, RED_BLUE,
                  redeemables_no_effect_rule="SKIP")
    assert [(r.status, r.reason_key) for r in skipped.redeemables] == [("APPLICABLE", None), ("SKIPPED", "no_effect")]


@pytest.mark.parametrize(("products", "applied", "quantity"), [("STACK", [290, 2900 - 290], 1), ("ONCE", [290, 0], 1)])
def test_under_once_a_unit_leaves_a_line_already_discounted(products: str, applied: list[int], quantity: int) -> None:
    """10 % off Red, then Red ADD_MISSING 1: under STACK the rest of the
    line becomes free; under ONCE the line is out of reach (nothing added,
    nothing off) and, as nothing changed, SKIP would skip it."""
    on_red = included({"object": "product", "id": "prod_red"})
    red_free = {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_red"}
    entries = [entry(0, {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"}, applicable_to=on_red),
               entry(1, red_free)]
    result = run(entries, {"items": [{"product_id": "prod_red", "quantity": 1}]}, RED_BLUE,
                 redeemables_products_application_mode=products)
    assert [r.applied for r in result.redeemables] == applied
    assert stack_order(result)["items"][0]["quantity"] == quantity
    assert ("initial_amount" in stack_order(result)) is False  # nothing added: the order is as sent


def test_a_unit_discounts_the_line_it_touches_once_under_once_and_later_item_discounts_skip_it() -> None:
    on_red = included({"object": "product", "id": "prod_red"})
    red_free = {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_red"}
    entries = [entry(0, red_free), entry(1, {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"}, applicable_to=on_red)]
    result = run(entries, {"items": [{"product_id": "prod_red", "quantity": 1}]}, RED_BLUE,
                 redeemables_products_application_mode="ONCE", redeemables_no_effect_rule="SKIP")
    assert [(r.status, r.applied) for r in result.redeemables] == [("APPLICABLE", 2900), ("SKIPPED", 0)]


def test_free_shipping_without_a_price_has_an_effect() -> None:
    """A price-less free item takes nothing off but adds its line: it is
    applied even when the no-effect rule says SKIP (it gives what it
    promised), and the totals do not move."""
    shipping = {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_5h1pp1ng"}
    result = run([entry(0, shipping), entry(1, {"type": "AMOUNT", "amount_off": 500})],
                 {"items": [{"product_id": "prod_red", "quantity": 1}]}, RED_BLUE, redeemables_no_effect_rule="SKIP")
    assert [r.status for r in result.redeemables] == ["APPLICABLE", "APPLICABLE"]
    final = stack_order(result)
    assert (final["amount"], final["total_amount"], "initial_amount" in final) == (2900, 2400, False)
    assert final["items"][1] == {"object": "order_item", "product_id": "prod_5h1pp1ng", "quantity": 1, "discount_quantity": 1,
                                 "initial_quantity": 0, "product": {"id": "prod_5h1pp1ng", "source_id": "5h1pp1ng", "name": "Shipping"}}


def test_rules_of_a_later_redeemable_read_the_lines_the_units_left() -> None:
    """A tier asking for 2 Red (`order.items.any` with a quantity) after a
    UNIT that tops Red up to 2 qualifies; before it, it does not."""
    needs_two = {"rules": {"1": {"name": "order.items.quantity", "conditions": {"$more_than_or_equal": [2]}}}, "logic": "1"}
    two_red = {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 2, "unit_type": "prod_red"}
    order = {"items": [{"product_id": "prod_red", "quantity": 1}]}
    after = run([entry(0, two_red), entry(1, {"type": "AMOUNT", "amount_off": 100}, rules=needs_two)], order, RED_BLUE)
    assert [r.status for r in after.redeemables] == ["APPLICABLE", "APPLICABLE"]
    before = run([entry(0, {"type": "AMOUNT", "amount_off": 100}, rules=needs_two), entry(1, two_red)], order, RED_BLUE,
                 redeemables_application_mode="PARTIAL")
    assert [r.status for r in before.redeemables] == ["INAPPLICABLE", "APPLICABLE"]


def test_a_unit_in_a_stack_without_the_catalogue_is_a_clear_error() -> None:
    normalized = normalize_order(RED_BLUE, RED_BLUE_ORDER, None)
    with pytest.raises(ValueError, match="CODE0: a UNIT discount in a stack needs the catalogue"):
        evaluate_stack([entry(0, RED_AND_BLUE_FREE)], normalized, None, ctx(), StackingRules())
