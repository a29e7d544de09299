"""The catalogue and segment read endpoints, and the list machinery under them.

- every answer parses with promolab's model (through the client) and
  validates against the service's published schema (tests/data/), and the
  published examples parse with promolab's models;
- paging: for any limit and order, walking the pages meets every object
  exactly once, `total` counts them all, a page past the end is empty;
- ordering by creation time, both ways, ties kept in the state's order;
  filters (`start_date`/`end_date`, the `starting_after` cursor);
- refusals: bad query values are 400 `invalid_query_params` naming the
  parameter, over HTTP and in process alike, and change nothing; unknown
  ids are 404; `/openapi.json` states the bounds the refusals check.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.client import ApiError
from promolab.http import SimulatorTransport
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME
from promolab.sim.records import Collection

REFERENCE = Path(__file__).parents[1] / "data" / "voucherify-openapi-reads.json"
START = datetime(2026, 3, 6, 10, 0, tzinfo=UTC)


def _as_2020_12(schema: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as JSON Schema says it (a null is one more type)."""
    if isinstance(schema, list):
        return [_as_2020_12(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _as_2020_12(value) for key, value in schema.items() if key != "nullable"}
    if schema.get("nullable") is True:
        if "type" in converted:
            converted["type"] = [converted["type"], "null"]
            if "enum" in converted:
                converted["enum"] = [*converted["enum"], None]
        else:
            converted = {"anyOf": [converted, {"type": "null"}]}
    return converted


@cache
def reference() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(REFERENCE.read_text(encoding="utf-8"))
    document["components"] = _as_2020_12(document["components"])
    for entry in document["paths"].values():
        entry["schema"] = _as_2020_12(entry["schema"])
    return document


def reference_errors(path: str, answer: Any) -> list[str]:
    """Where `answer` breaks the service's schema of `GET path`'s 200 answer."""
    root = {"components": reference()["components"], **reference()["paths"][path]["schema"]}
    found = Draft202012Validator(root).iter_errors(answer)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    """The demo simulator over its in-process HTTP face (no keys: each call sends APP)."""
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim))


def assert_documented(sim: Simulator, template: str, path: str, model: type[models.WireModel]) -> None:
    """`GET path` answers 200 with what the service's schema of `template`
    allows, and promolab's model parses it without losing or adding a field."""
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(sim)) as http:
        response = http.get(path, headers=APP)
    assert response.status_code == 200, response.text
    problems = reference_errors(template, response.json())
    assert not problems, problems
    assert model.model_validate_json(response.content).model_dump(mode="json") == response.json()


def assert_examples_parse(template: str, model: type[models.WireModel]) -> None:
    """Each published example of `template`'s answer parses with `model`, keeping its kind, id and total."""
    examples = reference()["paths"][template]["examples"]
    assert examples
    for name, example in examples.items():
        parsed = model.model_validate(example).model_dump(mode="json", exclude_unset=True)
        assert (parsed["object"], parsed.get("id"), parsed.get("total")) == (
            example["object"], example.get("id"), example.get("total")), name


def assert_refused(sim: Simulator, http: httpx.Client, path: str, param: str) -> None:
    """`GET path` is 400 `invalid_query_params` naming `param`, and changes nothing."""
    before = sim.dump_json()
    response = http.get(path, headers=APP)
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["code"], body["key"]) == (400, "invalid_query_params")
    assert f"Query parameter {param} " in body["details"]
    assert sim.dump_json() == before


def catalogue_sim(count: int, skus_per_product: int = 0) -> Simulator:
    """`count` products (and SKUs), each created a minute after the one
    before, except every third, which ties with the one before it."""
    products = [{"id": f"prod_{i:05d}", "source_id": f"p-{i}", "name": f"Product {i}", "price": 100 + i,
                 "skus": [{"id": f"sku_{i:05d}_{j}", "sku": f"size {j}", "price": 100 + j}
                          for j in range(skus_per_product)]} for i in range(count)]
    sim = Simulator.from_scenario({"catalogue": {"products": products}})
    stagger(sim.state.products.values())
    return sim


def stagger(records: Iterable[Any]) -> None:
    """Each record created a minute after the one before, except every third, which ties with the one before it."""
    minute = 0
    for i, record in enumerate(records):
        minute += 0 if i % 3 == 2 else 1
        record.created_at = START + timedelta(minutes=minute)


# -- every answer against the published schema ------------------------------------------------------
#: (template path, concrete path, our model)
ANSWERS: list[tuple[str, str, type[models.WireModel]]] = [
    ("/v1/products", "/v1/products?limit=3", models.ProductList),
    ("/v1/products/{productId}", "/v1/products/prod_beans_ethiopia", models.Product),
    ("/v1/products/{productId}/skus", "/v1/products/beans-colombia/skus", models.SkuList),
    ("/v1/skus/{skuId}", "/v1/skus/sku_colombia_1000", models.Sku),
    ("/v1/product-collections", "/v1/product-collections", models.ProductCollectionList),
    ("/v1/product-collections/{productCollectionId}/products", "/v1/product-collections/pc_beans/products",
     models.CollectionProductList),
    ("/v1/customers/{customerId}/segments", "/v1/customers/cust_alice/segments", models.CustomerSegmentList),
    ("/v1/segments/{segmentId}", "/v1/segments/seg_newsletter", models.Segment),
]


