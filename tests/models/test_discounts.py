"""Discount union: per-type fields and effects, defaults, UNIT single vs many."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import BaseModel

from promolab.models import (
    AmountDiscount,
    AmountEffect,
    Discount,
    DiscountAdapter,
    FixedDiscount,
    PercentDiscount,
    UnitDiscount,
    UnitManyDiscount,
)

from ._support import assert_invalid_at

SKU_UNIT = {
    "type": "UNIT",
    "effect": "ADD_NEW_ITEMS",
    "unit_off": 45,
    "unit_type": "sku_0bae",
    "sku": {"id": "sku_0bae", "source_id": "s1", "sku": "256GB"},
    "product": {"id": "prod_0bae", "source_id": "p1", "name": "Phone"},
}
MANY: dict[str, Any] = {
    "type": "UNIT",
    "effect": "ADD_MANY_ITEMS",
    "units": [
        {
            "effect": "ADD_MISSING_ITEMS",
            "unit_off": 1,
            "unit_type": "prod_red",
            "product": {"id": "prod_red", "name": "Red"},
        },
        {
            "effect": "ADD_NEW_ITEMS",
            "unit_off": 1,
            "unit_type": "sku_blue",
            "sku": {"id": "sku_blue"},
        },
    ],
}

VALID: list[tuple[str, dict[str, Any], type[BaseModel]]] = [
    *[
        (
            f"amount {e.value}",
            {"type": "AMOUNT", "amount_off": 100, "effect": e.value},
            AmountDiscount,
        )
        for e in AmountEffect
    ],
    (
        "amount with limits",
        {
            "type": "AMOUNT",
            "amount_off": 0,
            "effect": "APPLY_TO_ITEMS",
            "amount_limit": 5,
            "aggregated_amount_limit": 9,
        },
        AmountDiscount,
    ),
    (
        "amount int64 max",
        {"type": "AMOUNT", "amount_off": 2**63 - 1, "effect": "APPLY_TO_ORDER"},
        AmountDiscount,
    ),
    (
        "percent int",
        {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"},
        PercentDiscount,
    ),
    (
        "percent fraction",
        {"type": "PERCENT", "percent_off": 12.5, "effect": "APPLY_TO_ITEMS", "amount_limit": 1000},
        PercentDiscount,
    ),
    (
        "percent 100",
        {"type": "PERCENT", "percent_off": 100, "effect": "APPLY_TO_ORDER"},
        PercentDiscount,
    ),
    (
        "fixed without amount (interface example)",
        {"type": "FIXED", "effect": "APPLY_TO_ITEMS"},
        FixedDiscount,
    ),
    (
        "fixed to order",
        {"type": "FIXED", "fixed_amount": 800, "effect": "APPLY_TO_ORDER"},
        FixedDiscount,
    ),
    ("unit sku", SKU_UNIT, UnitDiscount),
    (
        "unit shipping",
        {
            "type": "UNIT",
            "effect": "ADD_MISSING_ITEMS",
            "unit_off": 1,
            "unit_type": "prod_5h1pp1ng",
            "product": {"id": "prod_5h1pp1ng", "source_id": "5h1pp1ng", "name": "Shipping"},
        },
        UnitDiscount,
    ),
    ("unit many", MANY, UnitManyDiscount),
]


@pytest.mark.parametrize(
    ("payload", "cls"), [(p, c) for _, p, c in VALID], ids=[n for n, _, _ in VALID]
)
def test_valid_discounts_pick_their_class_and_round_trip(
    payload: dict[str, Any], cls: type[BaseModel]
) -> None:
    discount = DiscountAdapter.validate_python(payload)
    assert type(discount) is cls
    assert DiscountAdapter.dump_python(discount, mode="json") == payload
    assert DiscountAdapter.validate_json(DiscountAdapter.dump_json(discount)) == discount


@pytest.mark.parametrize(
    ("payload", "effect"),
    [
        ({"type": "AMOUNT", "amount_off": 100}, "APPLY_TO_ORDER"),
        ({"type": "PERCENT", "percent_off": 5}, "APPLY_TO_ORDER"),
        ({"type": "UNIT", "unit_off": 1, "unit_type": "prod_1"}, "ADD_MISSING_ITEMS"),
    ],
    ids=["amount", "percent", "unit"],
)
def test_default_effect_when_omitted(payload: dict[str, Any], effect: str) -> None:
    dumped = DiscountAdapter.dump_python(DiscountAdapter.validate_python(payload), mode="json")
    assert dumped == payload | {"effect": effect}


INVALID: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("type unknown", {"type": "SHIPPING"}, ()),
    ("type missing", {"amount_off": 1}, ()),
    ("amount_off missing", {"type": "AMOUNT"}, ("AMOUNT", "amount_off")),
    ("amount_off negative", {"type": "AMOUNT", "amount_off": -1}, ("AMOUNT", "amount_off")),
    ("amount_off float", {"type": "AMOUNT", "amount_off": 1.5}, ("AMOUNT", "amount_off")),
    ("amount_off 2^63", {"type": "AMOUNT", "amount_off": 2**63}, ("AMOUNT", "amount_off")),
    ("amount_off bool", {"type": "AMOUNT", "amount_off": True}, ("AMOUNT", "amount_off")),
    (
        "amount effect of unit",
        {"type": "AMOUNT", "amount_off": 1, "effect": "ADD_NEW_ITEMS"},
        ("AMOUNT", "effect"),
    ),
    (
        "amount_limit negative",
        {"type": "AMOUNT", "amount_off": 1, "amount_limit": -1},
        ("AMOUNT", "amount_limit"),
    ),
    ("percent 0", {"type": "PERCENT", "percent_off": 0}, ("PERCENT", "percent_off")),
    ("percent negative", {"type": "PERCENT", "percent_off": -5}, ("PERCENT", "percent_off")),
    ("percent over 100", {"type": "PERCENT", "percent_off": 100.01}, ("PERCENT", "percent_off")),
    ("percent nan", {"type": "PERCENT", "percent_off": math.nan}, ("PERCENT", "percent_off")),
    ("percent string", {"type": "PERCENT", "percent_off": "10"}, ("PERCENT", "percent_off")),
    ("percent bool", {"type": "PERCENT", "percent_off": True}, ("PERCENT", "percent_off")),
    (
        "percent by quantity",
        {"type": "PERCENT", "percent_off": 5, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"},
        ("PERCENT", "effect"),
    ),
    (
        "percent aggregated limit float",
        {"type": "PERCENT", "percent_off": 5, "aggregated_amount_limit": 2.5},
        ("PERCENT", "aggregated_amount_limit"),
    ),
    ("fixed without effect", {"type": "FIXED", "fixed_amount": 800}, ("FIXED", "effect")),
    (
        "fixed proportional effect",
        {"type": "FIXED", "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"},
        ("FIXED", "effect"),
    ),
    (
        "fixed_amount float",
        {"type": "FIXED", "effect": "APPLY_TO_ITEMS", "fixed_amount": 8.5},
        ("FIXED", "fixed_amount"),
    ),
    ("unit_type missing", {"type": "UNIT", "unit_off": 1}, ("UNIT", "unit_type")),
    (
        "unit_type not a product or sku",
        {"type": "UNIT", "unit_off": 1, "unit_type": "pc_1"},
        ("UNIT", "unit_type"),
    ),
    (
        "unit_off negative",
        {"type": "UNIT", "unit_off": -1, "unit_type": "prod_1"},
        ("UNIT", "unit_off"),
    ),
    (
        "unit_off float",
        {"type": "UNIT", "unit_off": 1.5, "unit_type": "prod_1"},
        ("UNIT", "unit_off"),
    ),
    (
        "unit undocumented effect",
        {"type": "UNIT", "unit_off": 1, "unit_type": "prod_1", "effect": "ADD_SAME_ITEMS"},
        ("UNIT", "effect"),
    ),
    (
        "sku on a product unit",
        {"type": "UNIT", "unit_off": 1, "unit_type": "prod_1", "sku": {"id": "sku_1"}},
        ("UNIT", "sku"),
    ),
    ("sku other than the unit", SKU_UNIT | {"sku": {"id": "sku_other"}}, ("UNIT", "sku")),
    (
        "product without id",
        {"type": "UNIT", "unit_off": 1, "unit_type": "prod_1", "product": {"name": "x"}},
        ("UNIT", "product", "id"),
    ),
    ("many without units", {"type": "UNIT", "effect": "ADD_MANY_ITEMS"}, ("UNIT_MANY", "units")),
    (
        "many with empty units",
        {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": []},
        ("UNIT_MANY", "units"),
    ),
    (
        "many entry without effect",
        {
            "type": "UNIT",
            "effect": "ADD_MANY_ITEMS",
            "units": [{"unit_off": 1, "unit_type": "prod_1"}],
        },
        ("UNIT_MANY", "units", 0, "effect"),
    ),
    (
        "many entry nested many",
        {
            "type": "UNIT",
            "effect": "ADD_MANY_ITEMS",
            "units": [{"effect": "ADD_MANY_ITEMS", "unit_off": 1, "unit_type": "prod_1"}],
        },
        ("UNIT_MANY", "units", 0, "effect"),
    ),
    (
        "many entry bad unit_type",
        {
            "type": "UNIT",
            "effect": "ADD_MANY_ITEMS",
            "units": [MANY["units"][0] | {"unit_type": "x"}],
        },
        ("UNIT_MANY", "units", 0, "unit_type"),
    ),
    (
        "many entry sku mismatch",
        {
            "type": "UNIT",
            "effect": "ADD_MANY_ITEMS",
            "units": [MANY["units"][1] | {"unit_type": "sku_red"}],
        },
        ("UNIT_MANY", "units", 0, "sku"),
    ),
]


@pytest.mark.parametrize(
    ("payload", "loc"), [(p, loc) for _, p, loc in INVALID], ids=[n for n, _, _ in INVALID]
)
def test_invalid_discounts_name_the_field(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(DiscountAdapter, payload, loc)


class Holder(BaseModel):
    discount: Discount


def test_discount_errors_are_rooted_at_the_holding_field() -> None:
    assert_invalid_at(Holder, {"discount": {"type": "SHIPPING"}}, ("discount",))
    assert_invalid_at(
        Holder,
        {"discount": {"type": "AMOUNT", "amount_off": -1}},
        ("discount", "AMOUNT", "amount_off"),
    )


def test_python_construction_is_discriminated_too() -> None:
    holder = Holder(discount=UnitManyDiscount(units=MANY["units"]))
    assert Holder.model_validate(holder.model_dump(mode="json")) == holder
    assert holder.model_dump(mode="json")["discount"]["effect"] == "ADD_MANY_ITEMS"


def test_unit_discount_wire_json_omits_absent_sku() -> None:
    discount = UnitDiscount(
        unit_off=8, unit_type="prod_roses", product={"id": "prod_roses", "name": "Roses"}
    )
    assert discount.model_dump(mode="json") == {
        "type": "UNIT",
        "effect": "ADD_MISSING_ITEMS",
        "unit_off": 8,
        "unit_type": "prod_roses",
        "product": {"id": "prod_roses", "name": "Roses"},
    }
