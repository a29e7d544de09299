"""Publication response (with its voucher and customer) and the publish request."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.models import Customer, Publication, PublishRequest, Voucher

from ._support import (
    DELETE,
    assert_invalid_at,
    customer_payload,
    publication_payload,
    round_trip,
    variant,
    voucher_payload,
)


def test_publication_wire_json_keeps_null_source_id_and_omits_absent_tracking_id() -> None:
    payload = variant(publication_payload(), {"tracking_id": DELETE})
    dumped = Publication.model_validate(payload).model_dump(mode="json")
    assert dumped == payload
    assert dumped["source_id"] is None and "tracking_id" not in dumped


VALID_PUBLICATIONS = {
    "minimal": publication_payload(),
    "custom channel and source_id": variant(
        publication_payload(), {"channel": "myown", "source_id": "pub_src_1"}
    ),
    "customer summary passes through": variant(
        publication_payload(), {"customer.summary": {"orders": {}}, "customer.loyalty": {}}
    ),
    "gift voucher": variant(
        publication_payload(),
        {
            "voucher.type": "GIFT_VOUCHER",
            "voucher.discount": None,
            "voucher.gift": {"amount": 10000, "balance": 500, "effect": "APPLY_TO_ORDER"},
        },
    ),
    "voucher dates and validity": variant(
        publication_payload(),
        {
            "voucher.start_date": "2026-01-01T00:00:00.000Z",
            "voucher.expiration_date": "2026-02-01T00:00:00.000Z",
            "voucher.validity_timeframe": {"duration": "PT1H", "interval": "P2D"},
            "voucher.validity_day_of_week": [0, 6],
            "voucher.updated_at": "2026-01-02T00:00:00.000Z",
        },
    ),
    "percent voucher": variant(
        publication_payload(),
        {"voucher.discount": {"type": "PERCENT", "percent_off": 12.5, "effect": "APPLY_TO_ORDER"}},
    ),
}


@pytest.mark.parametrize("payload", VALID_PUBLICATIONS.values(), ids=VALID_PUBLICATIONS.keys())
def test_valid_publications_round_trip(payload: dict[str, Any]) -> None:
    assert round_trip(Publication, payload) == payload


INVALID_PUBLICATIONS: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("source_id missing (required, nullable)", {"source_id": DELETE}, ("source_id",)),
    ("channel missing", {"channel": DELETE}, ("channel",)),
    ("metadata missing", {"metadata": DELETE}, ("metadata",)),
    ("result other than SUCCESS", {"result": "FAILURE"}, ("result",)),
    ("object", {"object": "publish"}, ("object",)),
    ("vouchers_id not a list", {"vouchers_id": "v_01"}, ("vouchers_id",)),
    ("customer id missing", {"customer.id": DELETE}, ("customer", "id")),
    ("customer object", {"customer.object": "user"}, ("customer", "object")),
    ("voucher type unknown", {"voucher.type": "COUPON"}, ("voucher", "type")),
    (
        "voucher discount invalid",
        {"voucher.discount": {"type": "AMOUNT", "amount_off": -300}},
        ("voucher", "discount", "AMOUNT", "amount_off"),
    ),
    ("voucher active as string", {"voucher.active": "true"}, ("voucher", "active")),
    (
        "voucher is_referral_code missing",
        {"voucher.is_referral_code": DELETE},
        ("voucher", "is_referral_code"),
    ),
    ("voucher assets qr missing", {"voucher.assets.qr": DELETE}, ("voucher", "assets", "qr")),
    (
        "voucher day of week 7",
        {"voucher.validity_day_of_week": [7]},
        ("voucher", "validity_day_of_week", 0),
    ),
    (
        "voucher gift balance float",
        {"voucher.gift": {"amount": 1, "balance": 0.5}},
        ("voucher", "gift", "balance"),
    ),
    (
        "redemption quantity negative",
        {"voucher.redemption.quantity": -1},
        ("voucher", "redemption", "quantity"),
    ),
    (
        "redemption object",
        {"voucher.redemption.object": "redemption"},
        ("voucher", "redemption", "object"),
    ),
    (
        "redemption url absolute",
        {
            "voucher.redemption.url": "https://api.example.com/v1/vouchers/C/redemptions?page=1&limit=10"
        },
        ("voucher", "redemption", "url"),
    ),
    (
        "publish url without limit",
        {"voucher.publish.url": "/v1/vouchers/C/publications?page=1"},
        ("voucher", "publish", "url"),
    ),
    ("publish count float", {"voucher.publish.count": 1.0}, ("voucher", "publish", "count")),
    (
        "voucher created_at naive",
        {"voucher.created_at": "2026-01-01T00:00:00"},
        ("voucher", "created_at"),
    ),
]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [(c, loc) for _, c, loc in INVALID_PUBLICATIONS],
    ids=[n for n, _, _ in INVALID_PUBLICATIONS],
)
def test_invalid_publications_name_the_field(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(Publication, variant(publication_payload(), changes), loc)


def test_voucher_keeps_unset_values_as_null() -> None:
    dumped = Voucher.model_validate(variant(voucher_payload(), {"holder_id": DELETE})).model_dump(
        mode="json"
    )
    for key in (
        "category",
        "gift",
        "loyalty_card",
        "start_date",
        "expiration_date",
        "validity_timeframe",
        "validity_day_of_week",
        "additional_info",
        "updated_at",
    ):
        assert key in dumped and dumped[key] is None, key
    assert "holder_id" not in dumped


def test_customer_shown_fields_default_to_null() -> None:
    assert Customer(id="cust_1").model_dump(mode="json") == {
        "id": "cust_1",
        "name": None,
        "email": None,
        "source_id": None,
        "metadata": {},
        "object": "customer",
    }
    assert round_trip(Customer, customer_payload()) == customer_payload()


VALID_REQUESTS: dict[str, dict[str, Any]] = {
    "voucher by code, customer by source_id": {
        "voucher": "CODE1",
        "customer": {"source_id": "ann"},
    },
    "campaign by name, customer by id": {
        "campaign": {"name": "Spring"},
        "customer": {"id": "cust_1"},
    },
    "campaign by id": {
        "campaign": {"id": "camp_1"},
        "customer": {"id": "cust_1", "source_id": "ann"},
    },
    "both voucher and campaign": {
        "voucher": "CODE1",
        "campaign": {"name": "Spring"},
        "customer": {"source_id": "ann"},
    },
    "everything": {
        "voucher": "CODE1",
        "customer": {
            "source_id": "ann",
            "name": "Ann",
            "email": "ann@example.com",
            "metadata": {"lang": "en"},
        },
        "source_id": "pub_src_1",
        "metadata": {"year": 2026},
        "channel": "myown",
    },
}


@pytest.mark.parametrize("payload", VALID_REQUESTS.values(), ids=VALID_REQUESTS.keys())
def test_valid_publish_requests_round_trip(payload: dict[str, Any]) -> None:
    assert round_trip(PublishRequest, payload) == payload


INVALID_REQUESTS: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("neither voucher nor campaign", {"customer": {"source_id": "ann"}}, ("voucher",)),
    ("customer missing", {"voucher": "C"}, ("customer",)),
    (
        "customer without id or source_id",
        {"voucher": "C", "customer": {"name": "Ann"}},
        ("customer", "id"),
    ),
    ("customer empty", {"voucher": "C", "customer": {}}, ("customer", "id")),
    (
        "customer unknown field",
        {"voucher": "C", "customer": {"source_id": "a", "Name": "Ann"}},
        ("customer", "Name"),
    ),
    (
        "campaign without name or id",
        {"campaign": {}, "customer": {"source_id": "a"}},
        ("campaign", "name"),
    ),
    ("campaign as a string", {"campaign": "Spring", "customer": {"source_id": "a"}}, ("campaign",)),
    (
        "campaign count (multi-code publish is not in the interface)",
        {"campaign": {"name": "S", "count": 2}, "customer": {"source_id": "a"}},
        ("campaign", "count"),
    ),
    ("voucher empty", {"voucher": "", "customer": {"source_id": "a"}}, ("voucher",)),
    (
        "metadata not an object",
        {"voucher": "C", "customer": {"source_id": "a"}, "metadata": "x"},
        ("metadata",),
    ),
    (
        "unknown field",
        {"voucher": "C", "customer": {"source_id": "a"}, "join_once": True},
        ("join_once",),
    ),
]


@pytest.mark.parametrize(
    ("payload", "loc"),
    [(p, loc) for _, p, loc in INVALID_REQUESTS],
    ids=[n for n, _, _ in INVALID_REQUESTS],
)
def test_invalid_publish_requests_name_the_field(
    payload: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    assert_invalid_at(PublishRequest, payload, loc)
