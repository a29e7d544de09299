"""Shared helpers for the wire-model tests: valid payload builders and error assertions."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

#: The real service's OpenAPI documents, reduced to the schemas and examples these
#: tests read (tests/data/README.md says where they come from).
OPENAPI_SUBSET = Path(__file__).parents[1] / "data" / "voucherify-openapi-subset.json"

DELETE = object()  # marker for `variant`: remove this key


@cache
def openapi_documents() -> dict[str, Any]:
    documents: dict[str, Any] = json.loads(OPENAPI_SUBSET.read_text(encoding="utf-8"))["documents"]
    return documents


def variant(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``base`` with dotted-path keys replaced (or removed with DELETE)."""
    result = copy.deepcopy(base)
    for path, value in changes.items():
        *parents, last = path.split(".")
        node: Any = result
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
        if value is DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return result


def error_locs(model: type[BaseModel] | TypeAdapter[Any], payload: Any) -> list[tuple[Any, ...]]:
    """Validate and return the locations of every error (fails if validation passes)."""
    with pytest.raises(ValidationError) as caught:
        if isinstance(model, TypeAdapter):
            model.validate_python(payload)
        else:
            model.model_validate(payload)
    return [tuple(error["loc"]) for error in caught.value.errors()]


def assert_invalid_at(
    model: type[BaseModel] | TypeAdapter[Any], payload: Any, loc: tuple[Any, ...]
) -> None:
    locs = error_locs(model, payload)
    assert loc in locs, f"expected an error at {loc}, got {locs}"


def round_trip(model: type[BaseModel], payload: dict[str, Any]) -> dict[str, Any]:
    """Parse, dump to wire JSON and check that both dump paths agree."""
    instance = model.model_validate(payload)
    dumped = instance.model_dump(mode="json", by_alias=True)
    assert json.loads(instance.model_dump_json(by_alias=True)) == dumped
    return dumped


# --- valid payloads, one per resource: tests derive invalid ones with `variant` -------------

TS = "2026-01-01T00:00:00.000Z"


def incentive_payload() -> dict[str, Any]:
    return {
        "id": "linc_0a1b2c",
        "name": "100 points",
        "type": "POINTS",
        "status": "ACTIVE",
        "stock": 10,
        "points": {"value": 100, "card_definition_id": "lcdef_01"},
        "created_at": TS,
        "updated_at": None,
        "object": "incentive",
    }


def reward_payload() -> dict[str, Any]:
    return {
        "id": "lrew_01",
        "name": "Mug",
        "type": "MATERIAL",
        "status": "ACTIVE",
        "material": {"product": {"id": "prod_mug"}},
        "metadata": {},
        "created_at": TS,
        "updated_at": None,
        "object": "reward",
    }


def card_transaction_payload() -> dict[str, Any]:
    return {
        "id": "lctx_01",
        "card_id": "lcrd_01",
        "program_id": "lprg_01",
        "member_id": "lmbr_01",
        "card_definition_id": "lcdef_01",
        "card_type": "POINTS",
        "type": "POINTS_SPENT_ON_REWARD",
        "details": {"reason": None, "metadata": {}, "reward_id": "lrew_01"},
        "status": "PENDING",
        "created_at": TS,
        "updated_at": None,
    }


def customer_payload() -> dict[str, Any]:
    return {
        "id": "cust_01",
        "name": "Ann",
        "email": "ann@example.com",
        "source_id": "ann",
        "metadata": {},
        "object": "customer",
    }


def voucher_payload() -> dict[str, Any]:
    return {
        "id": "v_01",
        "code": "CODE1",
        "campaign": "Spring",
        "campaign_id": "camp_01",
        "category": None,
        "category_id": None,
        "type": "DISCOUNT_VOUCHER",
        "discount": {"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS"},
        "gift": None,
        "loyalty_card": None,
        "start_date": None,
        "expiration_date": None,
        "validity_timeframe": None,
        "validity_day_of_week": None,
        "active": True,
        "additional_info": None,
        "metadata": {},
        "assets": {
            "qr": {"id": "q1", "url": "https://a/q1"},
            "barcode": {"id": "b1", "url": "https://a/b1"},
        },
        "is_referral_code": False,
        "created_at": TS,
        "updated_at": None,
        "holder_id": "cust_01",
        "redemption": {
            "quantity": 1,
            "redeemed_quantity": 0,
            "object": "list",
            "url": "/v1/vouchers/CODE1/redemptions?page=1&limit=10",
        },
        "publish": {
            "object": "list",
            "count": 1,
            "url": "/v1/vouchers/CODE1/publications?page=1&limit=10",
        },
        "object": "voucher",
    }


def publication_payload() -> dict[str, Any]:
    return {
        "id": "pub_01",
        "object": "publication",
        "created_at": TS,
        "customer_id": "cust_01",
        "tracking_id": "ann",
        "metadata": {},
        "channel": "API",
        "source_id": None,
        "result": "SUCCESS",
        "customer": customer_payload(),
        "voucher": voucher_payload(),
        "vouchers_id": ["v_01"],
    }


def order_item_payload() -> dict[str, Any]:
    return {
        "object": "order_item",
        "product_id": "prod_a",
        "quantity": 2,
        "amount": 2000,
        "price": 1000,
        "subtotal_amount": 2000,
        "product": {"id": "prod_a", "source_id": "a", "name": "A", "price": 1000},
    }


def order_payload() -> dict[str, Any]:
    return {
        "amount": 2000,
        "discount_amount": 100,
        "total_discount_amount": 100,
        "total_amount": 1900,
        "applied_discount_amount": 100,
        "total_applied_discount_amount": 100,
        "items": [order_item_payload()],
        "metadata": {},
        "customer_id": None,
        "referrer_id": None,
        "object": "order",
    }


def tier_payload() -> dict[str, Any]:
    empty = {"data": [], "total": 0, "data_ref": "data", "object": "list"}
    return {
        "valid": True,
        "applicable_to": copy.deepcopy(empty),
        "inapplicable_to": copy.deepcopy(empty),
        "tracking_id": "track_x",
        "order": order_payload(),
        "id": "promo_01",
        "name": "100 off",
        "discount": {"type": "AMOUNT", "effect": "APPLY_TO_ORDER", "amount_off": 100},
        "campaign": {
            "id": "camp_01",
            "start_date": None,
            "expiration_date": None,
            "active": True,
            "object": "campaign",
        },
        "hierarchy": 1,
        "discount_amount": 100,
        "applied_discount_amount": 100,
        "metadata": {},
        "object": "promotion_tier",
    }
