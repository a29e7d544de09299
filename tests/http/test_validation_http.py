"""POST /v1/promotions/validation through the HTTP face and the typed client.

Raw httpx (in-process `SimulatorTransport`) where the status and bytes
matter: 200 for an empty result, 400 `invalid_payload` naming the field,
`invalid_query_params`, bracketed and JSON filters, audienceRulesOnly. Then the
client's `validate_promotions` in-process, and once against a served simulator.
The simulator-level behaviour is in tests/sim/test_validation_endpoint.py.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from demo_keys import APP, BASE
from promolab import ApiError, Simulator, models
from promolab.http import SimulatorTransport
from promolab.sim.operations.validation import VALIDATE

PATH = "/v1/promotions/validation"
BIG_CART = {"items": [{"product_id": "prod_grinder", "quantity": 1}, {"product_id": "prod_kettle", "quantity": 1},
                      {"product_id": "prod_mug", "quantity": 2}, {"product_id": "prod_beans_ethiopia", "quantity": 3}]}
ALICE = {"customer": {"source_id": "alice"}, "order": BIG_CART}


@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim), headers=APP)


def post(http: httpx.Client, body: Any, query: list[tuple[str, str]] | str = "") -> httpx.Response:
    url = PATH + ("?" + (query if isinstance(query, str) else urlencode(query)) if query else "")
    return http.post(url, json=body)


def in_process(sim: Simulator, request: dict[str, Any], **query: Any) -> models.ValidationResponse:
    """The operation's answer without HTTP, read as the typed client reads it."""
    return sim.apply(VALIDATE, request=request, **query).model()


def ids(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [p["id"] for p in response.json()["promotions"]]


def test_response_is_the_operation_result_as_json(sim: Simulator, http: httpx.Client) -> None:
    response = post(http, ALICE)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == sim.apply(VALIDATE, request=ALICE).wire
    body = response.json()
    assert list(body) == ["valid", "tracking_id", "promotions"]
    assert list(body["promotions"][0]) == [
        "valid", "applicable_to", "inapplicable_to", "tracking_id", "order", "id", "name", "banner", "discount",
        "campaign", "hierarchy", "discount_amount", "applied_discount_amount", "metadata", "object",
    ]


def test_nothing_applies_is_200_valid_false(http: httpx.Client) -> None:
    response = post(http, {"customer": {"source_id": "bob"}, "order": {"items": [{"product_id": "prod_filters", "quantity": 1}]}})
    assert response.status_code == 200
    assert response.json()["valid"] is False and response.json()["promotions"] == []


def test_no_body_at_all_is_200(http: httpx.Client) -> None:
    response = http.post(PATH)
    assert response.status_code == 200 and response.json()["valid"] is False


# --- audienceRulesOnly ----------------------------------------------------------------------------
MUG_BOB = {"customer": {"source_id": "bob"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}}


@pytest.mark.parametrize(("value", "audience_only"), [("true", True), ("TRUE", True), ("1", True), ("false", False), ("0", False)])
def test_audience_rules_only_query(http: httpx.Client, value: str, audience_only: bool) -> None:
    listed = ids(post(http, MUG_BOB, [("audienceRulesOnly", value)]))
    assert ("promo_welcome_10" in listed) is audience_only  # its order rule fails for a $12 cart
    assert "promo_vip_10pct" not in listed  # bob fails the customer rules either way


def test_audience_rules_only_must_be_a_boolean(http: httpx.Client) -> None:
    response = post(http, MUG_BOB, [("audienceRulesOnly", "yes")])
    assert response.status_code == 400 and response.json()["key"] == "invalid_query_params"


# --- filters ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param([("filters[promotion_id][conditions][$is]", "camp_vip")], ["promo_vip_10pct", "promo_vip_mug_5"],
                     id="bracketed-promotion_id-is"),
        pytest.param([("filters[promotion_id][conditions][$in]", "camp_welcome,camp_vip")],
                     ["promo_welcome_10", "promo_free_shipping", "promo_vip_10pct", "promo_vip_mug_5"],
                     id="bracketed-in-comma-list"),
        pytest.param([("filters[promotion_id][conditions][$in]", "camp_welcome"),
                      ("filters[promotion_id][conditions][$in]", "camp_vip")],
                     ["promo_welcome_10", "promo_free_shipping", "promo_vip_10pct", "promo_vip_mug_5"],
                     id="bracketed-in-repeated"),
        pytest.param([("filters[promotion_id][conditions][$is_not]", "camp_beans")],
                     ["promo_welcome_10", "promo_free_shipping", "promo_vip_10pct", "promo_vip_mug_5", "promo_kettle_10pct", "promo_kettle_filters"],
                     id="bracketed-is_not"),
        pytest.param([("filters[id][conditions][$is]", "promo_mug_3")], ["promo_mug_3"], id="bracketed-tier-id"),
        pytest.param([("filters[metadata.has_budget][conditions][$is]", "true")], ["promo_gear_split"],
                     id="bracketed-tier-metadata"),
        pytest.param([("filters[promotion_id][conditions][$is]", "camp_vip"),
                      ("filters[metadata.audience_restricted][conditions][$is]", "true"),
                      ("filters[id][conditions][$not_in]", "promo_vip_mug_5")], ["promo_vip_10pct"],
                     id="bracketed-several"),
        pytest.param([("filters", json.dumps({"promotion_id": {"conditions": {"$in": ["camp_vip"]}}}))],
                     ["promo_vip_10pct", "promo_vip_mug_5"], id="json-object"),
        pytest.param([("filters", json.dumps({"metadata.audience_restricted": {"conditions": {"$is_not": True}}}))],
                     ["promo_welcome_10", "promo_free_shipping", "promo_beans_15", "promo_beans_per_bag",
                      "promo_gear_split", "promo_merch_split", "promo_mug_3", "promo_kettle_10pct", "promo_kettle_filters"], id="json-is_not-bool"),
    ],
)
def test_filters_query(http: httpx.Client, query: list[tuple[str, str]], expected: list[str]) -> None:
    assert ids(post(http, ALICE, query)) == expected


