"""The voucher read endpoints: `GET /v1/vouchers` and `GET /v1/vouchers/{code}`.

- each answer validates against the service's published schema (tests/data/),
  except for the nulls the service's own examples of these endpoints show
  (every key present, null when unset, as the publication's voucher, whose
  renderer these reads share; docs/decisions.md, "Campaigns"), and parses with
  promolab's model without losing or adding a field;
- paging walks every code once for any limit and order, descending is the
  exact reverse of ascending, ties keep the state's order;
- each filter keeps exactly the codes it names (table-driven);
- a code's own rules are one assignment `asgm_<voucher id>` of `val_<voucher id>`;
- refusals: bad query values and `filters` are 400 naming the parameter and
  change nothing; an unknown code is the service's 404; the clients agree.
"""

from __future__ import annotations

import asyncio
import copy
from datetime import timedelta
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reads_catalogue import (
    START,
    assert_examples_parse,
    assert_refused,
    reference,
    reference_errors,
)

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.client import ApiError
from promolab.http import SimulatorTransport
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME


def _published_nulls() -> frozenset[str]:
    """The keys the service's examples of these endpoints show as null, though their schema says
    string or object; and `updated_at`, null for a code never changed, as the publication's voucher has it."""
    found = {"updated_at"}
    for template in ("/v1/vouchers", "/v1/vouchers/{code}"):
        for example in reference()["paths"][template]["examples"].values():
            for voucher in example.get("vouchers", [example]):
                found |= {key for key, value in voucher.items() if value is None}
    return frozenset(found)


NULLS = _published_nulls()


def _without_published_nulls(voucher: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in voucher.items() if not (value is None and key in NULLS)}


def assert_documented(sim: Simulator, template: str, path: str, model: type[models.WireModel]) -> dict[str, Any]:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(sim)) as http:
        response = http.get(path, headers=APP)
    assert response.status_code == 200, response.text
    answer = response.json()
    checked = ({**answer, "vouchers": [_without_published_nulls(v) for v in answer["vouchers"]]}
               if "vouchers" in answer else _without_published_nulls(answer))
    problems = reference_errors(template, checked)
    assert not problems, problems
    assert model.model_validate_json(response.content).model_dump(mode="json") == answer
    return answer  # type: ignore[no-any-return]  # response.json() is Any; the schema checked it


@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim))


def test_the_tolerated_nulls_are_the_published_ones() -> None:
    assert {"gift", "discount", "start_date", "category", "campaign"} <= NULLS
    assert not NULLS & {"id", "code", "type", "metadata", "assets", "redemption", "publish", "created_at"}


ANSWERS = [
    ("/v1/vouchers", "/v1/vouchers?limit=100", models.VoucherList),
    ("/v1/vouchers", "/v1/vouchers?limit=100&page=2&order=code", models.VoucherList),
    ("/v1/vouchers/{code}", "/v1/vouchers/MUG-CLUB-1", models.Voucher),
    ("/v1/vouchers/{code}", "/v1/vouchers/GIFT-BOB-25", models.Voucher),
    ("/v1/vouchers/{code}", "/v1/vouchers/WELCOME-ALICE", models.Voucher),
]


@pytest.mark.parametrize(("template", "path", "model"), ANSWERS, ids=[a[1] for a in ANSWERS])
def test_an_answer_parses_and_is_what_the_service_documents(
    sim: Simulator, template: str, path: str, model: type[models.WireModel]
) -> None:
    assert_documented(sim, template, path, model)


@pytest.mark.parametrize(("template", "model"), [("/v1/vouchers", models.VoucherList),
                                                 ("/v1/vouchers/{code}", models.Voucher)])
def test_the_published_examples_parse_with_our_models(template: str, model: type[models.WireModel]) -> None:
    assert_examples_parse(template, model)


def test_a_listed_voucher_is_the_publications_voucher_with_its_categories(sim: Simulator) -> None:
    """One renderer: publishing a code answers the voucher the list then shows (but `categories`)."""
    with sim.client() as client:
        published = client.publish(voucher="MUG-CLUB-1", customer={"source_id": "alice"}).voucher
        (listed,) = client.list_vouchers(code="MUG-CLUB-1").vouchers
        one = client.get_voucher("MUG-CLUB-1")
    assert listed.categories is not None and [c.id for c in listed.categories] == ["cat_member_codes"]
    shown = listed.model_dump(mode="json")
    assert {k: v for k, v in shown.items() if k != "categories"} == published.model_dump(mode="json")
    assert one.model_dump(mode="json") == {**shown, "validation_rules_assignments": {
        "object": "list", "data_ref": "data", "data": [], "total": 0}}  # the campaign's rules are the campaign's


