"""Exports: each exported object's CSV against the state it was made from.

A simulator with redemptions (one rolled back), orders and gift
transactions exports each object; the CSV's header is the requested fields
(the service's defaults without them), its rows are the state's objects as
the read endpoints show them, filtered and ordered as asked, and its bytes
are fixed at the creation: the same on a second run, after later writes,
after a clock advance, and after the journal is replayed.
"""

from __future__ import annotations

import copy
import csv
import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from test_reads_catalogue import reference
from test_reads_history import history_sim

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.client import ApiError
from promolab.http import SimulatorTransport
from promolab.sim import SimError
from promolab.sim.export_csv import KINDS
from promolab.sim.journal.resume import replay_journal
from promolab.sim.operations import BY_NAME

CREATE, GET, LIST, DOWNLOAD = (BY_NAME[n] for n in ("create_export", "get_export", "list_exports", "download_export"))


def exporting_sim(demo: dict[str, Any]) -> Simulator:
    """The history of tests/sim/test_reads_history.py and a gift balance added."""
    sim = history_sim(copy.deepcopy(demo))
    with sim.client() as client:
        client.add_gift_balance("GIFT-BOB-25", 400)
    return sim


@pytest.fixture
def made(_demo_document: dict[str, Any]) -> Simulator:
    return exporting_sim(_demo_document)


def export(sim: Simulator, exported_object: str, **parameters: Any) -> tuple[models.Export, list[list[str]]]:
    """The export made, and its CSV's lines (header first)."""
    body: dict[str, Any] = {"exported_object": exported_object}
    if parameters:
        body["parameters"] = parameters
    made = sim.apply(CREATE, request=body)
    text = sim.apply(DOWNLOAD, export_id=made.id)
    return made, list(csv.reader(io.StringIO(text, newline="")))


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def schema_errors(name: str, answer: Any) -> list[str]:
    """Where `answer` breaks the service's schema `name` (tests/data/)."""
    root = {"components": reference()["components"], "$ref": f"#/components/schemas/{name}"}
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft202012Validator(root).iter_errors(answer)]


# -- each exported object against the state ---------------------------------------------------------
def _voucher_codes(sim: Simulator) -> list[str]:
    return [v.code for v in sim.state.vouchers.values()]


def _redemption_ids(sim: Simulator) -> list[str]:
    return [*sim.state.redemptions, *sim.state.rollbacks]


def _customer_names(sim: Simulator) -> list[str]:
    return [c.name or "" for c in sim.state.customers.values()]


def _order_ids(sim: Simulator) -> list[str]:
    return list(sim.state.orders)


def _transaction_ids(sim: Simulator) -> list[str]:
    return list(sim.state.voucher_transactions)


#: (exported object, the default header, the column its objects are told by, those objects in the state)
OBJECTS = [
    ("voucher", ["code", "voucher_type", "value", "discount_type"], "code", _voucher_codes),
    ("redemption", ["id", "object", "voucher_code", "customer_id", "date", "result"], "id", _redemption_ids),
    ("customer", ["name", "source_id"], "name", _customer_names),
    ("order", ["id", "source_id", "status"], "id", _order_ids),
    ("voucher_transactions", ["id", "type", "source_id", "reason", "source", "balance", "amount", "created_at"],
     "id", _transaction_ids),
]
ALL_OBJECTS = [*(o[0] for o in OBJECTS), "points_expiration"]


@pytest.mark.parametrize(("exported_object", "header", "column", "objects"), OBJECTS, ids=[o[0] for o in OBJECTS])
def test_an_export_holds_each_object_once_under_the_default_header(
    made: Simulator, exported_object: str, header: list[str], column: str, objects: Any
) -> None:
    answer, lines = export(made, exported_object)
    assert lines[0] == header
    told = [line[header.index(column)] for line in lines[1:]]
    assert sorted(told) == sorted(objects(made)) and len(told) == len(set(told)) > 0
    assert answer.parameters["fields"] == header and answer.parameters["order"] == "-created_at"


