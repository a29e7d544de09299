"""Promotion tiers, applicable_to lists, and the validation request/response."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.models import (
    AmountDiscount,
    ApplicableTo,
    ApplicableToList,
    Order,
    PromotionTier,
    TierCampaign,
    ValidationRequest,
    ValidationResponse,
)

from ._support import DELETE, assert_invalid_at, round_trip, tier_payload, variant

SKU_ENTRY = {
    "object": "sku",
    "id": "sku_1",
    "source_id": "s1",
    "product_id": "prod_1",
    "product_source_id": "p1",
    "price": 800,
    "effect": "APPLY_TO_EVERY",
}

VALID_TIERS = {
    "amount tier": tier_payload(),
    "with banner": variant(tier_payload(), {"banner": "100 off"}),
    "without discount amounts (unpriced shipping)": variant(
        tier_payload(),
        {
            "discount_amount": DELETE,
            "applied_discount_amount": DELETE,
            "discount": {
                "type": "UNIT",
                "effect": "ADD_MISSING_ITEMS",
                "unit_off": 1,
                "unit_type": "prod_5h1pp1ng",
            },
        },
    ),
    "fixed with applicable_to": variant(
        tier_payload(),
        {
            "discount": {"type": "FIXED", "effect": "APPLY_TO_ITEMS"},
            "applicable_to.data": [
                {
                    "object": "products_collection",
                    "id": "pc_1",
                    "price": 800,
                    "effect": "APPLY_TO_EVERY",
                },
                SKU_ENTRY,
                {
                    "object": "product",
                    "id": "prod_2",
                    "quantity_limit": 1,
                    "aggregated_quantity_limit": 3,
                    "amount_limit": 50,
                    "aggregated_amount_limit": 90,
                },
            ],
            "applicable_to.total": 3,
        },
    ),
    "campaign dates and categories": variant(
        tier_payload(),
        {
            "campaign.start_date": "2026-01-01T00:00:00.000Z",
            "campaign.expiration_date": "2026-12-31T23:59:59.999Z",
            "campaign.categories": [
                {
                    "id": "cat_1",
                    "name": "Sixth",
                    "hierarchy": 6,
                    "created_at": "2022-07-13T08:27:14.926Z",
                    "object": "category",
                }
            ],
        },
    ),
    "metadata keys": variant(
        tier_payload(), {"metadata": {"has_budget": True, "audience_restricted": False}}
    ),
}


@pytest.mark.parametrize("payload", VALID_TIERS.values(), ids=VALID_TIERS.keys())
def test_valid_tiers_round_trip(payload: dict[str, Any]) -> None:
    assert round_trip(PromotionTier, payload) == payload


INVALID_TIERS: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("valid as string (schema says string, interface says boolean)", {"valid": "true"}, ("valid",)),
    ("tracking_id missing", {"tracking_id": DELETE}, ("tracking_id",)),
    ("order missing", {"order": DELETE}, ("order",)),
    ("discount missing", {"discount": DELETE}, ("discount",)),
    ("discount type unknown", {"discount": {"type": "SHIPPING"}}, ("discount",)),
    ("campaign active missing", {"campaign.active": DELETE}, ("campaign", "active")),
    ("campaign object", {"campaign.object": "promotion"}, ("campaign", "object")),
    (
        "campaign start naive",
        {"campaign.start_date": "2026-01-01T00:00:00"},
        ("campaign", "start_date"),
    ),
    ("hierarchy float", {"hierarchy": 1.5}, ("hierarchy",)),
    ("hierarchy 2^63", {"hierarchy": 2**63}, ("hierarchy",)),
    ("discount_amount negative", {"discount_amount": -100}, ("discount_amount",)),
    (
        "applied_discount_amount float",
        {"applied_discount_amount": 1.5},
        ("applied_discount_amount",),
    ),
    ("object", {"object": "tier"}, ("object",)),
    ("applicable_to data_ref", {"applicable_to.data_ref": "items"}, ("applicable_to", "data_ref")),
    ("inapplicable_to object", {"inapplicable_to.object": "page"}, ("inapplicable_to", "object")),
    ("applicable_to total negative", {"applicable_to.total": -1}, ("applicable_to", "total")),
    (
        "applicable_to entry object",
        {"applicable_to.data": [{"object": "category", "id": "c"}]},
        ("applicable_to", "data", 0, "object"),
    ),
    (
        "applicable_to entry id missing",
        {"applicable_to.data": [{"object": "product"}]},
        ("applicable_to", "data", 0, "id"),
    ),
    (
        "applicable_to effect unknown",
        {"applicable_to.data": [SKU_ENTRY | {"effect": "APPLY_TO_ALL"}]},
        ("applicable_to", "data", 0, "effect"),
    ),
    (
        "applicable_to price float",
        {"applicable_to.data": [SKU_ENTRY | {"price": 8.0}]},
        ("applicable_to", "data", 0, "price"),
    ),
    (
        "product_id on a product entry",
        {"applicable_to.data": [SKU_ENTRY | {"object": "product"}]},
        ("applicable_to", "data", 0, "product_id"),
    ),
    (
        "quantity_limit negative",
        {"applicable_to.data": [{"object": "product", "id": "p", "quantity_limit": -1}]},
        ("applicable_to", "data", 0, "quantity_limit"),
    ),
]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [(c, loc) for _, c, loc in INVALID_TIERS],
    ids=[n for n, _, _ in INVALID_TIERS],
)
def test_invalid_tiers_name_the_field(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(PromotionTier, variant(tier_payload(), changes), loc)


def test_tier_built_in_python_has_empty_lists_and_omits_unset_amounts() -> None:
    tier = PromotionTier(
        valid=True,
        tracking_id="track_x",
        order=Order(amount=100, total_amount=100),
        id="promo_1",
        name="Free shipping",
        discount=AmountDiscount(amount_off=0),
        campaign=TierCampaign(id="camp_1", active=True),
        hierarchy=1,
    )
    empty = {"data": [], "total": 0, "data_ref": "data", "object": "list"}
    assert tier.model_dump(mode="json") == {
        "valid": True,
        "applicable_to": empty,
        "inapplicable_to": empty,
        "tracking_id": "track_x",
        "order": {
            "amount": 100,
            "total_amount": 100,
            "items": [],
            "metadata": {},
            "customer_id": None,
            "referrer_id": None,
            "object": "order",
        },
        "id": "promo_1",
        "name": "Free shipping",
        "discount": {"type": "AMOUNT", "amount_off": 0, "effect": "APPLY_TO_ORDER"},
        "campaign": {
            "id": "camp_1",
            "start_date": None,
            "expiration_date": None,
            "active": True,
            "object": "campaign",
        },
        "hierarchy": 1,
        "metadata": {},
        "object": "promotion_tier",
    }


def test_applicable_to_list_of() -> None:
    entry = ApplicableTo(object="product", id="prod_1")
    assert ApplicableToList.of([entry]).model_dump(mode="json") == {
        "data": [{"object": "product", "id": "prod_1"}],
        "total": 1,
        "data_ref": "data",
        "object": "list",
    }


def test_empty_validation_response_wire_json() -> None:
    response = ValidationResponse(valid=False, tracking_id="track_x")
    assert response.model_dump(mode="json") == {
        "valid": False,
        "tracking_id": "track_x",
        "promotions": [],
    }


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({"tracking_id": "t", "promotions": []}, ("valid",)),
        ({"valid": True, "promotions": []}, ("tracking_id",)),
        ({"valid": 1, "tracking_id": "t"}, ("valid",)),
        ({"valid": True, "tracking_id": "t", "promotions": [{}]}, ("promotions", 0, "valid")),
    ],
    ids=["valid missing", "tracking_id missing", "valid not a boolean", "bad tier"],
)
def test_invalid_validation_responses(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(ValidationResponse, payload, loc)


def test_validation_request_is_all_optional() -> None:
    assert ValidationRequest().model_dump(mode="json") == {}
    request = ValidationRequest.model_validate(
        {"customer": {"name": "Joe"}, "options": {"expand": ["category"]}}
    )
    assert request.model_dump(mode="json") == {
        "customer": {"name": "Joe"},
        "options": {"expand": ["category"]},
    }


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({"customer": {"id": "c", "Name": "Ann"}}, ("customer", "Name")),
        ({"customer": {"source_id": ""}}, ("customer", "source_id")),
        ({"order": {"amount": 1.5}}, ("order", "amount")),
        ({"order": {"items": [{"quantity": 1}]}}, ("order", "items", 0, "product_id")),
        ({"options": {"expand": "category"}}, ("options", "expand")),
        ({"options": {"limit": 5}}, ("options", "limit")),
        ({"filters": {}}, ("filters",)),
    ],
    ids=[
        "customer extra",
        "empty source_id",
        "float amount",
        "unidentified line",
        "expand not a list",
        "unknown option",
        "unknown field",
    ],
)
def test_invalid_validation_requests(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(ValidationRequest, payload, loc)