def test_a_codes_own_rules_are_one_assignment_with_the_synthesized_ids(_demo_document: dict[str, Any]) -> None:
    document = copy.deepcopy(_demo_document)
    coupons = next(c for c in document["campaigns"] if c["id"] == "camp_welcome_codes")
    rules = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [1000]}}}, "logic": "1"}
    coupons["vouchers"][0]["validation_rules"] = rules
    sim = Simulator.from_scenario(document)
    record = next(v for v in sim.state.vouchers.values() if v.campaign_id == "camp_welcome_codes")
    with sim.client() as client:
        assignments = client.get_voucher(record.code).validation_rules_assignments
    assert assignments is not None
    assert [(a.id, a.rule_id, a.related_object_id, a.related_object_type) for a in assignments.data] == [
        (f"asgm_{record.id}", f"val_{record.id}", record.id, "voucher")]


def test_a_voucher_by_its_id_too(sim: Simulator) -> None:
    record = next(iter(sim.state.vouchers.values()))
    with sim.client() as client:
        assert client.get_voucher(record.id) == client.get_voucher(record.code)


# -- paging, ordering, filters ------------------------------------------------------------------------
def vouchers_sim(count: int) -> Simulator:
    """One coupon campaign of `count` codes, each created a minute after the one before except every
    third (a tie), codes in reverse of creation order, every fifth updated three hours later."""
    codes = [{"code": f"CODE-{count - i:04d}"} for i in range(count)]
    sim = Simulator.from_scenario({"campaigns": [{"id": "camp_c", "name": "Coupons", "type": "DISCOUNT_COUPONS",
                                                  "vouchers": codes}]})
    minute = 0
    for i, record in enumerate(sim.state.vouchers.values()):
        minute += 0 if i % 3 == 2 else 1
        record.created_at = START + timedelta(minutes=minute)
        if i % 5 == 0:
            record.updated_at = START + timedelta(hours=3, minutes=minute)
    return sim


WALKED = vouchers_sim(140)


@settings(max_examples=30, deadline=None)
@given(limit=st.integers(1, 100), order=st.sampled_from(["created_at", "-updated_at", "code", "-code", None]))
def test_walking_the_pages_meets_every_code_once(limit: int, order: str | None) -> None:
    seen: list[str] = []
    for page in range(1, 100):
        answer = WALKED.apply(BY_NAME["list_vouchers"], limit=limit, page=page, order=order)
        assert answer.total == 140
        if not answer.vouchers:
            break
        seen += [v.id for v in answer.vouchers]
    assert len(seen) == len(set(seen)) == min(140, 99 * limit)


@pytest.mark.parametrize("field", ["created_at", "updated_at", "code"])
def test_descending_is_the_exact_reverse_of_ascending(field: str) -> None:
    up = [v.code for v in WALKED.apply(BY_NAME["list_vouchers"], limit=100, order=field).vouchers]
    up += [v.code for v in WALKED.apply(BY_NAME["list_vouchers"], limit=100, page=2, order=field).vouchers]
    down = [v.code for v in WALKED.apply(BY_NAME["list_vouchers"], limit=100, order=f"-{field}").vouchers]
    down += [v.code for v in WALKED.apply(BY_NAME["list_vouchers"], limit=100, page=2, order=f"-{field}").vouchers]
    assert down == up[::-1] and len(up) == 140
    if field == "code":
        assert up == sorted(up)
    if field == "created_at":
        assert up == [v.code for v in WALKED.state.vouchers.values()]  # ties keep the state's order


def test_updated_at_sorts_a_never_changed_code_by_its_creation() -> None:
    codes = [v.code for v in WALKED.apply(BY_NAME["list_vouchers"], limit=100, order="-updated_at").vouchers]
    changed = [v.code for i, v in enumerate(WALKED.state.vouchers.values()) if i % 5 == 0]
    assert codes[:len(changed)] == changed[::-1]


def _codes(sim: Simulator, **query: Any) -> list[str]:
    return [v.code for v in sim.apply(BY_NAME["list_vouchers"], limit=100, order="code", **query).vouchers]


@pytest.mark.parametrize(("query", "campaigns"), [
    ({"campaign_id": "camp_gift"}, {"camp_gift"}),
    ({"campaign": "Kestrel gift cards"}, {"camp_gift"}),  # by name
    ({"campaign": "camp_mug_codes"}, {"camp_mug_codes"}),  # or id
    ({"category": "cat_member_codes"}, {"camp_mug_codes"}),
    ({"category": "Member codes"}, {"camp_mug_codes"}),
    ({"campaign": "camp_nope"}, set()),
    ({"campaign_id": "camp_gift", "campaign": "Bring a friend"}, set()),
])
def test_each_campaign_filter_keeps_its_codes(sim: Simulator, query: dict[str, str], campaigns: set[str]) -> None:
    expected = sorted(v.code for v in sim.state.vouchers.values() if v.campaign_id in campaigns)
    assert _codes(sim, **query) == expected