@pytest.mark.parametrize("exported_object", ALL_OBJECTS)
def test_every_documented_field_is_a_column_in_the_order_asked(made: Simulator, exported_object: str) -> None:
    fields = list(KINDS[exported_object].fields)[::-1]
    _, lines = export(made, exported_object, fields=fields)
    assert lines[0] == fields
    assert all(len(line) == len(fields) for line in lines)


def test_order_rows_are_what_the_orders_list_says(made: Simulator) -> None:
    """Differential: the CSV's figures are the list endpoint's, money in minor units."""
    fields = ["id", "source_id", "status", "amount", "discount_amount", "total_amount", "customer_id", "created_at"]
    _, lines = export(made, "order", fields=fields, order="created_at")
    listed = made.apply(BY_NAME["list_orders"], limit=100, order="created_at").model_dump(mode="json")["orders"]
    expected = [[_text(o.get(name)) for name in fields[:-2]] + [_text(made.state.orders[o["id"]].customer_id),
                                                                o["created_at"]] for o in listed]
    assert lines[1:] == expected


def test_redemption_rows_are_what_the_redemptions_list_says(made: Simulator) -> None:
    fields = ["id", "object", "date", "voucher_code", "customer_id", "tracking_id", "order_amount", "result"]
    _, lines = export(made, "redemption", fields=fields, order="created_at")
    listed = made.apply(BY_NAME["list_redemptions"], limit=100, order="created_at").model_dump(mode="json")
    expected = [[r["id"], r["object"], r["date"], (r.get("voucher") or {}).get("code") or "", r["customer_id"] or "",
                 r["tracking_id"] or "", str(r["order"]["amount"]), r["result"]] for r in listed["redemptions"]]
    assert lines[1:] == expected


def test_customer_rows_carry_the_profiles_summary(made: Simulator) -> None:
    fields = ["id", "orders_total_amount", "orders_total_count", "redemptions_total_redeemed", "metadata"]
    _, lines = export(made, "customer", fields=fields)
    for line in lines[1:]:
        profile = made.apply(BY_NAME["get_customer"], customer_id=line[0]).model_dump(mode="json")
        summary = profile["summary"]
        assert line[1:4] == [str(summary["orders"]["total_amount"]), str(summary["orders"]["total_count"]),
                             str(summary["redemptions"]["total_redeemed"])]
        assert line[4].startswith("{")  # metadata as compact JSON
    assert any(line[1] != "0" for line in lines[1:])


def test_voucher_rows_show_the_voucher_object(made: Simulator) -> None:
    _, lines = export(made, "voucher", fields=["code", "gift_balance", "active", "campaign_id", "value"])
    rows = {line[0]: line for line in lines[1:]}
    bob = made.state.vouchers[next(v for v, r in made.state.vouchers.items() if r.code == "GIFT-BOB-25")]
    assert bob.gift is not None
    assert rows["GIFT-BOB-25"] == ["GIFT-BOB-25", str(bob.gift.balance), "true" if bob.active else "false",
                                   bob.campaign_id or "", str(bob.gift.amount)]


def test_points_never_expire_so_their_export_is_its_header(made: Simulator) -> None:
    answer, lines = export(made, "points_expiration")
    assert lines == [["id", "campaign_id", "voucher_id", "status", "expires_at", "points"]]
    assert answer.parameters["order"] == "-expires_at"
    _, filtered = export(made, "points_expiration", filters={"campaign_id": {"conditions": {"$is": "camp_1"}}})
    assert len(filtered) == 1


