"""Webhook envelope (2024-01-01) and the gift-balance-added payload."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from promolab.models import (
    GIFT_BALANCE_ADDED,
    GIFT_BALANCE_ADDED_EVENT_TYPE,
    WEBHOOK_VERSION,
    GiftBalanceAddedData,
    WebhookEnvelope,
)

from ._support import DELETE, assert_invalid_at, openapi_documents, round_trip, variant


def gift_data() -> dict[str, Any]:
    """The payload example of the OpenAPI webhooks document (a fresh copy)."""
    webhook = openapi_documents()["webhooks-2024-01-01"]["webhooks"][GIFT_BALANCE_ADDED]["post"]
    examples = webhook["requestBody"]["content"]["application/json"]["examples"]
    return copy.deepcopy(examples["customer.voucher.gift.balance_added"]["value"])


def envelope(data: dict[str, Any] | None = None) -> dict[str, Any]:
    """An envelope assembled from the property examples of WebhookDistributionPayload."""
    return {
        "id": "whs_0e16e42bc6e0c65b57",
        "project_id": "proj_5T4Rpl4T1nuM",
        "created_at": "2024-01-01T11:11:11.111Z",
        "type": "customer.voucher.gift.balance_added",
        "data": gift_data() if data is None else data,
        "source": {
            "id": "distr_TrJj0lHV44EMt6HvLa2pyNlHTF",
            "object": "distribution",
            "target_url": "https://example.com/hook",
        },
        "event": {
            "id": "evred_1f3611301g3127begb",
            "type": GIFT_BALANCE_ADDED_EVENT_TYPE,
            "created_at": "2024-01-01T11:11:11.111Z",
            "entity_id": "r_1f3611302bf107befb",
            "group_id": "v-1f36113948e50fc4ge",
            "event_source": {"channel": "API", "api_key": {"name": "server", "app_id": "1XXXX5XX"}},
        },
    }


def test_constants() -> None:
    assert GIFT_BALANCE_ADDED == "EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED"
    assert WEBHOOK_VERSION == "2024-01-01"
    assert openapi_documents()["webhooks-2024-01-01"]["info"]["version"] == WEBHOOK_VERSION


def test_gift_envelope_is_typed_and_round_trips() -> None:
    parsed = WebhookEnvelope.model_validate(envelope())
    assert isinstance(parsed.data, GiftBalanceAddedData)
    assert round_trip(WebhookEnvelope, envelope()) == envelope()


def test_other_events_keep_untyped_data() -> None:
    payload = variant(
        envelope({"order": {"id": "ord_1"}}),
        {"event.type": "customer.order.paid", "source.object": "webhook"},
    )
    parsed = WebhookEnvelope.model_validate(payload)
    assert parsed.data == {"order": {"id": "ord_1"}}
    assert round_trip(WebhookEnvelope, payload) == payload


VALID_SOURCES = [
    {"channel": "USER_PORTAL", "user": {"id": "user_1"}},
    {"channel": "CLIENT_API"},
    {"channel": "INTERNAL"},
]


@pytest.mark.parametrize("event_source", VALID_SOURCES, ids=lambda s: s["channel"])
def test_event_sources(event_source: dict[str, Any]) -> None:
    payload = variant(envelope(), {"event.event_source": event_source, "event.entity_id": DELETE})
    assert round_trip(WebhookEnvelope, payload) == payload


INVALID_ENVELOPES: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("project_id missing", {"project_id": DELETE}, ("project_id",)),
    ("created_at naive", {"created_at": "2024-01-01T11:11:11"}, ("created_at",)),
    ("source object", {"source.object": "campaign"}, ("source", "object")),
    ("source target_url missing", {"source.target_url": DELETE}, ("source", "target_url")),
    ("event group_id missing", {"event.group_id": DELETE}, ("event", "group_id")),
    (
        "event channel unknown",
        {"event.event_source.channel": "EMAIL"},
        ("event", "event_source", "channel"),
    ),
    (
        "api key without app_id",
        {"event.event_source.api_key": {"name": "k"}},
        ("event", "event_source", "api_key", "app_id"),
    ),
    # a gift event must carry a valid gift payload, located under data
    ("gift data without customer", {"data.customer": DELETE}, ("data", "customer")),
    ("gift balance amount float", {"data.balance.amount": 4.0}, ("data", "balance", "amount")),
    (
        "gift transaction type unknown",
        {"data.transaction.type": "CREDITS_GIFT"},
        ("data", "transaction", "type"),
    ),
]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [(c, loc) for _, c, loc in INVALID_ENVELOPES],
    ids=[n for n, _, _ in INVALID_ENVELOPES],
)
def test_invalid_envelopes_name_the_field(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert_invalid_at(WebhookEnvelope, variant(envelope(), changes), loc)


INVALID_DATA: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("balance type", {"balance.type": "coupon"}, ("balance", "type")),
    ("balance object", {"balance.object": "wallet"}, ("balance", "object")),
    (
        "balance related type",
        {"balance.related_object.type": "campaign"},
        ("balance", "related_object", "type"),
    ),
    (
        "operation type unknown",
        {"transaction.details.balance.operation_type": "BATCH"},
        ("transaction", "details", "balance", "operation_type"),
    ),
    (
        "transaction source_id missing (required, nullable)",
        {"transaction.source_id": DELETE},
        ("transaction", "source_id"),
    ),
    ("voucher code missing", {"voucher.code": DELETE}, ("voucher", "code")),
    ("voucher type unknown", {"voucher.type": "GIFT"}, ("voucher", "type")),
    ("voucher gift balance negative", {"voucher.gift.balance": -1}, ("voucher", "gift", "balance")),
    (
        "voucher redemption quantity missing",
        {"voucher.redemption.quantity": DELETE},
        ("voucher", "redemption", "quantity"),
    ),
    ("campaign type unknown", {"campaign.type": "DYNAMIC"}, ("campaign", "type")),
    (
        "campaign code_config missing",
        {"campaign.voucher.code_config": DELETE},
        ("campaign", "voucher", "code_config"),
    ),
    ("customer object", {"customer.object": "person"}, ("customer", "object")),
]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [(c, loc) for _, c, loc in INVALID_DATA],
    ids=[n for n, _, _ in INVALID_DATA],
)
def test_invalid_gift_payloads_name_the_field(
    changes: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    assert_invalid_at(GiftBalanceAddedData, variant(gift_data(), changes), loc)


def test_balance_operation_type_is_omitted_when_unset_and_kept_when_set() -> None:
    dumped = GiftBalanceAddedData.model_validate(gift_data()).model_dump(mode="json")
    assert "operation_type" not in dumped["balance"]
    assert dumped["transaction"]["details"]["balance"]["operation_type"] == "MANUAL"
    assert (
        dumped["campaign"]["category"] is None
        and dumped["transaction"]["related_transaction_id"] is None
    )
