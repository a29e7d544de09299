"""Custom event request and result."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.models import CustomEventRequest, CustomEventResult

from ._support import DELETE, assert_invalid_at, customer_payload, round_trip, variant

REQUEST = {"event": "cart_abandoned", "customer": {"source_id": "ann"}}

VALID_REQUESTS = {
    "minimal": REQUEST,
    "name of 1 char": REQUEST | {"event": "x"},
    "name of 300 chars": REQUEST | {"event": "e" * 300},
    "customer by id": REQUEST | {"customer": {"id": "cust_1"}},
    "referral with referrer": REQUEST | {"referral": {"code": "REF1", "referrer_id": "cust_2"}},
    "referral code only": REQUEST | {"referral": {"code": "REF1"}},
    "loyalty": REQUEST | {"loyalty": {"code": "L-CARD-1"}},
    "metadata": REQUEST | {"metadata": {"date": "2022-12-01", "flag": True, "number": 1}},
}


@pytest.mark.parametrize("payload", VALID_REQUESTS.values(), ids=VALID_REQUESTS.keys())
def test_valid_event_requests_round_trip(payload: dict[str, Any]) -> None:
    assert round_trip(CustomEventRequest, payload) == payload


INVALID_REQUESTS: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("event missing", {"customer": {"source_id": "a"}}, ("event",)),
    ("event empty", REQUEST | {"event": ""}, ("event",)),
    ("event 301 chars", REQUEST | {"event": "e" * 301}, ("event",)),
    ("customer missing", {"event": "e"}, ("customer",)),
    (
        "customer without id or source_id",
        REQUEST | {"customer": {"email": "a@b.c"}},
        ("customer", "id"),
    ),
    (
        "customer unknown field",
        REQUEST | {"customer": {"source_id": "a", "Name": "A"}},
        ("customer", "Name"),
    ),
    (
        "referral without code",
        REQUEST | {"referral": {"referrer_id": "cust_2"}},
        ("referral", "code"),
    ),
    ("loyalty without code", REQUEST | {"loyalty": {}}, ("loyalty", "code")),
    (
        "loyalty unknown field",
        REQUEST | {"loyalty": {"code": "L", "points": 5}},
        ("loyalty", "points"),
    ),
    ("unknown top-level field", REQUEST | {"type": "e"}, ("type",)),
]


@pytest.mark.parametrize(
    ("payload", "loc"),
    [(p, loc) for _, p, loc in INVALID_REQUESTS],
    ids=[n for n, _, _ in INVALID_REQUESTS],
)
def test_invalid_event_requests_name_the_field(
    payload: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    assert_invalid_at(CustomEventRequest, payload, loc)


RESULT = {
    "object": "event",
    "type": "cart_abandoned",
    "customer": customer_payload(),
    "referral": None,
    "loyalty": None,
    "metadata": {},
}


def test_event_result_wire_json() -> None:
    result = CustomEventResult(type="cart_abandoned", customer=customer_payload(), metadata={})
    assert result.model_dump(mode="json") == RESULT
    assert round_trip(CustomEventResult, RESULT) == RESULT


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"metadata": DELETE}, ("metadata",)),
        ({"object": "custom_event"}, ("object",)),
        ({"type": DELETE}, ("type",)),
        ({"customer.id": DELETE}, ("customer", "id")),
    ],
    ids=["metadata missing", "object", "type missing", "customer id missing"],
)
def test_invalid_event_results(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(CustomEventResult, variant(RESULT, changes), loc)
