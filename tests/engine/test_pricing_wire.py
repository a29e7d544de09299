"""Scope, caps, wire shapes (applicable_to, discount, campaign) and tier compilation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from pricing_builders import (
    ADVENTURE_ORDER,
    adventure_catalogue,
    campaign,
    ctx,
    included,
    tier,
)

from promolab.engine import (
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    TierConfigError,
    compile_tier,
    outcome_wire,
    price_tier,
)
from promolab.engine.render import wire_instant
from promolab.sim.clock import format_instant
from wire_asserts import assert_same_json


def _discounts(outcome: Any) -> list[int]:
    return [i.get("discount_amount", 0) for i in outcome_wire(outcome).order["items"]]


def _run(discount: dict[str, Any], applicable_to: dict[str, Any] | None = None, **kw: Any) -> Any:
    return price_tier(
        adventure_catalogue(),
        tier(discount, applicable_to=applicable_to),
        kw.get("order", ADVENTURE_ORDER),
        None,
        ctx(),
    )


AMOUNT_ITEMS = {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS"}


def test_no_applicable_to_item_effect_reaches_every_line() -> None:
    assert _discounts(_run(AMOUNT_ITEMS)) == [1000, 1000, 1000, 1000]


def test_excluded_wins_over_included_collection() -> None:
    scope = {
        "included": [{"object": "products_collection", "id": "pc_adventure"}],
        "excluded": [{"object": "product", "id": "prod_poster"}],
    }
    out = _run(AMOUNT_ITEMS, scope)
    assert _discounts(out) == [1000, 0, 1000, 0]
    assert outcome_wire(out).inapplicable_to == {
        "data": [
            {
                "object": "product",
                "id": "prod_poster",
                "source_id": "poster",
                "effect": "APPLY_TO_EVERY",
            }
        ],
        "total": 1,
        "data_ref": "data",
        "object": "list",
    }


def test_excluded_only_scope() -> None:
    out = _run(AMOUNT_ITEMS, {"excluded": [{"object": "product", "id": "prod_bottle"}]})
    assert _discounts(out) == [1000, 1000, 1000, 0]


def test_product_entry_matches_its_sku_lines_and_sku_entry_only_its_sku() -> None:
    cat = Catalogue(
        [CatalogueProduct("p", price=100)],
        [CatalogueSku("s1", product_id="p", price=200), CatalogueSku("s2", product_id="p", price=300)],
    )
    order = {"items": [{"sku_id": "s1"}, {"sku_id": "s2"}, {"product_id": "p"}]}
    out = price_tier(
        cat,
        tier(AMOUNT_ITEMS, applicable_to=included({"object": "product", "id": "p"})),
        order,
        None,
        ctx(),
    )
    assert _discounts(out) == [200, 300, 100]
    out = price_tier(
        cat,
        tier(AMOUNT_ITEMS, applicable_to=included({"object": "sku", "id": "s2"})),
        order,
        None,
        ctx(),
    )
    assert _discounts(out) == [0, 300, 0]


def test_lowest_discount_among_overlapping_entries() -> None:
    scope = included(
        {"object": "products_collection", "id": "pc_adventure", "amount_limit": 700},
        {"object": "product", "id": "prod_mug", "amount_limit": 300},
    )
    assert _discounts(_run(AMOUNT_ITEMS, scope)) == [300, 700, 700, 0]
    fixed = {"type": "FIXED", "effect": "APPLY_TO_ITEMS"}
    scope = included(
        {"object": "products_collection", "id": "pc_adventure", "price": 500},
        {"object": "product", "id": "prod_poster", "price": 1200},
    )
    # mug 1000->500 x2, poster 1500->1200 (highest new price wins) x3, t-shirt 2000->500 x3
    assert _discounts(_run(fixed, scope)) == [1000, 900, 4500, 0]


def test_entry_aggregated_amount_limit_is_a_shared_budget_in_line_order() -> None:
    scope = included(
        {"object": "products_collection", "id": "pc_adventure", "aggregated_amount_limit": 2500}
    )
    assert _discounts(_run(AMOUNT_ITEMS, scope)) == [1000, 1000, 500, 0]


def test_discount_aggregated_amount_limit_for_by_quantity() -> None:
    d = {
        **AMOUNT_ITEMS,
        "effect": "APPLY_TO_ITEMS_BY_QUANTITY",
        "amount_off": 100,
        "aggregated_amount_limit": 450,
    }
    assert _discounts(_run(d)) == [200, 250, 0, 0]


def test_fixed_new_price_above_price_gives_zero() -> None:
    out = _run({"type": "FIXED", "fixed_amount": 2200, "effect": "APPLY_TO_ITEMS"})
    assert _discounts(out) == [0, 0, 0, (2500 - 2200) * 2]
    assert "discount_amount" not in outcome_wire(out).order["items"][0]


def test_default_effects() -> None:
    assert compile_tier(tier({"type": "AMOUNT", "amount_off": 1})).effect == "APPLY_TO_ORDER"
    scoped = tier(
        {"type": "PERCENT", "percent_off": 1},
        applicable_to=included({"object": "product", "id": "p"}),
    )
    assert compile_tier(scoped).effect == "APPLY_TO_ITEMS"
    assert (
        compile_tier(tier({"type": "UNIT", "unit_off": 1, "unit_type": "p"})).effect
        == "ADD_MISSING_ITEMS"
    )
    out = price_tier(
        Catalogue(),
        tier({"type": "AMOUNT", "amount_off": 5}),
        {"items": [{"product_id": "x", "price": 9}]},
        None,
        ctx(),
    )
    assert outcome_wire(out).discount == {"type": "AMOUNT", "effect": "APPLY_TO_ORDER", "amount_off": 5}


def test_order_discount_capped_at_order_amount() -> None:
    out = price_tier(
        Catalogue(),
        tier({"type": "AMOUNT", "amount_off": 99999, "effect": "APPLY_TO_ORDER"}),
        {"items": [{"product_id": "x", "price": 900}]},
        None,
        ctx(),
    )
    assert (outcome_wire(out).order["discount_amount"], outcome_wire(out).order["total_amount"], out.discount_amount) == (
        900,
        0,
        900,
    )


def test_item_discounts_trimmed_when_sent_amount_is_smaller() -> None:
    out = price_tier(
        Catalogue(),
        tier(AMOUNT_ITEMS),
        {
            "amount": 1500,
            "items": [{"product_id": "a", "price": 1000}, {"product_id": "b", "price": 1000}],
        },
        None,
        ctx(),
    )
    assert _discounts(out) == [1000, 500]
    assert (outcome_wire(out).order["amount"], outcome_wire(out).order["total_amount"]) == (1500, 0)


def test_order_without_discount_effect_has_only_amount_and_total() -> None:
    out = _run(AMOUNT_ITEMS, included({"object": "product", "id": "prod_unknown"}))
    assert out.valid
    assert [k for k in outcome_wire(out).order if k.endswith("amount")] == ["amount", "total_amount"]
    assert out.discount_amount == 0


def test_applicable_to_wire_fills_source_ids_from_catalogue() -> None:
    cat = Catalogue(
        [CatalogueProduct("prod_x", None, "X", 100), CatalogueProduct("prod_y", "y-src", "Y", 100)],
        [CatalogueSku("sku_y", "sku-y-src", "Y1", "prod_y", 90)],
        [CatalogueCollection("pc_1", "c")],
    )
    scope = included(
        {"object": "products_collection", "id": "pc_1", "quantity_limit": 2},
        {"object": "product", "id": "prod_x"},
        {"object": "sku", "id": "sku_y", "price": 50, "aggregated_amount_limit": 300},
    )
    out = price_tier(
        cat,
        tier({"type": "FIXED", "effect": "APPLY_TO_ITEMS"}, applicable_to=scope),
        {"items": []},
        None,
        ctx(),
    )
    assert_same_json(
        outcome_wire(out).applicable_to,
        {
            "data": [
                {
                    "object": "products_collection",
                    "id": "pc_1",
                    "effect": "APPLY_TO_EVERY",
                    "quantity_limit": 2,
                },
                {
                    "object": "product",
                    "id": "prod_x",
                    "source_id": "prod_x",
                    "effect": "APPLY_TO_EVERY",
                },
                {
                    "object": "sku",
                    "id": "sku_y",
                    "source_id": "sku-y-src",
                    "product_id": "prod_y",
                    "product_source_id": "y-src",
                    "price": 50,
                    "effect": "APPLY_TO_EVERY",
                    "aggregated_amount_limit": 300,
                },
            ],
            "total": 3,
            "data_ref": "data",
            "object": "list",
        },
    )
    assert outcome_wire(out).inapplicable_to == {"data": [], "total": 0, "data_ref": "data", "object": "list"}


def test_campaign_wire_and_category_expansion() -> None:
    cat = {"id": "cat_1", "name": "First", "hierarchy": 1, "object": "category"}
    camp = campaign(start_date=datetime(2026, 1, 1, tzinfo=UTC), categories=(cat,))
    spec = tier({"type": "AMOUNT", "amount_off": 1}, campaign=camp)
    plain = price_tier(Catalogue(), spec, {}, None, ctx())
    assert_same_json(
        outcome_wire(plain).campaign,
        {
            "id": "camp_test",
            "start_date": "2026-01-01T00:00:00.000Z",
            "expiration_date": None,
            "active": True,
            "object": "campaign",
        },
    )
    expanded = price_tier(Catalogue(), spec, {}, None, ctx(expand=frozenset({"category"})))
    assert outcome_wire(expanded).campaign["categories"] == [cat]


@pytest.mark.parametrize(("moment", "text"), [
    (datetime(2026, 1, 1, tzinfo=UTC), "2026-01-01T00:00:00.000Z"),
    (datetime(2026, 3, 29, 1, 30, 5, 123999, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
     "2026-03-29T07:00:05.123Z"),  # to UTC, milliseconds cut (not rounded)
    (datetime(5, 1, 1, tzinfo=UTC), "0005-01-01T00:00:00.000Z"),  # a year below 1000: four digits all the same
    (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), "9999-12-31T23:59:59.999Z"),
])
def test_instants_are_written_one_way(moment: datetime, text: str) -> None:
    """The engine writes campaign dates itself (it imports nothing of the
    simulator), and the simulator writes every other timestamp with the same
    function: one text for an instant wherever it is written."""
    assert wire_instant(moment) == text
    assert format_instant(moment) == text


def test_unit_discount_wire_expansion_for_product_and_unknown() -> None:
    cat = adventure_catalogue()
    out = price_tier(
        cat,
        tier({"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_mug"}),
        {},
        None,
        ctx(),
    )
    assert_same_json(
        outcome_wire(out).discount,
        {
            "type": "UNIT",
            "effect": "ADD_NEW_ITEMS",
            "unit_off": 1,
            "unit_type": "prod_mug",
            "product": {"id": "prod_mug", "source_id": "mug", "name": "Mug"},
        },
    )
    unknown = price_tier(
        cat, tier({"type": "UNIT", "unit_off": 2, "unit_type": "prod_zz"}), {}, None, ctx()
    )
    assert outcome_wire(unknown).order["items"] == [
        {
            "object": "order_item",
            "product_id": "prod_zz",
            "quantity": 2,
            "discount_quantity": 2,
            "initial_quantity": 0,
            "product": {"id": "prod_zz"},
        }
    ]
    assert unknown.discount_amount is None


def test_unit_add_missing_when_cart_already_has_more() -> None:
    out = price_tier(
        adventure_catalogue(),
        tier(
            {
                "type": "UNIT",
                "effect": "ADD_MISSING_ITEMS",
                "unit_off": 2,
                "unit_type": "prod_poster",
            }
        ),
        ADVENTURE_ORDER,
        None,
        ctx(),
    )
    poster = outcome_wire(out).order["items"][1]
    assert (
        poster["quantity"],
        poster["discount_quantity"],
        poster["initial_quantity"],
        poster["discount_amount"],
        poster["subtotal_amount"],
    ) == (3, 2, 3, 3000, 1500)
    assert "initial_amount" not in outcome_wire(out).order  # nothing was added
    assert outcome_wire(out).order["amount"] == 17500 and outcome_wire(out).order["total_amount"] == 14500


def test_unit_only_first_duplicate_line_is_modified() -> None:
    order = {
        "items": [
            {"product_id": "prod_mug", "quantity": 1},
            {"product_id": "prod_mug", "quantity": 1},
        ]
    }
    out = price_tier(
        adventure_catalogue(),
        tier({"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_mug"}),
        order,
        None,
        ctx(),
    )
    assert [i["quantity"] for i in outcome_wire(out).order["items"]] == [2, 1]
    assert "discount_quantity" not in outcome_wire(out).order["items"][1]


def test_invalid_outcome_shape() -> None:
    out = price_tier(
        Catalogue(),
        tier({"type": "AMOUNT", "amount_off": 1}, campaign=campaign(active=False)),
        {},
        None,
        ctx(),
    )
    assert (
        out.valid,
        out.reason_key,
        outcome_wire(out).order,
        out.discount_amount,
        out.applied_discount_amount,
    ) == (False, "promotion_inactive", None, None, None)


@pytest.mark.parametrize(
    "discount",
    [
        {"type": "SHIPPING"},
        {"type": "AMOUNT"},
        {"type": "AMOUNT", "amount_off": -1},
        {"type": "AMOUNT", "amount_off": 1.5},
        {"type": "AMOUNT", "amount_off": 1, "effect": "ADD_NEW_ITEMS"},
        {"type": "PERCENT", "percent_off": 101},
        {"type": "PERCENT"},
        {"type": "FIXED", "effect": "APPLY_TO_ORDER"},
        {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": []},
        {"type": "UNIT", "unit_off": 1},
        {"type": "UNIT", "effect": "ADD_SAME_ITEMS", "unit_off": 1, "unit_type": "p"},
        "not a mapping",
    ],
)
def test_bad_discounts_fail_at_compile_time(discount: Any) -> None:
    with pytest.raises(TierConfigError) as info:
        compile_tier(tier(discount))
    assert info.value.tier_id == "promo_test"


@pytest.mark.parametrize(
    "applicable_to",
    [
        {"included": [{"object": "bundle", "id": "x"}]},
        {"included": [{"object": "product"}]},
        {"included": [{"object": "product", "id": "p", "effect": "APPLY_TO_CHEAPEST"}]},
        {"included": [{"object": "product", "id": "p", "quantity_limit": -1}]},
    ],
)
def test_bad_applicable_to_fails_at_compile_time(applicable_to: dict[str, Any]) -> None:
    with pytest.raises(TierConfigError):
        compile_tier(tier({"type": "AMOUNT", "amount_off": 1}, applicable_to=applicable_to))


@pytest.mark.parametrize(
    "camp",
    [
        {"validity_timeframe": {"interval": "2 days", "duration": "PT1H"}},
        {"validity_timeframe": {"interval": "P1D"}},
        {"validity_day_of_week": [7]},
        {"start_date": datetime(2026, 1, 1)},
    ],
)
def test_bad_campaign_fails_at_compile_time(camp: dict[str, Any]) -> None:
    with pytest.raises(TierConfigError):
        compile_tier(tier({"type": "AMOUNT", "amount_off": 1}, campaign=campaign(**camp)))
