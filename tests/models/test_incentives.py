"""Incentive: id pattern, limits, enums, and the type that decides the detail object."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.models import CalculationType, Incentive, IncentiveType

from ._support import DELETE, TS, assert_invalid_at, incentive_payload, round_trip, variant

EVERY = {"every": 100, "value": 1}
META = {"every": 1, "value": 2, "property": "visits"}
ITEMS = {"every": 1, "value": 5, "applicable_to": [{"product": {"id": "prod_1"}}]}

#: calculation_type -> the points_proportional payload that satisfies it
PROPORTIONAL_OK: dict[str, dict[str, Any]] = {
    "PRE_DISCOUNT_ORDER_AMOUNT": {"order": {"amount": EVERY}},
    "POST_DISCOUNT_ORDER_AMOUNT": {"order": {"total_amount": EVERY}},
    "ORDER_METADATA_VALUE": {"order": {"metadata": META}},
    "CUSTOMER_METADATA_VALUE": {"customer": {"metadata": META}},
    "PRE_DISCOUNT_ORDER_ITEMS_AMOUNT": {"order_items": {"amount": ITEMS}},
    "POST_DISCOUNT_ORDER_ITEMS_AMOUNT": {"order_items": {"subtotal_amount": ITEMS}},
    "ORDER_ITEMS_QUANTITY": {"order_items": {"quantity": ITEMS}},
}


def proportional(calculation_type: str, **sub: Any) -> dict[str, Any]:
    body = {"calculation_type": calculation_type, "card_definition_id": "lcdef_01"}
    body.update(sub or PROPORTIONAL_OK[calculation_type])
    return variant(incentive_payload(), {"type": "POINTS_PROPORTIONAL", "points": DELETE}) | {
        "points_proportional": body
    }


VALID: dict[str, dict[str, Any]] = {
    "points": incentive_payload(),
    "openapi example id": variant(incentive_payload(), {"id": "linc_abc123def456"}),
    "stock 0": variant(incentive_payload(), {"stock": 0}),
    "stock int32 max": variant(incentive_payload(), {"stock": 2147483647}),
    "name 200 chars": variant(incentive_payload(), {"name": "n" * 200}),
    "points value int64 max": variant(incentive_payload(), {"points.value": 2**63 - 1}),
    "updated": variant(incentive_payload(), {"updated_at": "2026-02-01T10:00:00+01:00"}),
    "draft": variant(incentive_payload(), {"status": "DRAFT"}),
    "deleted": variant(incentive_payload(), {"status": "DELETED"}),
    **{f"proportional {ct}": proportional(ct) for ct in PROPORTIONAL_OK},
    "proportional sku applicable_to": proportional(
        "ORDER_ITEMS_QUANTITY",
        order_items={
            "quantity": ITEMS | {"applicable_to": [{"type": "sku", "sku": {"id": "sku_1"}}]}
        },
    ),
    "proportional collection applicable_to": proportional(
        "ORDER_ITEMS_QUANTITY",
        order_items={
            "quantity": ITEMS | {"applicable_to": [{"products_collection": {"id": "pc_1"}}]}
        },
    ),
    "material product": variant(
        incentive_payload(),
        {"type": "MATERIAL", "points": DELETE, "material": {"product": {"id": "prod_1"}}},
    ),
    "material sku with type": variant(
        incentive_payload(),
        {
            "type": "MATERIAL",
            "points": DELETE,
            "material": {"type": "SKU", "sku": {"product_id": "prod_1", "id": "sku_1"}},
        },
    ),
    "digital coupons": variant(
        incentive_payload(),
        {
            "type": "DIGITAL",
            "points": DELETE,
            "digital": {"discount_coupons": {"campaign_id": "camp_1"}},
        },
    ),
    "digital gift": variant(
        incentive_payload(),
        {
            "type": "DIGITAL",
            "points": DELETE,
            "digital": {
                "type": "GIFT_VOUCHERS",
                "gift_vouchers": {"campaign_id": "camp_1", "balance": 0},
            },
        },
    ),
}


@pytest.mark.parametrize("payload", VALID.values(), ids=VALID.keys())
def test_valid_incentives_parse_and_round_trip(payload: dict[str, Any]) -> None:
    dumped = round_trip(Incentive, payload)
    # Round trip modulo timestamp normalisation (offset -> Z, millis).
    assert Incentive.model_validate(dumped) == Incentive.model_validate(payload)
    if payload["updated_at"] is None or payload["updated_at"].endswith(".000Z"):
        assert dumped == payload


def _points_to(type_: str, detail: str, value: Any) -> dict[str, Any]:
    return variant(incentive_payload(), {"type": type_, "points": DELETE, detail: value})


INVALID: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("id other prefix", variant(incentive_payload(), {"id": "lben_0a1b"}), ("id",)),
    ("id upper-case hex", variant(incentive_payload(), {"id": "linc_0A1B"}), ("id",)),
    ("id prefix only", variant(incentive_payload(), {"id": "linc_"}), ("id",)),
    ("id missing", variant(incentive_payload(), {"id": DELETE}), ("id",)),
    ("name 201 chars", variant(incentive_payload(), {"name": "n" * 201}), ("name",)),
    ("type unknown", variant(incentive_payload(), {"type": "COINS"}), ("type",)),
    ("status unknown", variant(incentive_payload(), {"status": "INACTIVE"}), ("status",)),
    ("stock -1", variant(incentive_payload(), {"stock": -1}), ("stock",)),
    ("stock 2147483648", variant(incentive_payload(), {"stock": 2147483648}), ("stock",)),
    ("stock float", variant(incentive_payload(), {"stock": 1.5}), ("stock",)),
    ("stock bool", variant(incentive_payload(), {"stock": True}), ("stock",)),
    ("object", variant(incentive_payload(), {"object": "reward"}), ("object",)),
    ("created_at missing", variant(incentive_payload(), {"created_at": DELETE}), ("created_at",)),
    (
        "created_at naive",
        variant(incentive_payload(), {"created_at": "2026-01-01T00:00:00"}),
        ("created_at",),
    ),
    ("points value -1", variant(incentive_payload(), {"points.value": -1}), ("points", "value")),
    (
        "points value 2^63",
        variant(incentive_payload(), {"points.value": 2**63}),
        ("points", "value"),
    ),
    (
        "points value float",
        variant(incentive_payload(), {"points.value": 10.5}),
        ("points", "value"),
    ),
    (
        "points card missing",
        variant(incentive_payload(), {"points.card_definition_id": DELETE}),
        ("points", "card_definition_id"),
    ),
    # the type decides which detail object is present
    ("POINTS without points", variant(incentive_payload(), {"points": DELETE}), ("points",)),
    (
        "POINTS with material",
        variant(incentive_payload(), {"material": {"product": {"id": "p"}}}),
        ("material",),
    ),
    (
        "MATERIAL without material",
        variant(incentive_payload(), {"type": "MATERIAL", "points": DELETE}),
        ("material",),
    ),
    (
        "MATERIAL with points",
        variant(incentive_payload(), {"type": "MATERIAL", "material": {"product": {"id": "p"}}}),
        ("points",),
    ),
    (
        "DIGITAL without digital",
        _points_to("DIGITAL", "material", {"product": {"id": "p"}}),
        ("digital",),
    ),
    (
        "PROPORTIONAL without object",
        variant(incentive_payload(), {"type": "POINTS_PROPORTIONAL"}),
        ("points_proportional",),
    ),
    (
        "PROPORTIONAL with digital",
        proportional("PRE_DISCOUNT_ORDER_AMOUNT")
        | {"digital": {"discount_coupons": {"campaign_id": "c"}}},
        ("digital",),
    ),
    # material / digital: exactly one of
    (
        "material both",
        _points_to(
            "MATERIAL", "material", {"product": {"id": "p"}, "sku": {"product_id": "p", "id": "s"}}
        ),
        ("material", "sku"),
    ),
    ("material neither", _points_to("MATERIAL", "material", {}), ("material", "product")),
    (
        "material type mismatch",
        _points_to("MATERIAL", "material", {"type": "SKU", "product": {"id": "p"}}),
        ("material", "type"),
    ),
    (
        "material sku lacks product_id",
        _points_to("MATERIAL", "material", {"sku": {"id": "s"}}),
        ("material", "sku", "product_id"),
    ),
    (
        "digital both",
        _points_to(
            "DIGITAL",
            "digital",
            {
                "discount_coupons": {"campaign_id": "c"},
                "gift_vouchers": {"campaign_id": "c", "balance": 1},
            },
        ),
        ("digital", "gift_vouchers"),
    ),
    ("digital neither", _points_to("DIGITAL", "digital", {}), ("digital", "discount_coupons")),
    (
        "digital type mismatch",
        _points_to(
            "DIGITAL",
            "digital",
            {"type": "GIFT_VOUCHERS", "discount_coupons": {"campaign_id": "c"}},
        ),
        ("digital", "type"),
    ),
    (
        "gift balance negative",
        _points_to("DIGITAL", "digital", {"gift_vouchers": {"campaign_id": "c", "balance": -1}}),
        ("digital", "gift_vouchers", "balance"),
    ),
    (
        "gift balance float",
        _points_to("DIGITAL", "digital", {"gift_vouchers": {"campaign_id": "c", "balance": 0.5}}),
        ("digital", "gift_vouchers", "balance"),
    ),
    (
        "gift balance missing",
        _points_to("DIGITAL", "digital", {"gift_vouchers": {"campaign_id": "c"}}),
        ("digital", "gift_vouchers", "balance"),
    ),
    # points_proportional shapes
    (
        "calculation_type unknown",
        proportional("PRE_DISCOUNT_ORDER_AMOUNT")
        | {
            "points_proportional": {
                "calculation_type": "ORDER_AMOUNT",
                "card_definition_id": "c",
                "order": {"amount": EVERY},
            }
        },
        ("points_proportional", "calculation_type"),
    ),
    (
        "every 0",
        proportional("PRE_DISCOUNT_ORDER_AMOUNT", order={"amount": {"every": 0, "value": 1}}),
        ("points_proportional", "order", "amount", "every"),
    ),
    (
        "value -1",
        proportional("PRE_DISCOUNT_ORDER_AMOUNT", order={"amount": {"every": 1, "value": -1}}),
        ("points_proportional", "order", "amount", "value"),
    ),
    (
        "every 2^63",
        proportional("PRE_DISCOUNT_ORDER_AMOUNT", order={"amount": {"every": 2**63, "value": 1}}),
        ("points_proportional", "order", "amount", "every"),
    ),
    (
        "metadata without property",
        proportional("ORDER_METADATA_VALUE", order={"metadata": EVERY}),
        ("points_proportional", "order", "metadata", "property"),
    ),
    (
        "items without applicable_to",
        proportional("ORDER_ITEMS_QUANTITY", order_items={"quantity": EVERY}),
        ("points_proportional", "order_items", "quantity", "applicable_to"),
    ),
    (
        "items applicable_to empty",
        proportional(
            "ORDER_ITEMS_QUANTITY", order_items={"quantity": EVERY | {"applicable_to": []}}
        ),
        ("points_proportional", "order_items", "quantity", "applicable_to"),
    ),
    (
        "applicable_to entry empty",
        proportional(
            "ORDER_ITEMS_QUANTITY", order_items={"quantity": EVERY | {"applicable_to": [{}]}}
        ),
        ("points_proportional", "order_items", "quantity", "applicable_to", 0, "product"),
    ),
    (
        "applicable_to entry two refs",
        proportional(
            "ORDER_ITEMS_QUANTITY",
            order_items={
                "quantity": EVERY
                | {"applicable_to": [{"product": {"id": "p"}, "sku": {"id": "s"}}]}
            },
        ),
        ("points_proportional", "order_items", "quantity", "applicable_to", 0, "sku"),
    ),
    (
        "applicable_to type mismatch",
        proportional(
            "ORDER_ITEMS_QUANTITY",
            order_items={
                "quantity": EVERY | {"applicable_to": [{"type": "sku", "product": {"id": "p"}}]}
            },
        ),
        ("points_proportional", "order_items", "quantity", "applicable_to", 0, "type"),
    ),
]

#: calculation_type -> where the missing sub-object is reported, given a wrong sub-object
CALCULATION_NEEDS = {
    "PRE_DISCOUNT_ORDER_AMOUNT": ("order", "amount"),
    "POST_DISCOUNT_ORDER_AMOUNT": ("order", "total_amount"),
    "ORDER_METADATA_VALUE": ("order", "metadata"),
    "CUSTOMER_METADATA_VALUE": ("customer", "metadata"),
    "PRE_DISCOUNT_ORDER_ITEMS_AMOUNT": ("order_items", "amount"),
    "POST_DISCOUNT_ORDER_ITEMS_AMOUNT": ("order_items", "subtotal_amount"),
    "ORDER_ITEMS_QUANTITY": ("order_items", "quantity"),
}


@pytest.mark.parametrize(
    ("payload", "loc"), [(p, loc) for _, p, loc in INVALID], ids=[n for n, _, _ in INVALID]
)
def test_invalid_incentives_name_the_field(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(Incentive, payload, loc)


def _every_sub_object_except(container: str, field: str) -> dict[str, Any]:
    merged: dict[str, dict[str, Any]] = {}
    for body in PROPORTIONAL_OK.values():
        for key, value in body.items():
            merged.setdefault(key, {}).update(value)
    del merged[container][field]
    return merged


def test_calculation_table_covers_every_calculation_type() -> None:
    assert set(CALCULATION_NEEDS) == set(PROPORTIONAL_OK) == {c.value for c in CalculationType}


@pytest.mark.parametrize(
    "with_others", [False, True], ids=["nothing-else", "all-other-sub-objects"]
)
@pytest.mark.parametrize("calculation_type", list(CALCULATION_NEEDS))
def test_calculation_type_requires_its_sub_object(calculation_type: str, with_others: bool) -> None:
    container, field = CALCULATION_NEEDS[calculation_type]
    payload = proportional(calculation_type)
    body = payload["points_proportional"]
    for key in ("order", "customer", "order_items"):
        body.pop(key, None)
    if with_others:
        body.update(_every_sub_object_except(container, field))
    assert_invalid_at(Incentive, payload, ("points_proportional", container, field))


def test_points_incentive_wire_json() -> None:
    incentive = Incentive(
        id="linc_0a",
        name="100 points",
        type=IncentiveType.POINTS,
        status="ACTIVE",
        stock=5,
        points={"value": 100, "card_definition_id": "lcdef_1"},
        created_at=TS,
    )
    assert incentive.model_dump(mode="json") == {
        "id": "linc_0a",
        "name": "100 points",
        "type": "POINTS",
        "status": "ACTIVE",
        "stock": 5,
        "points": {"value": 100, "card_definition_id": "lcdef_1"},
        "created_at": TS,
        "updated_at": None,
        "object": "incentive",
    }


def test_proportional_incentive_wire_json_omits_unused_sub_objects() -> None:
    dumped = Incentive.model_validate(proportional("ORDER_ITEMS_QUANTITY")).model_dump(mode="json")
    assert dumped["points_proportional"] == {
        "calculation_type": "ORDER_ITEMS_QUANTITY",
        "card_definition_id": "lcdef_01",
        "order_items": {
            "quantity": {"every": 1, "value": 5, "applicable_to": [{"product": {"id": "prod_1"}}]}
        },
    }
    assert "points" not in dumped and "material" not in dumped and "digital" not in dumped