def test_bracketed_and_json_filters_agree(sim: Simulator, http: httpx.Client) -> None:
    filters = {"promotion_id": {"conditions": {"$is_not": "camp_welcome"}}, "metadata.has_budget": {"conditions": {"$is": "false"}}}
    bracketed = post(http, ALICE, [("filters[promotion_id][conditions][$is_not]", "camp_welcome"),
                                   ("filters[metadata.has_budget][conditions][$is]", "false")])
    as_json = post(http, ALICE, [("filters", json.dumps(filters))])
    assert bracketed.json() == as_json.json() == sim.apply(VALIDATE, request=ALICE, filters=filters).wire
    assert ids(bracketed) == ["promo_beans_15", "promo_beans_per_bag", "promo_merch_split", "promo_mug_3",
                              "promo_vip_10pct", "promo_vip_mug_5", "promo_kettle_10pct", "promo_kettle_filters"]


@pytest.mark.parametrize(
    "query",
    [
        "filters[promotion_id][conditions][$starts_with]=camp",
        "filters[colour][conditions][$is]=red",
        "filters=not-json",
        "filters=[1,2]",
        "filters[promotion_id]]=x",
    ],
)
def test_bad_filters_are_400_invalid_query_params(sim: Simulator, http: httpx.Client, query: str) -> None:
    before = sim.snapshot()
    response = post(http, ALICE, query)
    assert response.status_code == 400
    body = response.json()
    assert body["key"] == "invalid_query_params" and body["request_id"]
    assert sim.snapshot() == before


# --- malformed bodies --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"order": {"items": [{"product_id": "prod_mug", "quantity": -2}]}}, ".order.items[0].quantity",
                     id="negative-quantity"),
        pytest.param({"order": {"items": [{"product_id": "prod_nope", "quantity": 1}]}}, ".order.items[0].price",
                     id="unknown-product-no-price"),
        pytest.param({"order": {"amount": 100.5}}, ".order.amount", id="non-integer-amount"),
        pytest.param({"order": {"items": [{"product_id": "prod_mug", "quantity": 1, "price": 9.99}]}},
                     ".order.items[0].price", id="float-price"),
        pytest.param({"order": {"items": {"0": {"product_id": "prod_mug", "quantity": 1}}}}, ".order.items",
                     id="items-not-an-array"),
        pytest.param({"customer": {"source_id": ""}}, ".customer.source_id", id="empty-source_id"),
        pytest.param({"customer": {"source_id": "alice"}, "cart": {}}, ".cart", id="unknown-field"),
        pytest.param({"options": {"expand": "category"}}, ".options.expand", id="expand-not-a-list"),
    ],
)
def test_malformed_body_is_400_invalid_payload_naming_the_field(
    sim: Simulator, http: httpx.Client, body: dict[str, Any], field: str
) -> None:
    before = sim.snapshot()
    response = post(http, body)
    assert response.status_code == 400, response.text
    error = response.json()
    assert (error["code"], error["key"]) == (400, "invalid_payload")
    assert f"Property {field}" in error["details"], error
    assert error["request_id"]
    assert sim.snapshot() == before


