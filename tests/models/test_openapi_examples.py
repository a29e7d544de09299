"""Every example of the OpenAPI subset either parses into its model and round-trips, or is
listed in REJECTED with the reason the interface (which wins) refuses it."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from promolab.models import (
    CustomEventRequest,
    CustomEventResult,
    ErrorBody,
    GiftBalanceAddedData,
    Incentive,
    Publication,
    PublishRequest,
    ValidationRequest,
    ValidationResponse,
    VoucherPublishList,
    VoucherRedemptionList,
)

from ._support import error_locs, openapi_documents, round_trip

PUBLISH = "core-v1 POST /client/v1/publish"
EVENTS = "core-v1 POST /v1/events"
VALIDATION = "core-v1 POST /v1/promotions/validation"
WEBHOOK_DELETE = "core-v1 DELETE /management/v1/projects/{projectId}/webhooks/{webhookId}"
GIFT_WEBHOOK = "webhooks-2024-01-01 EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED"


def all_examples() -> Iterator[tuple[str, Any]]:
    """(id, value) of every request/response example under paths and webhooks."""
    for doc_name, doc in openapi_documents().items():
        operations = [
            (f"{m.upper()} {p}", op)
            for p, item in doc.get("paths", {}).items()
            for m, op in item.items()
            if m != "parameters"
        ]
        operations += [(name, item["post"]) for name, item in doc.get("webhooks", {}).items()]
        for op_name, op in operations:
            bodies = [("request", op.get("requestBody", {}))]
            bodies += [(code, response) for code, response in op.get("responses", {}).items()]
            for where, body in bodies:
                examples = body.get("content", {}).get("application/json", {}).get("examples", {})
                for name, example in examples.items():
                    yield f"{doc_name} {op_name} {where} {name}", example["value"]


EXAMPLES = dict(all_examples())


def _quantities_as_ints(value: dict[str, Any]) -> dict[str, Any]:
    # The service accepts quantity "1" (its own examples send it); the model sends 1.
    normalised = copy.deepcopy(value)
    for item in normalised.get("order", {}).get("items", []):
        if isinstance(item.get("quantity"), str):
            item["quantity"] = int(item["quantity"])
    return normalised


#: example id -> (model, normalisation of the expected wire JSON, if any)
ACCEPTED: dict[str, tuple[type[BaseModel], Any]] = {
    f"{EVENTS} request Example": (CustomEventRequest, None),
    f"{EVENTS} request Referral triggered by custom event": (CustomEventRequest, None),
    f"{EVENTS} request Earning rule triggered by custom event": (CustomEventRequest, None),
    f"{EVENTS} 400 Invalid payload": (ErrorBody, None),
    f"{PUBLISH} 200 Example": (Publication, None),
    f"{PUBLISH} 400 Missing Parameters": (ErrorBody, None),
    f"{PUBLISH} 400 Already published": (ErrorBody, None),
    f"{PUBLISH} 400 Duplicate Source ID": (ErrorBody, None),
    f"{PUBLISH} 404 Campaign Not Found": (ErrorBody, None),
    f"{VALIDATION} request Example": (ValidationRequest, _quantities_as_ints),
    f"{VALIDATION} request Customer Rules Only": (ValidationRequest, _quantities_as_ints),
    f"{VALIDATION} request Campaign Specific": (ValidationRequest, _quantities_as_ints),
    f"{VALIDATION} request Promotion Tier Metadata": (ValidationRequest, _quantities_as_ints),
    f"{VALIDATION} 200 Customer Rules Only": (ValidationResponse, None),
    f"{VALIDATION} 200 Campaign specific": (ValidationResponse, None),
    f"{VALIDATION} 200 Promotion Tier Metadata": (ValidationResponse, None),
    f"{WEBHOOK_DELETE} 401 Unauthorized": (ErrorBody, None),
    f"{WEBHOOK_DELETE} 402 Example": (ErrorBody, None),
    f"{WEBHOOK_DELETE} 404 Not Found": (ErrorBody, None),
    f"{GIFT_WEBHOOK} request customer.voucher.gift.balance_added": (GiftBalanceAddedData, None),
}

#: example id -> (model, where it fails, why the interface refuses it)
REJECTED: dict[str, tuple[type[BaseModel], tuple[Any, ...], str]] = {
    f"{EVENTS} 200 Example": (
        CustomEventResult,
        ("metadata",),
        "lacks metadata, which the interface says the response schema requires",
    ),
    f"{PUBLISH} request Example - Specific Voucher": (
        PublishRequest,
        ("customer", "Name"),
        "customer.Name (capital N) is not a field; the interface names name and email",
    ),
    f"{PUBLISH} request Example - Random Voucher": (
        PublishRequest,
        ("campaign", "count"),
        (
            "campaign.count asks for several codes; the interface publishes one voucher "
            "(and it also sends customer.Name)"
        ),
    ),
    f"{PUBLISH} request Example 3": (
        PublishRequest,
        ("campaign",),
        (
            "campaign is a string (the interface's campaign is an object); its customer's "
            "phone/address/birthday/description are accepted as the real service's fields"
        ),
    ),
}


def test_every_example_is_classified() -> None:
    assert EXAMPLES, "no examples found in tests/data/voucherify-openapi-subset.json"
    assert set(EXAMPLES) == set(ACCEPTED) | set(REJECTED)
    assert not set(ACCEPTED) & set(REJECTED)


@pytest.mark.parametrize("example_id", list(ACCEPTED))
def test_accepted_example_round_trips(example_id: str) -> None:
    model, normalise = ACCEPTED[example_id]
    original = EXAMPLES[example_id]
    expected = normalise(original) if normalise else original
    assert round_trip(model, original) == expected


@pytest.mark.parametrize("example_id", list(REJECTED))
def test_rejected_example_fails_where_the_interface_disagrees(example_id: str) -> None:
    model, loc, _reason = REJECTED[example_id]
    assert loc in error_locs(model, EXAMPLES[example_id])


def _component_example(doc: str, *path: str) -> Any:
    node: Any = openapi_documents()[doc]["components"]
    for key in path:
        node = node[key]
    return node


def test_incentive_id_example_matches_the_pattern() -> None:
    example = _component_example("loyalties-v2", "parameters", "IncentiveId", "schema", "example")
    incentive = Incentive.model_validate(
        {
            "id": example,
            "name": "n",
            "type": "POINTS",
            "status": "ACTIVE",
            "stock": 1,
            "points": {"value": 1, "card_definition_id": "lcdef_1"},
            "created_at": "2026-01-01T00:00:00Z",
        }
    )
    assert incentive.id == example


def test_voucher_list_url_examples_are_accepted() -> None:
    props = _component_example("core-v1", "schemas", "VoucherBase", "properties")
    redemption_url = props["redemption"]["properties"]["url"]["example"]
    publish_url = props["publish"]["properties"]["url"]["example"]
    assert (
        VoucherRedemptionList(quantity=1, redeemed_quantity=0, url=redemption_url).url
        == redemption_url
    )
    assert VoucherPublishList(count=0, url=publish_url).url == publish_url
