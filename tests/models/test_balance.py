"""Add-balance request and balance result."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.models import AddBalanceRequest, BalanceResult

from ._support import DELETE, assert_invalid_at, round_trip, variant

RESULT = {
    "amount": 10000,
    "total": 20100,
    "balance": 20100,
    "type": "gift_voucher",
    "operation_type": "MANUAL",
    "object": "balance",
    "related_object": {"type": "voucher", "id": "v_1"},
}


@pytest.mark.parametrize(
    "payload",
    [
        {"amount": 10000},
        {"amount": -500, "source_id": "refund-1", "reason": "Refund"},
        {"amount": 0},
        {"amount": 2**63 - 1},
    ],
    ids=["add", "subtract with source and reason", "zero (the simulator decides)", "int64 max"],
)
def test_valid_add_balance_requests(payload: dict[str, Any]) -> None:
    assert round_trip(AddBalanceRequest, payload) == payload


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({}, ("amount",)),
        ({"amount": 10.5}, ("amount",)),
        ({"amount": "100"}, ("amount",)),
        ({"amount": 2**63}, ("amount",)),
        ({"amount": 1, "points": 1}, ("points",)),
    ],
    ids=["missing", "float", "string", "2^63", "unknown field"],
)
def test_invalid_add_balance_requests(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(AddBalanceRequest, payload, loc)


def test_balance_result_wire_json_and_defaults() -> None:
    result = BalanceResult(
        amount=10000, total=20100, balance=20100, type="gift_voucher", related_object={"id": "v_1"}
    )
    assert result.model_dump(mode="json") == RESULT
    loyalty = variant(RESULT, {"type": "loyalty_card"})
    assert round_trip(BalanceResult, loyalty) == loyalty


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"type": "coupon"}, ("type",)),
        ({"operation_type": "AUTOMATIC"}, ("operation_type",)),
        ({"object": "wallet"}, ("object",)),
        ({"related_object.type": "campaign"}, ("related_object", "type")),
        ({"related_object.id": DELETE}, ("related_object", "id")),
        ({"total": 1.5}, ("total",)),
    ],
    ids=["type", "operation_type", "object", "related type", "related id", "total float"],
)
def test_invalid_balance_results(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(BalanceResult, variant(RESULT, changes), loc)