@pytest.fixture(scope="module")
def shared(_demo_document: dict[str, Any]) -> Simulator:
    return exporting_sim(_demo_document)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_fields_in_any_order_are_the_full_exports_columns(shared: Simulator, data: st.DataObject) -> None:
    """Differential: an export of some fields, in any order, is the export of
    every field cut to those columns (same rows, same order, same cells)."""
    exported_object = data.draw(st.sampled_from(ALL_OBJECTS[:-1]))
    every = list(KINDS[exported_object].fields)
    fields = data.draw(st.lists(st.sampled_from(every), min_size=1, unique=True))
    order = data.draw(st.sampled_from([f"{sign}{name}" for name in KINDS[exported_object].sorts for sign in "-+"]))
    order = order.lstrip("+")
    _, full = export(shared, exported_object, fields=every, order=order)
    _, cut = export(shared, exported_object, fields=fields, order=order)
    assert cut[0] == fields
    assert cut[1:] == [[line[every.index(name)] for name in fields] for line in full[1:]]


# -- order and filters ------------------------------------------------------------------------------
def test_order_sorts_both_ways(made: Simulator) -> None:
    _, up = export(made, "voucher", fields=["code"], order="code")
    _, down = export(made, "voucher", fields=["code"], order="-code")
    codes = [line[0] for line in up[1:]]
    assert codes == sorted(codes) and [line[0] for line in down[1:]] == codes[::-1]


ALICE, BOB = "cust_alice", "cust_bob"
#: (exported object, filters, the column read, what every kept row holds there, how many rows are kept)
FILTERS: list[tuple[str, dict[str, Any], str, Any]] = [
    ("redemption", {"customer": {"conditions": {"$is": BOB}}}, "customer_id", lambda v: v == BOB),
    ("redemption", {"customer_id": {"conditions": {"$in": [ALICE]}}}, "customer_id", lambda v: v == ALICE),
    ("redemption", {"object": {"conditions": {"$is": "redemption_rollback"}}}, "object",
     lambda v: v == "redemption_rollback"),
    ("order", {"source_id": {"conditions": {"$is_not": "order-1"}}}, "source_id", lambda v: v != "order-1"),
    ("order", {"created_at": {"conditions": {"$after": "2026-03-06T10:00:30Z"}}}, "created_at",
     lambda v: v > "2026-03-06T10:00:30"),
    ("customer", {"source_id": {"conditions": {"$in": ["alice", "bob"]}}}, "source_id", lambda v: v in ("alice", "bob")),
    ("voucher", {"code": {"conditions": {"$is": "GIFT-BOB-25"}}}, "code", lambda v: v == "GIFT-BOB-25"),
    ("voucher", {"junction": "or", "code": {"conditions": {"$is": "GIFT-BOB-25"}},
                 "voucher_type": {"conditions": {"$is": "GIFT_VOUCHER"}}}, "voucher_type",
     lambda v: v == "GIFT_VOUCHER"),
]


@pytest.mark.parametrize(("exported_object", "filters", "column", "holds"), FILTERS,
                         ids=[f"{o}-{'-'.join(f)}" for o, f, _, _ in FILTERS])
def test_a_filter_keeps_the_rows_it_names(made: Simulator, exported_object: str, filters: dict[str, Any],
                                          column: str, holds: Any) -> None:
    _, everything = export(made, exported_object, fields=[column])
    answer, lines = export(made, exported_object, fields=[column], filters=filters)
    kept = [line[0] for line in lines[1:]]
    assert kept and all(holds(value) for value in kept)
    assert len(kept) == sum(1 for line in everything[1:] if holds(line[0]))
    assert answer.parameters["filters"]["junction"] == filters.get("junction", "and")


def test_a_voucher_export_of_one_campaign(made: Simulator) -> None:
    campaign_id = next(v.campaign_id for v in made.state.vouchers.values() if v.code == "GIFT-BOB-25")
    _, lines = export(made, "voucher", fields=["code", "campaign_id"], campaign_id=campaign_id)
    assert lines[1:] and {line[1] for line in lines[1:]} == {campaign_id}


# -- bytes fixed at the creation --------------------------------------------------------------------
def test_the_bytes_are_the_same_on_two_runs(_demo_document: dict[str, Any]) -> None:
    runs = []
    for _ in range(2):
        sim = exporting_sim(_demo_document)
        answers = [export(sim, obj, fields=list(KINDS[obj].fields)) for obj in ALL_OBJECTS]
        runs.append([(a.id, sim.apply(DOWNLOAD, export_id=a.id)) for a, _ in answers])
    assert runs[0] == runs[1]


