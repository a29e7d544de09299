"""Reward (type decides material/digital), purchase request/result, card transactions."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.models import (
    CardTransaction,
    CardTransactionType,
    Reward,
    RewardPurchaseRequest,
    RewardPurchaseResult,
)

from ._support import (
    DELETE,
    TS,
    assert_invalid_at,
    card_transaction_payload,
    reward_payload,
    round_trip,
    variant,
)

DIGITAL = {"gift_vouchers": {"campaign_id": "camp_g", "balance": 500}}

VALID_REWARDS = {
    "material": reward_payload(),
    "material sku": variant(
        reward_payload(), {"material": {"sku": {"product_id": "p", "id": "s"}}}
    ),
    "digital": variant(
        reward_payload(), {"type": "DIGITAL", "material": DELETE, "digital": DIGITAL}
    ),
    "deleted, updated": variant(reward_payload(), {"status": "DELETED", "updated_at": TS}),
    "inactive": variant(reward_payload(), {"status": "INACTIVE"}),
    "draft with metadata": variant(reward_payload(), {"status": "DRAFT", "metadata": {"a": 1}}),
}


@pytest.mark.parametrize("payload", VALID_REWARDS.values(), ids=VALID_REWARDS.keys())
def test_valid_rewards_round_trip(payload: dict[str, Any]) -> None:
    assert round_trip(Reward, payload) == payload


INVALID_REWARDS = [
    ("type unknown", {"type": "COIN"}, ("type",)),
    ("status unknown", {"status": "ARCHIVED"}, ("status",)),
    ("metadata missing", {"metadata": DELETE}, ("metadata",)),
    ("updated_at missing (required, nullable)", {"updated_at": DELETE}, ("updated_at",)),
    ("object", {"object": "incentive"}, ("object",)),
    ("MATERIAL without material", {"material": DELETE}, ("material",)),
    ("MATERIAL with digital", {"digital": DIGITAL}, ("digital",)),
    ("DIGITAL without digital", {"type": "DIGITAL"}, ("digital",)),
    ("DIGITAL with material", {"type": "DIGITAL", "digital": DIGITAL}, ("material",)),
    ("material both", {"material.sku": {"product_id": "p", "id": "s"}}, ("material", "sku")),
    (
        "digital neither",
        {"type": "DIGITAL", "material": DELETE, "digital": {}},
        ("digital", "discount_coupons"),
    ),
]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [(c, loc) for _, c, loc in INVALID_REWARDS],
    ids=[n for n, _, _ in INVALID_REWARDS],
)
def test_invalid_rewards_name_the_field(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(Reward, variant(reward_payload(), changes), loc)


def test_deleted_reward_wire_json() -> None:
    reward = Reward.model_validate(variant(reward_payload(), {"status": "DELETED"}))
    assert reward.model_dump(mode="json") == {
        "id": "lrew_01",
        "name": "Mug",
        "type": "MATERIAL",
        "status": "DELETED",
        "material": {"product": {"id": "prod_mug"}},
        "metadata": {},
        "created_at": TS,
        "updated_at": None,
        "object": "reward",
    }


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({}, ("reward_id",)),
        ({"reward_id": ""}, ("reward_id",)),
        ({"reward_id": 5}, ("reward_id",)),
        ({"reward_id": "lrew_1", "points": 5}, ("points",)),
    ],
    ids=["missing", "empty", "not a string", "extra field"],
)
def test_purchase_request_rules(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(RewardPurchaseRequest, payload, loc)


def test_purchase_request_wire_json() -> None:
    assert RewardPurchaseRequest(reward_id="lrew_1").model_dump(mode="json") == {
        "reward_id": "lrew_1"
    }


def test_purchase_result_with_pending_transaction_wire_json() -> None:
    result = RewardPurchaseResult.model_validate(
        {
            "status": "TRANSACTION_CREATED",
            "message": "Points spent on reward transaction created",
            "transaction": card_transaction_payload(),
        }
    )
    assert result.model_dump(mode="json")["transaction"] == {
        "id": "lctx_01",
        "card_id": "lcrd_01",
        "program_id": "lprg_01",
        "member_id": "lmbr_01",
        "card_definition_id": "lcdef_01",
        "card_type": "POINTS",
        "type": "POINTS_SPENT_ON_REWARD",
        # reason and updated_at have no value: left out, never null (the interface
        # types them as a string and a date-time)
        "details": {"metadata": {}, "reward_id": "lrew_01"},
        "status": "PENDING",
        "created_at": TS,
    }


def test_no_spent_result_has_no_transaction_key() -> None:
    # The interface types `transaction` as an object: no transaction, no key.
    result = RewardPurchaseResult(status="NO_SPENT_ON_REWARD", message="granted")
    assert result.model_dump(mode="json") == {"status": "NO_SPENT_ON_REWARD", "message": "granted"}
    parsed = RewardPurchaseResult.model_validate({"status": "NO_SPENT_ON_REWARD", "message": "m", "transaction": None})
    assert parsed.transaction is None  # a real deployment's null still parses


#: (case, changes to a card transaction, path of a field) of every field the interface
#: types as a plain value but a real deployment may send as null: parsed, then left out
#: of the wire JSON.
NON_NULLABLE_ON_THE_WIRE = [
    ("transaction updated_at", {"updated_at": None}, ("updated_at",)),
    ("details reason", {"details.reason": None}, ("details", "reason")),
    *(
        (f"points {name}", {"details.points": {"total": 5, name: None}}, ("details", "points", name))
        for name in ("expiration_date", "expiration_type", "date", "type")
    ),
]


@pytest.mark.parametrize(
    ("changes", "path"),
    [case[1:] for case in NON_NULLABLE_ON_THE_WIRE],
    ids=[case[0] for case in NON_NULLABLE_ON_THE_WIRE],
)
def test_fields_without_value_are_left_out(changes: dict[str, Any], path: tuple[str, ...]) -> None:
    parsed = CardTransaction.model_validate(variant(card_transaction_payload(), changes))
    wire = parsed.model_dump(mode="json")
    parent = wire
    for key in path[:-1]:
        parent = parent[key]
    assert path[-1] not in parent, wire


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({"status": "DONE", "message": "m"}, ("status",)),
        ({"status": "TRANSACTION_CREATED", "message": "m"}, ("transaction",)),
        ({"status": "NO_SPENT_ON_REWARD"}, ("message",)),
    ],
    ids=["status unknown", "created without transaction", "message missing"],
)
def test_purchase_result_rules(payload: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(RewardPurchaseResult, payload, loc)


def test_transaction_type_enum_is_the_openapi_one() -> None:
    assert {t.value for t in CardTransactionType} == {
        "ADMIN_CREDIT",
        "ADMIN_DEBIT",
        "ADMIN_POINTS_EXPIRATION",
        "POINTS_EARNED",
        "POINTS_SPENT_ON_REWARD",
        "POINTS_REFUNDED",
        "POINTS_RETURNED",
        "POINTS_EXPIRED",
        "PENDING_POINTS_ADDED",
        "PENDING_POINTS_ACTIVATED",
        "PENDING_POINTS_CANCELED",
    }


def test_rejected_transaction_round_trips_with_points_and_rejection() -> None:
    payload = variant(
        card_transaction_payload(),
        {
            "status": "REJECTED",
            "updated_at": "2026-01-01T00:00:02.000Z",
            "details.reason": "Reward purchase: mug",
            "details.rejection": {"reason": "insufficient_card_balance", "details": "need 50 more"},
            "details.points": {"total": -100, "date": "2026-01-01"},
            "details.result": {"granted": False},
        },
    )
    assert round_trip(CardTransaction, payload) == payload


INVALID_TRANSACTIONS = [
    ("type unknown", {"type": "POINTS_SPENT"}, ("type",)),
    ("status unknown", {"status": "SIMULATED"}, ("status",)),
    ("card_id missing", {"card_id": DELETE}, ("card_id",)),
    ("details missing", {"details": DELETE}, ("details",)),
    (
        "rejection without reason",
        {"details.rejection": {"details": "x"}},
        ("details", "rejection", "reason"),
    ),
    ("points total float", {"details.points": {"total": 1.5}}, ("details", "points", "total")),
    ("points total 2^63", {"details.points": {"total": 2**63}}, ("details", "points", "total")),
    (
        "points date not a date",
        {"details.points": {"total": 1, "date": "soon"}},
        ("details", "points", "date"),
    ),
    ("created_at naive", {"created_at": "2026-01-01T00:00:00"}, ("created_at",)),
]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [(c, loc) for _, c, loc in INVALID_TRANSACTIONS],
    ids=[n for n, _, _ in INVALID_TRANSACTIONS],
)
def test_invalid_transactions_name_the_field(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(CardTransaction, variant(card_transaction_payload(), changes), loc)