def test_the_customer_filter_reads_the_holder_by_id_or_source_id(sim: Simulator) -> None:
    held = sorted(v.code for v in sim.state.vouchers.values() if v.holder_id == "cust_bob")
    assert held and _codes(sim, customer="cust_bob") == held == _codes(sim, customer="bob")
    assert _codes(sim, customer="nobody") == []


def test_code_ids_and_instants(sim: Simulator) -> None:
    records = sorted(sim.state.vouchers.values(), key=lambda v: v.code)
    assert _codes(sim, code=records[3].code) == [records[3].code]
    assert _codes(sim, ids=[records[0].id, records[5].id, "v_nope"]) == [records[0].code, records[5].code]
    assert _codes(sim, ids=[]) == []
    after = WALKED.apply(BY_NAME["list_vouchers"], created_after="2026-03-06T10:02:00Z", order="created_at",
                         created_before="2026-03-06T10:03:00Z")
    assert [v.id for v in after.vouchers] == [v.id for v in WALKED.state.vouchers.values()
                                              if START + timedelta(minutes=2) <= v.created_at <= START + timedelta(minutes=3)]  # type: ignore[operator]  # every record has its instant
    assert after.total == 3
    updated = WALKED.apply(BY_NAME["list_vouchers"], updated_after="2026-03-06T12:00:00Z", limit=100)
    assert updated.total == 28  # the fifth ones, updated three hours on


def test_the_ids_filter_over_http_reads_the_repeated_parameter(http: httpx.Client, sim: Simulator) -> None:
    first, second = list(sim.state.vouchers.values())[:2]
    answer = http.get(f"/v1/vouchers?ids={first.id}&ids={second.id}&order=created_at", headers=APP).json()
    assert [v["id"] for v in answer["vouchers"]] == [first.id, second.id]


# -- refusals ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "param"), [
    ("limit=0", "limit"), ("page=100", "page"), ("order=campaign", "order"), ("order=-type", "order"),
    ("created_at[before]=yesterday", "created_at[before]"), ("updated_at[after]=2026-03-06", "updated_at[after]"),
    ("filters[code][conditions][$in]=A", "filters"), ('filters={"code":{}}', "filters"),
])
def test_a_bad_query_is_400_naming_the_parameter(sim: Simulator, http: httpx.Client, query: str, param: str) -> None:
    assert_refused(sim, http, f"/v1/vouchers?{query}", param)


@pytest.mark.parametrize(("args", "param"), [
    ({"ids": "v_1"}, "ids"), ({"ids": [1]}, "ids"), ({"customer": 7}, "customer"), ({"page": 100}, "page"),
    ({"filters": {"code": {}}}, "filters"),
])
def test_in_process_the_same_refusal(sim: Simulator, args: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidQueryParams, match=f"Query parameter {param} "):
        sim.apply(BY_NAME["list_vouchers"], **args)


def test_an_unknown_code_is_the_services_404(http: httpx.Client) -> None:
    response = http.get("/v1/vouchers/NO-SUCH", headers=APP)
    body = response.json()
    assert (response.status_code, body["key"], body["resource_type"], body["resource_id"]) == (
        404, "not_found", "voucher", "NO-SUCH")
    assert body["details"] == "Cannot find voucher with id NO-SUCH"


def test_the_sync_and_async_clients_agree(sim: Simulator) -> None:
    async def read() -> tuple[models.VoucherList, models.Voucher]:
        async with sim.async_client() as client:
            return (await client.list_vouchers(campaign="Kestrel gift cards", order="code", limit=3),
                    await client.get_voucher("GIFT-BOB-25"))

    async_list, async_one = asyncio.run(read())
    with sim.client() as client:
        assert client.list_vouchers(campaign="Kestrel gift cards", order="code", limit=3) == async_list
        assert client.get_voucher("GIFT-BOB-25") == async_one
        with pytest.raises(ApiError) as caught:
            client.list_vouchers(order="campaign")
        with pytest.raises(TypeError, match="did you mean 'code'"):
            client.list_vouchers(cod="X")  # type: ignore[call-arg]  # the refusal under test
    assert caught.value.status == 400 and "order" in str(caught.value)
    assert (async_list.total, async_one.holder_id) == (12, "cust_bob")