@pytest.mark.parametrize(("template", "path", "model"), ANSWERS, ids=[a[0] for a in ANSWERS])
def test_an_answer_parses_and_is_what_the_service_documents(
    sim: Simulator, template: str, path: str, model: type[models.WireModel]
) -> None:
    assert_documented(sim, template, path, model)


@pytest.mark.parametrize(("template", "model"), [(a[0], a[2]) for a in ANSWERS], ids=[a[0] for a in ANSWERS])
def test_the_published_examples_parse_with_our_models(template: str, model: type[models.WireModel]) -> None:
    assert_examples_parse(template, model)


def test_the_answer_keeps_the_services_field_order(sim: Simulator) -> None:
    product = reference()["paths"]["/v1/products"]["examples"]["Example"]["products"][1]
    with sim.client() as client:
        ours = client.get_product("prod_mug").model_dump(mode="json")
    assert list(ours) == list(product)
    assert list(ours["skus"]) == ["object", "data_ref", "data", "total"]


# -- paging, ordering, filters ------------------------------------------------------------------------
WALKED = catalogue_sim(230)


@settings(max_examples=40, deadline=None)
@given(limit=st.integers(1, 100), order=st.sampled_from(["created_at", "-created_at", "updated_at", None]))
def test_walking_the_pages_meets_every_product_once(limit: int, order: str | None) -> None:
    """Up to the last page the bounds allow (page 100): with a limit under 3,
    230 products need more pages than that, and the walk meets the first 100 pages' worth."""
    seen: list[str] = []
    page = 1
    while page <= 100:
        answer = WALKED.apply(BY_NAME["list_products"], limit=limit, page=page, order=order)
        assert answer.total == 230
        if not answer.products:
            break
        assert len(answer.products) <= limit
        seen += [p.id for p in answer.products]
        page += 1
    assert len(seen) == len(set(seen)) == min(230, 100 * limit)
    assert set(seen) <= set(WALKED.state.products)
    if limit >= 3:
        assert page == -(-230 // limit) + 1  # the first empty page is the one past the last


@settings(max_examples=40, deadline=None)
@given(limit=st.integers(1, 100), page=st.integers(1, 100))
def test_any_page_is_the_slice_of_the_whole_order(limit: int, page: int) -> None:
    everything = [p.id for p in WALKED.apply(BY_NAME["list_products"], limit=100, page=1, order="created_at").products]
    everything += [p.id for p in WALKED.apply(BY_NAME["list_products"], limit=100, page=2, order="created_at").products]
    everything += [p.id for p in WALKED.apply(BY_NAME["list_products"], limit=100, page=3, order="created_at").products]
    answer = WALKED.apply(BY_NAME["list_products"], limit=limit, page=page, order="created_at")
    assert [p.id for p in answer.products] == everything[(page - 1) * limit:page * limit]


def test_descending_is_the_exact_reverse_and_ties_keep_the_states_order() -> None:
    sim = catalogue_sim(7)
    up = [p.id for p in sim.apply(BY_NAME["list_products"], order="created_at").products]
    down = [p.id for p in sim.apply(BY_NAME["list_products"], order="-created_at").products]
    default = [p.id for p in sim.apply(BY_NAME["list_products"]).products]
    assert up == list(sim.state.products)  # the times rise (or tie) in the state's order
    assert down == up[::-1] == default  # newest first by default
    times = [sim.state.products[pid].created_at for pid in up]
    assert times == sorted(times) and len(set(times)) < len(times)  # there are ties to keep


def test_the_default_page_is_ten() -> None:
    answer = catalogue_sim(25).apply(BY_NAME["list_products"])
    assert (len(answer.products), answer.total) == (10, 25)


DATED = catalogue_sim(6)  # minutes 1, 2, 2, 3, 4, 4


@pytest.mark.parametrize(("start", "end", "expected"), [
    ("2026-03-06T10:02:00Z", None, ["prod_00001", "prod_00002", "prod_00003", "prod_00004", "prod_00005"]),
    (None, "2026-03-06T10:02:00.000Z", ["prod_00000", "prod_00001", "prod_00002"]),
    ("2026-03-06T10:02:00Z", "2026-03-06T10:03:00Z", ["prod_00001", "prod_00002", "prod_00003"]),
    ("2026-03-06T12:02:00+02:00", "2026-03-06T10:02:00Z", ["prod_00001", "prod_00002"]),  # an offset is read
    ("2026-03-06T11:00:00Z", None, []),
])
def test_created_between_filters_and_total_counts_the_matches(
    start: str | None, end: str | None, expected: list[str]
) -> None:
    answer = DATED.apply(BY_NAME["list_products"], start_date=start, end_date=end, order="created_at", limit=2)
    assert answer.total == len(expected)
    assert [p.id for p in answer.products] == expected[:2]


def test_the_collection_cursor_is_strictly_after_the_instant() -> None:
    sim = catalogue_sim(6)
    sim.state.collections["pc_all"] = Collection(id="pc_all", name="All", products=list(sim.state.products),
                                                 created_at=START)
    after = sim.apply(BY_NAME["list_collection_products"], collection_id="pc_all",
                      starting_after="2026-03-06T10:02:00Z", order="created_at")
    assert [m.id for m in after.data] == ["prod_00003", "prod_00004", "prod_00005"]
    assert after.total == 3


def test_a_collection_lists_its_products_then_its_skus_with_their_product(sim: Simulator) -> None:
    sim.state.collections["pc_beans"].skus.append("sku_colombia_250")
    with sim.client() as client:
        members = client.list_collection_products("pc_beans", limit=100)
        (collection,) = [c for c in client.list_product_collections().data if c.id == "pc_beans"]
    assert members.total == 4
    sku = next(m for m in members.data if isinstance(m, models.CollectionSku))
    assert (sku.id, sku.product.id) == ("sku_colombia_250", "prod_beans_colombia")
    assert [(i.id, i.object, i.product_id) for i in collection.products][-1] == (
        "sku_colombia_250", "sku", "prod_beans_colombia")


def test_a_customer_found_by_source_id_and_only_their_segments(sim: Simulator) -> None:
    with sim.client() as client:
        assert [s.id for s in client.list_customer_segments("carol").data] == ["seg_newsletter"]
        assert client.list_customer_segments("cust_erin").total == 0
        assert client.get_segment("seg_vip").model_dump(mode="json") == {
            "id": "seg_vip", "name": "VIP customers", "type": "static", "filter": None, "object": "segment"}


# -- refusals ---------------------------------------------------------------------------------------
#: query string -> the parameter the 400 must name
BAD_QUERIES = [
    ("limit=0", "limit"), ("limit=101", "limit"), ("limit=-1", "limit"), ("limit=ten", "limit"),
    ("limit=", "limit"), ("limit=1.5", "limit"), ("page=0", "page"), ("page=-1", "page"), ("page=101", "page"),
    ("order=name", "order"), ("order=code", "order"), ("order=", "order"), ("order=created_at,-created_at", "order"),
    ("start_date=yesterday", "start_date"), ("start_date=2026-03-06", "start_date"),
    ("end_date=2026-03-06T10:00:00", "end_date"), ("end_date=2026-02-30T10:00:00Z", "end_date"),
]


@pytest.mark.parametrize(("query", "param"), BAD_QUERIES)
def test_a_bad_query_is_400_naming_the_parameter(sim: Simulator, http: httpx.Client, query: str, param: str) -> None:
    assert_refused(sim, http, f"/v1/products?{query}", param)


@pytest.mark.parametrize(("args", "param"), [
    ({"limit": 0}, "limit"), ({"limit": True}, "limit"), ({"limit": 10.0}, "limit"), ({"page": 101}, "page"),
    ({"order": "price"}, "order"), ({"start_date": 20260306}, "start_date"),
])
def test_in_process_the_same_refusal(sim: Simulator, args: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidQueryParams, match=f"Query parameter {param} "):
        sim.apply(BY_NAME["list_products"], **args)


def test_an_unknown_keyword_is_a_type_error_like_any_function(sim: Simulator) -> None:
    with pytest.raises(TypeError, match="limmit"):
        sim.apply(BY_NAME["list_products"], limmit=3)


@pytest.mark.parametrize("path", [
    "/v1/products/prod_nope", "/v1/products/prod_nope/skus", "/v1/skus/sku_nope",
    "/v1/product-collections/pc_nope/products", "/v1/customers/cust_nope/segments", "/v1/segments/seg_nope",
])
def test_an_unknown_id_is_404(http: httpx.Client, path: str) -> None:
    response = http.get(path, headers=APP)
    assert (response.status_code, response.json()["key"]) == (404, "not_found")


def test_the_client_raises_the_refusal(sim: Simulator) -> None:
    with sim.client() as client, pytest.raises(ApiError) as caught:
        client.list_skus("prod_mug", page=0)
    assert caught.value.status == 400 and "page" in str(caught.value)


@pytest.mark.parametrize("path", ["/v1/products", "/v1/products/{productId}/skus", "/v1/product-collections",
                                  "/v1/product-collections/{productCollectionId}/products"])
def test_the_served_document_states_the_bounds_the_refusals_check(demo_path: Path, path: str) -> None:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(Simulator.from_scenario(demo_path))) as client:
        document = client.get("/openapi.json").json()
    params = {p["name"]: p["schema"] for p in document["paths"][path]["get"]["parameters"] if p["in"] == "query"}
    assert params["limit"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    assert params["page"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 1}
    assert params["order"] == {"type": "string", "default": "-created_at",
                               "enum": ["created_at", "-created_at", "updated_at", "-updated_at"]}