def test_a_finished_export_does_not_change_with_later_writes_or_time(made: Simulator) -> None:
    answer, _ = export(made, "customer", fields=["id", "orders_total_amount"])
    before = made.apply(DOWNLOAD, export_id=answer.id)
    with made.client() as client:
        client.redeem_stacked(customer={"source_id": "alice"}, order={"amount": 9000},
                              redeemables=[{"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 100}}])
    made.advance(86400)
    assert made.apply(DOWNLOAD, export_id=answer.id) == before
    _, now = export(made, "customer", fields=["id", "orders_total_amount"])
    assert "\r\n".join(",".join(line) for line in now) + "\r\n" != before  # a new export sees the new order


def test_the_journal_replays_the_exports(_demo_document: dict[str, Any], tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    sim = Simulator.from_scenario(copy.deepcopy(_demo_document))
    sim.record_to(journal, fsync=False)
    with sim.client() as client:
        client.add_gift_balance("GIFT-BOB-25", 400)
        first = client.create_export(exported_object="voucher_transactions")
        sim.advance(60)
        client.add_gift_balance("GIFT-BOB-25", 100)
        second = client.create_export(exported_object="voucher_transactions", order="created_at")
    sim.record_to(None)
    again = Simulator.from_scenario(copy.deepcopy(_demo_document))
    assert replay_journal(again, journal) >= 4
    for made_ in (first, second):
        assert again.apply(DOWNLOAD, export_id=made_.id) == sim.apply(DOWNLOAD, export_id=made_.id)
        assert again.apply(GET, export_id=made_.id) == sim.apply(GET, export_id=made_.id)
    assert again.apply(DOWNLOAD, export_id=first.id).count("\r\n") == 2  # header and the first transaction


def test_a_snapshot_keeps_the_exports(made: Simulator) -> None:
    answer, _ = export(made, "order")
    restored = Simulator.restore(made.snapshot())
    assert restored.apply(DOWNLOAD, export_id=answer.id) == made.apply(DOWNLOAD, export_id=answer.id)


# -- refusals ---------------------------------------------------------------------------------------
BAD: list[tuple[dict[str, Any], str, str]] = [
    ({"exported_object": "coupon"}, "invalid_payload", "exported_object"),
    ({"exported_object": "publication"}, "invalid_export_params", "exported_object"),
    ({"exported_object": "points_expiration", "parameters": {"order": "created_at"}}, "invalid_export_params",
     "-expires_at"),
    ({"exported_object": "order", "parameters": {"fields": ["id", "nope"]}}, "invalid_export_fields",
     "Allowed fields: id, source_id"),
    ({"exported_object": "order", "parameters": {"fields": ["id", "id"]}}, "invalid_export_fields", "Allowed fields"),
    ({"exported_object": "order", "parameters": {"order": "code"}}, "invalid_export_params", "parameters.order"),
    ({"exported_object": "order", "parameters": {"filters": {"nope": {"conditions": {"$is": 1}}}}},
     "invalid_export_params", "parameters.filters.nope"),
    ({"exported_object": "order", "parameters": {"filters": {"status": {"conditions": {"$near": 1}}}}},
     "invalid_export_params", "parameters.filters.status.conditions.$near"),
    ({"exported_object": "order", "parameters": {"filters": {"status": "PAID"}}}, "invalid_export_params",
     "parameters.filters.status"),
    ({"exported_object": "order", "parameters": {"filters": {"created_at": {"conditions": {"$after": "soon"}}}}},
     "invalid_export_params", "parameters.filters.created_at.conditions.$after"),
    ({"exported_object": "order", "parameters": {"filters": {"junction": "xor"}}}, "invalid_export_params",
     "parameters.filters.junction"),
    ({"exported_object": "order", "parameters": {"campaign_id": "camp_1"}}, "invalid_export_params",
     "parameters.campaign_id"),
    ({"exported_object": "order", "parameters": {"colums": ["id"]}}, "invalid_payload", "colums"),
]


@pytest.mark.parametrize(("body", "key", "named"), BAD, ids=[f"{k}-{n}" for _, k, n in BAD])
def test_a_bad_request_is_a_400_naming_what_is_wrong_and_changes_nothing(
    made: Simulator, body: dict[str, Any], key: str, named: str
) -> None:
    before = made.dump_json()
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(made)) as http:
        response = http.post("/v1/exports", headers=APP, json=body)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["key"] == key and named in error["details"], error
    assert made.dump_json() == before


def test_an_unknown_export_is_404_with_the_services_body(made: Simulator) -> None:
    for op in (GET, DOWNLOAD):
        with pytest.raises(SimError) as refused:
            made.apply(op, export_id="exp_nope")
        assert refused.value.status == 404
    with made.client() as client, pytest.raises(ApiError) as caught:
        client.download_export("exp_nope")
    error = caught.value.error
    assert (caught.value.status, error.key, error.resource_type, error.resource_id) == (404, "not_found", "export",
                                                                                       "exp_nope")
    assert error.details == "Cannot find export with id exp_nope"


# -- the answers: documented, listed, served -----------------------------------------------------------
def test_the_answers_are_what_the_service_documents(made: Simulator) -> None:
    created, _ = export(made, "redemption")
    assert created.status == "SCHEDULED" and created.result is None
    # the one departure (docs/decisions.md, "Exports"): made through the API, no user made it, so
    # `user_id` is null as in the service's listed exports; its scheduled schema types it a string only
    answer = created.model_dump(mode="json")
    assert answer["user_id"] is None
    assert not schema_errors("ExportsCreateResponseBody", {**answer, "user_id": "user"})
    got = made.apply(GET, export_id=created.id).model_dump(mode="json")
    assert got["status"] == "DONE" and got["result"]["url"] == f"/v1/exports/{created.id}/download"
    assert not schema_errors("ExportsGetResponseBody", got)
    export(made, "order")
    listed = made.apply(LIST, limit=100).model_dump(mode="json")
    assert not schema_errors("ExportsListResponseBody", listed)
    assert listed["total"] == 2 and [e["id"] for e in listed["exports"]][::-1][0] == created.id


def test_the_exports_list_pages_and_orders(made: Simulator) -> None:
    ids = []
    for obj in ("voucher", "order", "customer"):
        ids.append(export(made, obj)[0].id)
        made.advance(1)
    pages = [e.id for page in (1, 2) for e in made.apply(LIST, limit=2, page=page, order="created_at").exports]
    assert pages == ids
    assert [e.id for e in made.apply(LIST).exports] == ids[::-1]
    with pytest.raises(SimError, match="order"):
        made.apply(LIST, order="-name")


def test_the_result_url_is_fetched_through_the_client_and_served_http(made: Simulator) -> None:
    with made.client() as client:
        created = client.create_export(exported_object="order", fields=["id", "amount"])
        url = client.get_export(created.id).result
        assert url is not None
        text = client.download_export(created.id)
    assert text.startswith("id,amount\r\n") and text.count("\r\n") == 1 + len(made.state.orders)
    with made.served() as served:
        response = httpx.get(served.base_url + url.url, headers=served_headers(made))
        assert response.status_code == 200 and response.headers["content-type"] == "text/csv; charset=utf-8"
        assert response.content == text.encode()


def served_headers(sim: Simulator) -> dict[str, str]:
    credentials = sim.state.project.credentials
    return {"X-App-Id": credentials.app_id, "X-App-Token": credentials.app_token.get_secret_value()}


def test_the_async_client_downloads_the_same_bytes(made: Simulator) -> None:
    import asyncio

    created = made.apply(CREATE, request={"exported_object": "customer"})

    async def fetch() -> str:
        async with made.async_client() as client:
            return await client.download_export(created.id)

    assert asyncio.run(fetch()) == made.apply(DOWNLOAD, export_id=created.id)
