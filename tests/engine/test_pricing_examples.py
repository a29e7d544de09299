"""Every worked example of the real service's pricing docs and the OpenAPI validation examples, exactly."""

from __future__ import annotations

from typing import Any

import pytest
from pricing_builders import (
    ADVENTURE_ORDER,
    ADVENTURE_SCOPE,
    adventure_catalogue,
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
    compile_tier,
    normalize_order,
    outcome_wire,
    price_normalized,
    price_tier,
    promotion_tier_wire,
)
from wire_asserts import assert_same_json

EXAMPLES = load_examples()


def _line_discounts(order: dict[str, Any]) -> list[int]:
    return [item.get("discount_amount", 0) for item in order["items"]]


# --- the $175 cart of the service's docs, row by row -------------------------------------------
ADVENTURE_ROWS = {
    # name: (discount, per-line discounts Mug/Poster/T-shirt/Bottle, total discount, total)
    "amount_apply_to_items_each_line_full_value": (
        {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS"},
        [1000, 1000, 1000, 0],
        3000,
        14500,
    ),
    "amount_apply_to_items_by_quantity_each_unit": (
        {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"},
        [2000, 3000, 3000, 0],
        8000,
        9500,
    ),
    "amount_proportionally_by_line_amount_160_360_480": (
        {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"},
        [160, 360, 480, 0],
        1000,
        16500,
    ),
    "amount_proportionally_by_quantity_250_375_375": (
        {
            "type": "AMOUNT",
            "amount_off": 1000,
            "effect": "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY",
        },
        [250, 375, 375, 0],
        1000,
        16500,
    ),
    "percent_apply_to_items_10_per_line": (
        {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"},
        [200, 450, 600, 0],
        1250,
        16250,
    ),
    "fixed_apply_to_items_new_unit_price_10": (
        {"type": "FIXED", "fixed_amount": 1000, "effect": "APPLY_TO_ITEMS"},
        [0, 1500, 3000, 0],
        4500,
        13000,
    ),
}


@pytest.mark.parametrize("row", list(ADVENTURE_ROWS), ids=list(ADVENTURE_ROWS))
def test_adventure_cart_row(row: str) -> None:
    discount, lines, total_discount, total = ADVENTURE_ROWS[row]
    outcome = price_tier(
        adventure_catalogue(),
        tier(discount, applicable_to=ADVENTURE_SCOPE),
        ADVENTURE_ORDER,
        None,
        ctx(),
    )
    assert outcome.valid
    order = outcome_wire(outcome).order
    assert order is not None
    assert order["amount"] == 17500
    assert _line_discounts(order) == lines
    assert order["items_discount_amount"] == total_discount
    assert order["total_discount_amount"] == total_discount
    assert order["total_amount"] == total
    assert "discount_amount" not in order  # item-level only
    assert outcome.discount_amount == outcome.applied_discount_amount == total_discount
    bottle = order["items"][3]
    assert "discount_amount" not in bottle and bottle["subtotal_amount"] == 5000


# --- per-type examples of the service's docs ----------------------------------------------------------
def test_amount_apply_to_order_72100_minus_100() -> None:
    outcome = price_tier(
        Catalogue(),
        tier({"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"}),
        {"items": [{"product_id": "p", "price": 72100}]},
        None,
        ctx(),
    )
    order = outcome_wire(outcome).order
    assert order is not None
    assert (order["discount_amount"], order["total_amount"]) == (100, 72000)
    assert "items_discount_amount" not in order
    assert order["items"][0]["subtotal_amount"] == 72100


def test_amount_apply_to_items_caps_at_line_amount_1000_off_700() -> None:
    """Semantics §1.4: SKU line 2000 and Bouquet 700, 1000 off each line -> 1000 + 700."""
    order_in = {
        "items": [
            {"sku_id": "sku_x", "price": 2000, "quantity": 1},
            {"product_id": "prod_bouquet", "price": 700, "quantity": 1},
        ]
    }
    outcome = price_tier(
        Catalogue(),
        tier({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS"}),
        order_in,
        None,
        ctx(),
    )
    order = outcome_wire(outcome).order
    assert order is not None
    assert _line_discounts(order) == [1000, 700]
    assert order["items_discount_amount"] == 1700
    assert order["total_amount"] == 1000
    assert order["items"][1]["subtotal_amount"] == 0


def test_percent_apply_to_order_10_of_46500() -> None:
    outcome = price_tier(
        Catalogue(),
        tier({"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"}),
        {"items": [{"product_id": "p", "price": 46500}]},
        None,
        ctx(),
    )
    assert outcome_wire(outcome).order is not None and outcome_wire(outcome).order["discount_amount"] == 4650


def test_percent_apply_to_order_uses_amount_as_sent_20050() -> None:
    """discount-effects guide: items sum to 6000, amount sent 20050, 10% is taken from 20050."""
    outcome = price_tier(
        Catalogue(),
        tier({"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"}),
        {"amount": 20050, "items": [{"product_id": "p", "price": 6000}]},
        None,
        ctx(),
    )
    order = outcome_wire(outcome).order
    assert order is not None
    assert order["amount"] == 20050
    assert order["discount_amount"] == 2005
    assert order["total_amount"] == 18045


def test_percent_apply_to_order_amount_limit() -> None:
    outcome = price_tier(
        Catalogue(),
        tier(
            {"type": "PERCENT", "percent_off": 30, "amount_limit": 5000, "effect": "APPLY_TO_ORDER"}
        ),
        {"items": [{"product_id": "p", "price": 20000}]},
        None,
        ctx(),
    )
    assert outcome_wire(outcome).order is not None and outcome_wire(outcome).order["discount_amount"] == 5000


def test_percent_apply_to_items_10_percent_of_lines_1200_and_2200() -> None:
    outcome = price_tier(
        Catalogue(),
        tier({"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"}),
        {"items": [{"product_id": "a", "price": 12000}, {"product_id": "b", "price": 22000}]},
        None,
        ctx(),
    )
    assert outcome_wire(outcome).order is not None and _line_discounts(outcome_wire(outcome).order) == [1200, 2200]


def test_percent_apply_to_items_amount_limit_per_line_and_aggregated() -> None:
    discount = {
        "type": "PERCENT",
        "percent_off": 50,
        "effect": "APPLY_TO_ITEMS",
        "amount_limit": 4000,
        "aggregated_amount_limit": 6000,
    }
    outcome = price_tier(
        Catalogue(),
        tier(discount),
        {
            "items": [
                {"product_id": "a", "price": 10000},
                {"product_id": "b", "price": 10000},
                {"product_id": "c", "price": 1000},
            ]
        },
        None,
        ctx(),
    )
    # 5000 -> 4000 (per line), 5000 -> 4000 -> 2000 (budget left), 500 -> 0 (budget spent)
    assert outcome_wire(outcome).order is not None and _line_discounts(outcome_wire(outcome).order) == [4000, 2000, 0]


def test_fixed_apply_to_order_new_total() -> None:
    outcome = price_tier(
        Catalogue(),
        tier({"type": "FIXED", "fixed_amount": 5000, "effect": "APPLY_TO_ORDER"}),
        {"items": [{"product_id": "p", "price": 7250}]},
        None,
        ctx(),
    )
    order = outcome_wire(outcome).order
    assert order is not None and order["discount_amount"] == 2250 and order["total_amount"] == 5000


def test_fixed_apply_to_order_above_amount_is_zero() -> None:
    outcome = price_tier(
        Catalogue(),
        tier({"type": "FIXED", "fixed_amount": 9000, "effect": "APPLY_TO_ORDER"}),
        {"items": [{"product_id": "p", "price": 7250}]},
        None,
        ctx(),
    )
    order = outcome_wire(outcome).order
    assert order is not None
    assert "discount_amount" not in order and order["total_amount"] == 7250
    assert outcome.discount_amount == 0


def test_quantity_limit_3_of_5_units() -> None:
    """discount-effects: 'max units per order item = 3' with 5 units: 3 are discounted."""
    scope = included({"object": "product", "id": "prod_b", "quantity_limit": 3})
    outcome = price_tier(
        Catalogue([CatalogueProduct("prod_b", price=1000)]),
        tier(
            {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"},
            applicable_to=scope,
        ),
        {"items": [{"product_id": "prod_b", "quantity": 5}]},
        None,
        ctx(),
    )
    assert outcome_wire(outcome).order is not None and _line_discounts(outcome_wire(outcome).order) == [300]


def test_aggregated_quantity_limit_5_over_lines_of_2_and_4() -> None:
    """'Max units combined = 5' with lines of 2 and 4 units: 5 units are discounted."""
    scope = included({"object": "product", "id": "prod_b", "aggregated_quantity_limit": 5})
    outcome = price_tier(
        Catalogue([CatalogueProduct("prod_b", price=1000)]),
        tier(
            {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"}, applicable_to=scope
        ),
        {
            "items": [
                {"product_id": "prod_b", "quantity": 2},
                {"product_id": "prod_b", "quantity": 4},
            ]
        },
        None,
        ctx(),
    )
    # 10% of 2 units (200) + 10% of 3 units (300): 5 units
    assert outcome_wire(outcome).order is not None and _line_discounts(outcome_wire(outcome).order) == [200, 300]


def test_unit_add_many_red_blue_guide_example() -> None:
    """give-item-for-free guide: Red ADD_MISSING 1 + Blue ADD_NEW 1 on Red 1x2900, Blue 1x3100."""
    cat = Catalogue(
        [CatalogueProduct("prod_red", None, "Red", 2900), CatalogueProduct("prod_blue", None, "Blue", 3100)]
    )
    discount = {
        "type": "UNIT",
        "effect": "ADD_MANY_ITEMS",
        "units": [
            {"effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_red"},
            {"effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_blue"},
        ],
    }
    outcome = price_tier(
        cat,
        tier(discount),
        {
            "items": [
                {"product_id": "prod_red", "quantity": 1},
                {"product_id": "prod_blue", "quantity": 1},
            ]
        },
        None,
        ctx(),
    )
    order = outcome_wire(outcome).order
    assert order is not None
    red, blue = order["items"]
    assert (
        red["quantity"],
        red["discount_quantity"],
        red["discount_amount"],
        red["subtotal_amount"],
    ) == (1, 1, 2900, 0)
    assert (
        blue["quantity"],
        blue["initial_quantity"],
        blue["discount_quantity"],
        blue["amount"],
        blue["discount_amount"],
        blue["subtotal_amount"],
    ) == (2, 1, 1, 6200, 3100, 3100)
    assert (
        order["amount"],
        order["items_discount_amount"],
        order["total_discount_amount"],
        order["total_amount"],
    ) == (9100, 6000, 6000, 3100)
    assert order["initial_amount"] == 6000


def test_unit_add_missing_vase_1_to_5() -> None:
    """Semantics §2.2: vase at 1500, k=1, N=5 -> 72100 becomes 78100, total 70600."""
    expected = _example_promo("Customer Rules Only", "promo_R50x0A66V6jmPhM7YYOcFZfL")
    outcome = _run_example("Customer Rules Only", expected)
    assert outcome_wire(outcome).order is not None
    vase = outcome_wire(outcome).order["items"][4]
    assert_same_json(
        vase,
        {
            "object": "order_item",
            "product_id": "prod_0b72b0bd64d198e3ae",
            "quantity": 5,
            "discount_quantity": 5,
            "initial_quantity": 1,
            "amount": 7500,
            "discount_amount": 7500,
            "initial_amount": 1500,
            "applied_discount_amount": 7500,
            "price": 1500,
            "subtotal_amount": 0,
            "product": {
                "id": "prod_0b72b0bd64d198e3ae",
                "source_id": "vase_1",
                "name": "Vase - Boho Vintage",
                "price": 1500,
            },
        },
    )
    o = outcome_wire(outcome).order
    assert (o["initial_amount"], o["amount"], o["total_discount_amount"], o["total_amount"]) == (
        72100,
        78100,
        7500,
        70600,
    )


def test_unit_add_new_sku_existing_line_22_of_1700() -> None:
    """ADD_NEW on an SKU line k=1 at 1700, N=22: quantity 23, 39100, 37400 off, subtotal 1700."""
    cat = example_catalogue()
    discount = {
        "type": "UNIT",
        "effect": "ADD_NEW_ITEMS",
        "unit_off": 22,
        "unit_type": "sku_0b7d7dfb090be5c619",
    }
    outcome = price_tier(
        cat,
        tier(discount),
        {"items": [{"sku_id": "sku_0b7d7dfb090be5c619", "quantity": 1}]},
        None,
        ctx(),
    )
    assert outcome_wire(outcome).order is not None
    line = outcome_wire(outcome).order["items"][0]
    assert (
        line["quantity"],
        line["discount_quantity"],
        line["amount"],
        line["discount_amount"],
        line["subtotal_amount"],
    ) == (23, 22, 39100, 37400, 1700)
    assert outcome_wire(outcome).discount["sku"] == {
        "id": "sku_0b7d7dfb090be5c619",
        "source_id": "ComicBook_1",
        "sku": "Comics1",
    }


def test_unit_add_new_absent_product_appended_last() -> None:
    """ADD_NEW 8 roses at 500, not in the cart: new last line, 72100 -> 76100, total 72100."""
    expected = _example_promo("Customer Rules Only", "promo_nGr1SWuy9vduABkbbJkl8cHb")
    outcome = _run_example("Customer Rules Only", expected)
    o = outcome_wire(outcome).order
    assert o is not None
    last = o["items"][-1]
    assert (
        last["quantity"],
        last["initial_quantity"],
        last["amount"],
        last["discount_amount"],
        last["initial_amount"],
    ) == (8, 0, 4000, 4000, 0)
    assert (o["amount"], o["total_discount_amount"], o["total_amount"]) == (76100, 4000, 72100)


def test_unit_free_shipping_without_price() -> None:
    """Free shipping: the line has quantity 1 / discount_quantity 1 / initial_quantity 0, no amounts."""
    expected = _example_promo("Promotion Tier Metadata", "promo_jp2l6wRcTL4cARG5E8XRo42A")
    outcome = _run_example("Promotion Tier Metadata", expected)
    o = outcome_wire(outcome).order
    assert o is not None
    assert_same_json(
        o["items"][-1],
        {
            "object": "order_item",
            "product_id": "prod_5h1pp1ng",
            "quantity": 1,
            "discount_quantity": 1,
            "initial_quantity": 0,
            "product": {"id": "prod_5h1pp1ng", "source_id": "5h1pp1ng", "name": "Shipping"},
        },
    )
    assert list(o)[:2] == ["amount", "total_amount"] and o["total_amount"] == 72100
    assert outcome.discount_amount is None and outcome.applied_discount_amount is None


def test_unit_free_shipping_with_price_is_discounted() -> None:
    cat = Catalogue([CatalogueProduct("prod_5h1pp1ng", "5h1pp1ng", "Shipping", 2000)])
    outcome = price_tier(
        cat,
        tier(
            {
                "type": "UNIT",
                "effect": "ADD_MISSING_ITEMS",
                "unit_off": 1,
                "unit_type": "prod_5h1pp1ng",
            }
        ),
        {"items": [{"product_id": "p", "price": 5000}]},
        None,
        ctx(),
    )
    o = outcome_wire(outcome).order
    assert o is not None
    assert (o["amount"], o["initial_amount"], o["items_discount_amount"], o["total_amount"]) == (
        7000,
        5000,
        2000,
        5000,
    )


def test_fixed_every_product_is_worth_8_72100_to_4800() -> None:
    expected = _example_promo("Promotion Tier Metadata", "promo_WEloFBBJ8JJDCxrtR1FPy6t1")
    outcome = _run_example("Promotion Tier Metadata", expected)
    o = outcome_wire(outcome).order
    assert o is not None
    assert _line_discounts(o) == [2100, 2300, 2100, 900, 700, 59200]
    assert (o["amount"], o["items_discount_amount"], o["total_amount"]) == (72100, 67300, 4800)


# --- the OpenAPI examples, field by field -----------------------------------------------------
def _example_promo(example: str, promo_id: str) -> dict[str, Any]:
    for promo in EXAMPLES[example]["response"]["promotions"]:
        if promo["id"] == promo_id:
            return promo
    raise LookupError(promo_id)


def _run_example(example: str, promo: dict[str, Any]):  # type: ignore[no-untyped-def]
    request = EXAMPLES[example]["request"]
    expand = frozenset(request.get("options", {}).get("expand", ()))
    cat = example_catalogue()
    order = normalize_order(cat, request["order"], customer_id=None)
    compiled = compile_tier(tier_from_example(promo))
    return price_normalized(
        cat,
        compiled,
        order,
        None,
        ctx(expand=expand, redemption_metadata=request.get("metadata", {})),
    )


def test_campaign_specific_example_72100_to_72000() -> None:
    """OpenAPI 'Campaign Specific': AMOUNT 100 APPLY_TO_ORDER, the order compared field by field."""
    response = EXAMPLES["Campaign Specific"]["response"]
    promo = response["promotions"][0]
    outcome = _run_example("Campaign Specific", promo)
    assert outcome.valid
    assert_same_json(outcome_wire(outcome).order, promo["order"])
    assert outcome_wire(outcome).order is not None
    assert (outcome_wire(outcome).order["amount"], outcome_wire(outcome).order["total_amount"]) == (72100, 72000)
    assert_same_json(
        promotion_tier_wire(tier_from_example(promo), outcome, response["tracking_id"]), promo
    )


_ALL_PROMOS = [
    (name, promo["id"])
    for name in ("Campaign Specific", "Customer Rules Only", "Promotion Tier Metadata")
    for promo in EXAMPLES[name]["response"]["promotions"]
]


@pytest.mark.parametrize(
    ("example", "promo_id"), _ALL_PROMOS, ids=[f"{n}:{p}" for n, p in _ALL_PROMOS]
)
def test_openapi_example_tier_reproduced_exactly(example: str, promo_id: str) -> None:
    """The whole promotions[] entry (order, discount, applicable_to, campaign...) byte for byte."""
    promo = _example_promo(example, promo_id)
    outcome = _run_example(example, promo)
    tracking_id = EXAMPLES[example]["response"]["tracking_id"]
    assert_same_json(promotion_tier_wire(tier_from_example(promo), outcome, tracking_id), promo)