@pytest.mark.parametrize("raw", [b"{", b"[]", b'"text"', b"null"])
def test_a_body_that_is_not_an_object(sim: Simulator, http: httpx.Client, raw: bytes) -> None:
    response = http.post(PATH, content=raw, headers={"content-type": "application/json"})
    if raw == b"null":  # JSON null: no body, like an empty POST
        assert response.status_code == 200
    else:
        assert response.status_code == 400 and response.json()["key"] == "invalid_payload"


def test_wrong_credentials_are_401(sim: Simulator) -> None:
    http = httpx.Client(base_url=BASE, transport=SimulatorTransport(sim), headers={**APP, "X-App-Token": "nope"})
    assert post(http, ALICE).status_code == 401


# --- the typed client -------------------------------------------------------------------------
def test_client_validate_promotions_in_process(sim: Simulator) -> None:
    client = sim.client()
    typed = client.validate_promotions(customer={"source_id": "alice"}, order=BIG_CART)
    assert isinstance(typed, models.ValidationResponse)
    assert typed == in_process(sim, ALICE)
    assert [t.id for t in typed.promotions][:2] == ["promo_welcome_10", "promo_free_shipping"]
    welcome = typed.promotions[0]
    assert (welcome.order.amount, welcome.order.total_amount, welcome.discount_amount) == (22100, 21100, 1000)  # 8900 + 5400 + 2 x 1200 + 3 x 1800


def test_client_accepts_a_mapping_or_a_model(sim: Simulator) -> None:
    client = sim.client()
    as_mapping = client.validate_promotions(ALICE)
    as_model = client.validate_promotions(models.ValidationRequest.model_validate(ALICE))
    assert as_mapping == as_model


def test_client_audience_rules_only_and_filters(sim: Simulator) -> None:
    client = sim.client()
    typed = client.validate_promotions(
        customer={"source_id": "bob"}, order={"items": [{"product_id": "prod_mug", "quantity": 1}]},
        audience_rules_only=True, filters={"promotion_id": {"conditions": {"$in": ["camp_welcome", "camp_vip"]}}},
    )
    # order rules skipped (a $12 cart), bob's customer rules fail the two VIP tiers
    assert [t.id for t in typed.promotions] == ["promo_welcome_10", "promo_free_shipping", "promo_brew_bundle"]
    meta = client.validate_promotions(ALICE, filters={"metadata.has_budget": {"conditions": {"$is": True}}})
    assert [t.id for t in meta.promotions] == ["promo_gear_split"]


def test_client_expand_and_metadata(sim: Simulator) -> None:
    sim.advance(6 * 3600 + 60)  # 16:01, the app happy hour
    client = sim.client()
    request = {"order": {"items": [{"product_id": "prod_espresso_blend", "quantity": 2}]}, "options": {"expand": ["category"]}}
    without = client.validate_promotions(request)
    with_channel = client.validate_promotions({**request, "metadata": {"channel": "app"}})
    assert "promo_app_espresso" not in [t.id for t in without.promotions]
    (espresso,) = [t for t in with_channel.promotions if t.id == "promo_app_espresso"]
    assert (espresso.order.total_amount, espresso.discount_amount) == (2400, 600)


def test_client_raises_api_error_for_a_malformed_order(sim: Simulator) -> None:
    client = sim.client()
    with pytest.raises(ApiError) as caught:
        client.validate_promotions(order={"items": [{"product_id": "prod_mug", "quantity": -1}]})
    assert caught.value.status == 400 and caught.value.key == "invalid_payload"
    assert ".order.items[0].quantity" in (caught.value.error.details or "")


def test_async_client_validate_promotions(sim: Simulator) -> None:
    import anyio

    async def main() -> models.ValidationResponse:
        async with sim.async_client() as client:
            return await client.validate_promotions(ALICE)  # type: ignore[no-any-return]

    assert anyio.run(main) == in_process(sim, ALICE)


@pytest.mark.served
def test_client_against_a_served_simulator(served: Any, sim: Simulator) -> None:
    """Once over a real socket: same typed answer as in-process, same errors."""
    with served.client() as client:
        over_http = client.validate_promotions(
            customer={"source_id": "alice"}, order=BIG_CART,
            filters={"promotion_id": {"conditions": {"$is_not": "camp_beans"}}},
        )
        assert over_http == in_process(
            sim, ALICE, filters={"promotion_id": {"conditions": {"$is_not": "camp_beans"}}}
        )
        assert [t.id for t in over_http.promotions] == [
            "promo_welcome_10", "promo_free_shipping", "promo_vip_10pct", "promo_vip_mug_5",
            "promo_kettle_10pct", "promo_kettle_filters",
        ]
        with pytest.raises(ApiError) as caught:
            client.validate_promotions(order={"items": [{"product_id": "prod_nope", "quantity": 1}]})
        assert (caught.value.status, caught.value.key) == (400, "invalid_payload")
