"""An order line's `product` / `sku` in an answer fits the answer's own schema.

A line may name its product or SKU by `source_id` with `related_object`
only; when the catalogue does not know that source id, the answer echoes
`{"source_id": ...}` as the line's `product` or `sku` (there is no id to
give). That shape was outside `OrderItemProduct` / `OrderItemSku` (id
required), so a client parsing the answer with the models failed, on every
route that prices an order (issue 34, item 3). Each route and each way of
naming a line is checked three ways: the endpoint's response model parses
the answer, `/openapi.json`'s schema for it accepts it, and the line's
reference is exactly what the catalogue says (or the echo).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from demo_keys import APP, BASE
from promolab import Simulator
from promolab.http import SimulatorTransport
from promolab.models import endpoints

#: (label, the line as sent, the key its reference is under, the reference expected)
LINES: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    ("unknown sku by source_id", {"source_id": "sku-nowhere", "related_object": "sku"}, "sku",
     {"source_id": "sku-nowhere"}),
    ("unknown product by source_id", {"source_id": "prod-nowhere", "related_object": "product"}, "product",
     {"source_id": "prod-nowhere"}),
    ("known sku by source_id", {"source_id": "ethiopia-1kg", "related_object": "sku"}, "sku",
     {"id": "sku_ethiopia_1000", "source_id": "ethiopia-1kg", "sku": "1 kg", "price": 6200}),
    ("known product by source_id", {"source_id": "kettle", "related_object": "product"}, "product",
     {"id": "prod_kettle", "source_id": "kettle", "name": "Gooseneck kettle", "price": 5400}),
]

#: (endpoint, body without its order): every route that prices an order and answers with it.
ROUTES: list[tuple[endpoints.Endpoint[Any], dict[str, Any]]] = [
    (endpoints.VALIDATE_STACKED, {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}]}),
    (endpoints.REDEEM_STACKED, {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}]}),
    (endpoints.VALIDATE, {"customer": {"source_id": "alice"}}),
    (endpoints.QUALIFICATIONS, {"customer": {"source_id": "alice"}}),
]


@pytest.fixture(scope="module")
def document(demo_path: Any) -> dict[str, Any]:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(Simulator.from_scenario(demo_path))) as client:
        served: dict[str, Any] = client.get("/openapi.json").json()
    return served


def _schema_errors(document: dict[str, Any], endpoint: endpoints.Endpoint[Any], answer: Any) -> list[str]:
    schema = document["paths"][endpoint.path][endpoint.method.lower()]["responses"][str(endpoint.status)]
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": document["components"],
            **schema["content"]["application/json"]["schema"]}
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft202012Validator(root).iter_errors(answer)]


def _orders_of(answer: Any) -> list[dict[str, Any]]:
    """Every order object in the answer (top level, per redeemable, per promotion)."""
    found: list[dict[str, Any]] = []
    stack = [answer]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("object") == "order":
                found.append(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


@pytest.mark.parametrize(("endpoint", "body"), ROUTES, ids=[e.name for e, _ in ROUTES])
@pytest.mark.parametrize(("label", "line", "key", "reference"), LINES, ids=[case[0] for case in LINES])
def test_a_line_named_by_source_id_comes_back_in_the_answers_schema(
    sim: Simulator, document: dict[str, Any], endpoint: endpoints.Endpoint[Any], body: dict[str, Any],
    label: str, line: dict[str, Any], key: str, reference: dict[str, Any],
) -> None:
    order = {"items": [{**line, "quantity": 2, "price": 3000}]}
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(sim)) as client:
        response = client.post(endpoint.path, headers=APP, json={**body, "order": order})
    assert response.status_code == endpoint.status, response.text
    answer = response.json()
    assert endpoint.response is not None
    endpoint.response.model_validate(answer)  # the client's parse of the answer
    assert _schema_errors(document, endpoint, answer) == []
    orders = _orders_of(answer)
    assert orders, f"{endpoint.name}: no order in the answer to look at"
    for priced in orders:
        named = [item for item in priced["items"] if (item.get(key) or {}).get("source_id") == line["source_id"]]
        assert len(named) == 1, priced["items"]
        assert named[0][key] == reference
        if "id" not in reference:  # an unknown SKU has no product to name, an unknown product no SKU
            assert ("product" if key == "sku" else "sku") not in named[0]
