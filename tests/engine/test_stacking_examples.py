"""The service's worked examples of stacked validation, reproduced to the cent.

The numbers are the service's (its guides and the official response example
in tests/data/stacked_validation_examples.json); docs/stacking.md walks
through them. Each test builds the redeemables as the engine sees them and
checks every running order and the final one.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pricing_builders import campaign, ctx, included, tier

from promolab.engine import (
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    StackCategory,
    StackEntry,
    compile_tier,
    evaluate_stack,
    normalize_order,
    redeemable_order,
    stack_order,
)
from promolab.models import StackingRules

EXAMPLES = json.loads((Path(__file__).parents[1] / "data" / "stacked_validation_examples.json").read_text())
EMPTY = Catalogue()


def coupon(position: int, discount: dict[str, Any], *, id: str | None = None, rules: dict[str, Any] | None = None,
           applicable_to: dict[str, Any] | None = None, categories: tuple[StackCategory, ...] = (),
           object: str = "voucher") -> StackEntry:
    code = id or f"CODE{position}"
    spec = tier(discount, id=code, rules=rules, applicable_to=applicable_to)
    return StackEntry(position, object, code, discount=compile_tier(spec), categories=categories)


def gift(position: int, credits: int, id: str = "GIFT") -> StackEntry:
    return StackEntry(position, "voucher", id, gift_credits=credits)


def run(entries: list[StackEntry], order: dict[str, Any], catalogue: Catalogue = EMPTY, **rules: Any):
    normalized = normalize_order(catalogue, order, None)
    return evaluate_stack(entries, normalized, None, ctx(), StackingRules(**rules))


def amounts(order: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in order.items() if isinstance(v, int)}


def test_example_a_percentages_on_the_discounted_amount() -> None:
    """Gift 100, then 20 % off the order, then 8000 off: 100 / 39980 / 8000."""
    result = run(
        [gift(0, 100), coupon(1, {"type": "PERCENT", "percent_off": 20}), coupon(2, {"type": "AMOUNT", "amount_off": 8000}, object="promotion_tier")],
        {"amount": 200000},
    )
    assert result.valid
    assert [r.step.order_discount for r in result.redeemables] == [100, 39980, 8000]
    assert [redeemable_order(result, r)["discount_amount"] for r in result.redeemables] == [100, 40080, 48080]
    assert [redeemable_order(result, r)["total_amount"] for r in result.redeemables] == [199900, 159920, 151920]
    assert amounts(stack_order(result)) == {
        "amount": 200000, "discount_amount": 48080, "total_discount_amount": 48080, "total_amount": 151920,
        "applied_discount_amount": 48080, "total_applied_discount_amount": 48080,
    }


def _example_b_catalogue() -> Catalogue:
    return Catalogue(
        products=[
            CatalogueProduct("prod_s3C0nDpr0DuC7", "test_prod_id_2", "Watchflix", None),
            CatalogueProduct("prod_0bc3bd8a4e072c5275", None, "Bouquet - Romantic Roses", 700),
        ],
        skus=[CatalogueSku("sku_0a3efc90375d1217e2", "test_standard_ultra_hd", "Premium", "prod_s3C0nDpr0DuC7", 2000)],
        collections=[CatalogueCollection("pc_a11pr0dUc75", "All products",
                                         frozenset({"prod_s3C0nDpr0DuC7", "prod_0bc3bd8a4e072c5275"}))],
    )


def test_example_b_item_and_order_level_mixed_match_the_official_response() -> None:
    """The official '5 Redeemables' response, less its pay-with-points loyalty
    card (which changes nothing there): every running order, byte for byte."""
    request = EXAMPLES["requests"]["5 Redeemables"]
    expected = EXAMPLES["responses"]["True - 5 Redeemables"]
    entries = [
        coupon(0, {"type": "AMOUNT", "effect": "APPLY_TO_ITEMS", "amount_off": 1000}, id="GNcuPKGe",
               applicable_to=included({"object": "products_collection", "id": "pc_a11pr0dUc75"})),
        gift(1, 100, "M3X8IwW8"),
        coupon(2, {"type": "PERCENT", "effect": "APPLY_TO_ORDER", "percent_off": 40},
               id="promo_DE1N30D731Tg2F6NoMwNas2W", object="promotion_tier"),
        coupon(3, {"type": "AMOUNT", "effect": "APPLY_TO_ORDER", "amount_off": 30},
               id="promo_NDHgTg4VnOLYNjk9r7WOmQxf", object="promotion_tier"),
    ]
    result = run(entries, request["order"], _example_b_catalogue())
    official = [r for r in expected["redeemables"] if r["id"] != "AnsvocvP"]
    assert [redeemable_order(result, r) for r in result.redeemables] == [r["order"] for r in official]
    assert amounts(stack_order(result)) == amounts(expected["order"])


def test_example_c_item_level_then_order_level() -> None:
    catalogue = Catalogue(
        products=[CatalogueProduct("prod_mug", "adv-mug", "Mug", 1000), CatalogueProduct("prod_tshirt", "adv-tshirt", "T-shirt", 2000),
                  CatalogueProduct("prod_bottle", "star-th-bottle", "Bottle", 2500)],
        collections=[CatalogueCollection("pc_adventure", "Adventure", frozenset({"prod_mug", "prod_tshirt"}))],
    )
    order = {"items": [{"product_id": "prod_mug", "quantity": 3}, {"product_id": "prod_tshirt", "quantity": 3},
                       {"product_id": "prod_bottle", "quantity": 2}]}
    result = run(
        [coupon(0, {"type": "AMOUNT", "effect": "APPLY_TO_ITEMS", "amount_off": 2000, "aggregated_amount_limit": 5000},
                applicable_to=included({"object": "products_collection", "id": "pc_adventure"})),
         coupon(1, {"type": "AMOUNT", "amount_off": 2500})],
        order, catalogue,
    )
    first, second = (amounts(redeemable_order(result, r)) for r in result.redeemables)
    assert first == {"amount": 14000, "items_discount_amount": 4000, "total_discount_amount": 4000, "total_amount": 10000,
                     "items_applied_discount_amount": 4000, "total_applied_discount_amount": 4000}
    assert second == {"amount": 14000, "discount_amount": 2500, "items_discount_amount": 4000, "total_discount_amount": 6500,
                      "total_amount": 7500, "applied_discount_amount": 2500, "total_applied_discount_amount": 2500}
    final = stack_order(result)
    assert amounts(final) == {"amount": 14000, "discount_amount": 2500, "items_discount_amount": 4000,
                              "total_discount_amount": 6500, "total_amount": 7500, "applied_discount_amount": 2500,
                              "items_applied_discount_amount": 4000, "total_applied_discount_amount": 6500}
    assert [(i.get("discount_amount"), i["subtotal_amount"]) for i in final["items"]] == [(2000, 1000), (2000, 4000), (None, 5000)]


@pytest.mark.parametrize(("first", "applied", "total"), [(0, [1050, None], 9450), (1, [1680, 8400 - 7560], 7560)])
def test_example_e_application_order_changes_eligibility(first: int, applied: list[int | None], total: int) -> None:
    """10 % off everything and 20 % off orders above $100, on a $105 cart:
    10 % first leaves $94.50 and the 20 % no longer qualifies; 20 % first
    gives $84, then 10 % gives $75.60. (PARTIAL: the service's example keeps
    what applies.)"""
    ten = coupon(0, {"type": "PERCENT", "percent_off": 10})
    twenty = coupon(1, {"type": "PERCENT", "percent_off": 20},
                    rules={"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [10000]}}}})
    entries = [ten, twenty] if first == 0 else [StackEntry(0, "voucher", "CODE1", discount=twenty.discount),
                                                 StackEntry(1, "voucher", "CODE0", discount=ten.discount)]
    result = run(entries, {"amount": 10500}, redeemables_application_mode="PARTIAL")
    if first == 0:
        assert [r.status for r in result.redeemables] == ["APPLICABLE", "INAPPLICABLE"]
        assert result.redeemables[1].reason_key == "order_rules_violated"
        assert "9450" in result.redeemables[1].why
    else:
        assert [r.applied for r in result.redeemables] == [2100, 840]
    assert stack_order(result)["total_amount"] == total


@pytest.mark.parametrize(("mode", "discount"), [("INITIAL_AMOUNT", 3000), ("DISCOUNTED_AMOUNT", 2800)])
def test_example_f_discount_calculation_mode(mode: str, discount: int) -> None:
    result = run([coupon(0, {"type": "PERCENT", "percent_off": 10}), coupon(1, {"type": "PERCENT", "percent_off": 20})],
                 {"amount": 10000}, discount_calculation_mode=mode)
    assert result.discount == discount


@pytest.mark.parametrize(("coupon_first", "coupon_status"), [(True, "APPLICABLE"), (False, "INAPPLICABLE")])
def test_example_g_amount_rules_read_the_running_cart(coupon_first: bool, coupon_status: str) -> None:
    """Rules 'amount before discounts > 10.00' and 'initial amount < 11.00' on a
    10.50 cart: passes before a 1.00 gift card, fails after it."""
    rules = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [1000]}},
                       "2": {"name": "order.initial_amount", "conditions": {"$less_than": [1100]}}, "logic": "1 and 2"}}
    code = coupon(0 if coupon_first else 1, {"type": "AMOUNT", "amount_off": 100}, rules=rules)
    card = gift(1 if coupon_first else 0, 100)
    entries = sorted([code, card], key=lambda e: e.position)
    result = run(entries, {"amount": 1050}, redeemables_application_mode="PARTIAL")
    assert next(r for r in result.redeemables if r.entry is code).status == coupon_status


@pytest.mark.parametrize(("mode", "valid", "statuses", "total"), [
    ("ALL", False, ["APPLICABLE", "INAPPLICABLE", "SKIPPED"], 10000),
    ("PARTIAL", True, ["APPLICABLE", "INAPPLICABLE", "APPLICABLE"], 8550),
])
def test_example_h_all_or_partial(mode: str, valid: bool, statuses: list[str], total: int) -> None:
    """A valid incentive, an expired one, a valid one: ALL fails as a whole
    (the last is skipped, nothing applies), PARTIAL applies the valid ones."""
    expired = compile_tier(tier({"type": "PERCENT", "percent_off": 50}, id="promo_old",
                                campaign=campaign(expiration_date=datetime(2020, 1, 1, tzinfo=UTC))))
    entries = [coupon(0, {"type": "AMOUNT", "amount_off": 1000}),
               StackEntry(1, "promotion_tier", "promo_old", discount=expired),
               coupon(2, {"type": "PERCENT", "percent_off": 5}, categories=())]
    result = run(entries, {"amount": 10000}, redeemables_application_mode=mode)
    assert (result.valid, [r.status for r in result.redeemables]) == (valid, statuses)
    assert result.redeemables[1].reason_key == "promotion_not_active_now"
    if mode == "ALL":
        assert result.redeemables[2].reason_key == "preceding_validation_failed"
    assert stack_order(result)["total_amount"] == total
