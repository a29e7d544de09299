"""Each operation is declared once: the catalogue and what is derived from it.

`models.endpoints` declares every wire contract (`Endpoint`), the simulator
binds each interface endpoint to the function implementing it
(`sim.operations.OPERATIONS`), and the HTTP routes, the typed client's
requests and the journal's lines are all derived from the two. These tests
pin the joints, table-driven so that a new endpoint must be added to the
tables here:

- the catalogue: one operation and one route per interface endpoint, unique
  names, and only `reset`, `restore` and `journal` without an endpoint;
- the client: every method of `Client` and `AsyncClient` (interface and
  `control`) sends its endpoint's method, path (parameters filled and
  escaped), credentials and query names; each endpoint is reached by one
  method; a method's signature is its builder's (interactive help);
- the HTTP handlers: each passes its operation the arguments a journal line
  records, in the journal's order (path parameters, `request`, query);
- `Simulator.apply` takes keyword arguments only.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import httpx
import pytest

from promolab import AsyncClient, Client, Simulator
from promolab.client._methods import ControlOperations, Method, Operations
from promolab.http.table import ROUTES
from promolab.models.endpoints import CONTROL, ENDPOINTS, OPENAPI, SERVICE, Endpoint
from promolab.sim.operation import Operation
from promolab.sim.operations import BY_NAME, OPERATIONS, operation_named
from promolab.sim.operations.incentives import GET_INCENTIVE
from promolab.sim.operations.publishing import PUBLISH

# -- the catalogue ------------------------------------------------------------------------------


def _id(endpoint: Endpoint[Any]) -> str:
    return endpoint.name


@pytest.mark.parametrize("endpoint", SERVICE, ids=_id)
def test_each_interface_endpoint_has_one_operation_and_one_route(endpoint: Endpoint[Any]) -> None:
    (op,) = [op for op in OPERATIONS if op.name == endpoint.name]
    assert op.endpoint is endpoint
    assert BY_NAME[endpoint.name] is op is operation_named(endpoint.name)
    (route,) = [r for r in ROUTES if r.endpoint is endpoint]
    assert route.handler is not None, f"{endpoint.name} is declared but answered 501"
    assert (route.method, route.path) == (endpoint.method, endpoint.path)


@pytest.mark.parametrize("endpoint", CONTROL, ids=_id)
def test_each_control_endpoint_has_one_route_and_no_operation_of_its_own(endpoint: Endpoint[Any]) -> None:
    (route,) = [r for r in ROUTES if r.endpoint is endpoint]
    assert route.handler is not None
    assert not any(op.endpoint is endpoint for op in OPERATIONS)


def test_operation_names_are_unique_and_the_table_has_them_all() -> None:
    names = [op.name for op in OPERATIONS]
    assert len(set(names)) == len(names)
    assert set(BY_NAME) == set(names)
    assert all(BY_NAME[op.name] is op for op in OPERATIONS)
    with pytest.raises(KeyError, match="publish"):  # the known names are listed
        operation_named("publsh")


def test_only_the_simulators_own_operations_have_no_endpoint() -> None:
    assert {op.name for op in OPERATIONS if op.endpoint is None} == {"reset", "restore", "journal"}
    bound = [op.endpoint for op in OPERATIONS if op.endpoint is not None]
    assert len(bound) == len(SERVICE) and all(any(e is b for b in bound) for e in SERVICE)


def test_the_route_table_is_the_declared_endpoints_in_order() -> None:
    assert [r.endpoint for r in ROUTES] == [*SERVICE, *CONTROL]
    assert ENDPOINTS == (*SERVICE, *CONTROL, OPENAPI)


# -- the client -----------------------------------------------------------------------------------

CREDENTIALS = {
    "app_id": "app", "app_token": "app-token", "access_token": "access",
    "management_id": "mgmt", "management_token": "mgmt-token",
}
API, MANAGEMENT = "api.example.test", "mgmt.example.test"
#: The credential headers each kind of endpoint sends; the others must be absent.
HEADERS = {
    "app": {"x-app-id": "app", "x-app-token": "app-token"},
    "loyalty": {"x-app-id": "app", "x-app-token": "app-token", "authorization": "Bearer access"},
    "management": {"x-management-id": "mgmt", "x-management-token": "mgmt-token"},
}
ALL_CREDENTIAL_HEADERS = {name for headers in HEADERS.values() for name in headers}
#: Ids with a "/" and spaces: each must stay inside its path segment.
ODD = "a/b c"


@dataclass(frozen=True)
class ClientCall:
    """One client method called with these arguments."""

    method: str  # "publish", or "control.state" for `client.control.state`
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: The wire names of the query parameters the call must send.
    query: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.method}{'+query' if self.query else ''}"


CALLS = [
    ClientCall("get_incentive", ("linc_0a11ce01",)),
    ClientCall("purchase_reward", (f"lprg {ODD}", f"lmbr {ODD}", "lrew_mug")),
    ClientCall("delete_reward", (f"lrew {ODD}",)),
    ClientCall("delete_webhook", (f"proj {ODD}", f"wh {ODD}")),
    ClientCall("publish", (), {"voucher": "V-1", "customer": {"source_id": "ann"}}),
    ClientCall("publish", (), {"voucher": "V-1", "customer": {"source_id": "ann"}, "join_once": True},
               frozenset({"join_once"})),
    ClientCall("validate_promotions", (), {"customer": {"source_id": "ann"}}),
    ClientCall("validate_promotions", (), {
        "customer": {"source_id": "ann"}, "audience_rules_only": True,
        "filters": {"promotion_id": {"conditions": {"$in": ["camp_1", "camp_2"]}}},
    }, frozenset({"audienceRulesOnly", "filters"})),
    ClientCall("track_event", (), {"event": "order_placed", "customer": {"source_id": "ann"}}),
    ClientCall("add_gift_balance", (f"GIFT {ODD}", 500), {"reason": "birthday"}),
    ClientCall("create_stacking_rules", (f"proj {ODD}",), {"redeemables_application_mode": "PARTIAL"}),
    ClientCall("list_stacking_rules", (f"proj {ODD}",)),
    ClientCall("get_stacking_rules", (f"proj {ODD}", f"stk {ODD}")),
    ClientCall("update_stacking_rules", (f"proj {ODD}", f"stk {ODD}"), {"applicable_redeemables_limit": 3}),
    ClientCall("delete_stacking_rules", (f"proj {ODD}", f"stk {ODD}")),
    ClientCall("validate_stacked", (), {"redeemables": [{"object": "voucher", "id": f"CODE {ODD}"}]}),
    ClientCall("redeem_stacked", (), {"redeemables": [{"object": "voucher", "id": f"CODE {ODD}"}]}),
    ClientCall("qualifications", (), {"customer": {"source_id": "ann"}, "scenario": "ALL"}),
    ClientCall("rollback_redemption", (f"r {ODD}",), {"reason": "returned"}),
    ClientCall("release_session", (f"CODE {ODD}", f"ssn {ODD}")),
    ClientCall("list_products"),
    ClientCall("list_products", (), {"limit": 5, "page": 2, "order": "-created_at", "start_date": "2026-01-01T00:00:00Z",
                                     "end_date": "2026-12-31T00:00:00Z"},
               frozenset({"limit", "page", "order", "start_date", "end_date"})),
    ClientCall("get_product", (f"prod {ODD}",)),
    ClientCall("list_skus", (f"prod {ODD}",), {"limit": 1}, frozenset({"limit"})),
    ClientCall("get_sku", (f"sku {ODD}",)),
    ClientCall("list_product_collections", (), {"page": 1}, frozenset({"page"})),
    ClientCall("list_collection_products", (f"pc {ODD}",), {"starting_after": "2026-01-01T00:00:00Z"},
               frozenset({"starting_after"})),
    ClientCall("list_customers", (), {"limit": 3, "email": "a@b.c", "created_after": "2026-01-01T00:00:00Z"},
               frozenset({"limit", "email", "created_at"})),
    ClientCall("get_customer", (f"cust {ODD}",)),
    ClientCall("list_customer_segments", (f"cust {ODD}",)),
    ClientCall("get_segment", (f"seg {ODD}",)),
    ClientCall("list_rewards", (), {"assignment_id": "lrewa_1"}, frozenset({"assignment_id"})),
    ClientCall("get_reward", (f"lrew {ODD}",)),
    ClientCall("list_orders", (), {"order": "-updated_at"}, frozenset({"order"})),
    ClientCall("list_redemptions", (), {"page": 99, "customer": "cust_1", "created_before": "2026-01-01T00:00:00Z"},
               frozenset({"page", "customer", "created_at"})),
    ClientCall("list_validation_rules", (), {"order": "name", "start_date": "2026-01-01T00:00:00Z"},
               frozenset({"order", "start_date"})),
    ClientCall("get_validation_rule", (f"val {ODD}",)),
    ClientCall("list_validation_rules_assignments", (), {"related_object_id": f"promo {ODD}", "rule": "val_1", "limit": 2},
               frozenset({"related_object_id", "rule", "limit"})),
    ClientCall("list_loyalty_programs", (), {"expand": "category", "order": "created_at"}, frozenset({"expand", "order"})),
    ClientCall("get_loyalty_program", (f"lcdef {ODD}",)),
    ClientCall("list_loyalty_tiers", (f"lcdef {ODD}",), {"limit": 5}, frozenset({"limit"})),
    ClientCall("list_earning_rules", (f"lcdef {ODD}",), {"page": 2}, frozenset({"page"})),
    ClientCall("list_reward_assignments", (f"lcdef {ODD}",), {"assignment_id": "lrewa_1"}, frozenset({"assignment_id"})),
    ClientCall("list_members", (f"lcdef {ODD}",), {"customer": "cust_1", "code": "C-1", "updated_after": "2026-01-01T00:00:00Z"},
               frozenset({"customer", "code", "updated_at"})),
    ClientCall("list_campaigns", (), {"campaign_type": "PROMOTION", "is_referral_code": False},
               frozenset({"campaign_type", "is_referral_code"})),
    ClientCall("get_campaign", (f"camp {ODD}",)),
    ClientCall("get_campaign_summary", (f"camp {ODD}",), {"start_date": "2026-03-01"}, frozenset({"start_date"})),
    ClientCall("list_campaign_transactions", (f"camp {ODD}",), {"order": "id", "starting_after_id": "vtx_1"},
               frozenset({"order", "starting_after_id"})),
    ClientCall("list_vouchers", (), {"ids": ["v_1", "v_2"], "created_after": "2026-01-01T00:00:00Z", "code": "A"},
               frozenset({"ids", "created_at", "code"})),
    ClientCall("get_voucher", (f"CODE {ODD}",)),
    ClientCall("list_promotion_tiers", (), {"is_available": False, "limit": 2}, frozenset({"is_available", "limit"})),
    ClientCall("list_campaign_promotion_tiers", (f"camp {ODD}",)), ClientCall("get_promotion_tier", (f"promo {ODD}",)),
    ClientCall("list_promotion_stacks", (), {"order": "name", "updated_after": "2026-01-01T00:00:00Z"},
               frozenset({"order", "updated_at"})),
    ClientCall("list_campaign_promotion_stacks", (f"camp {ODD}",)), ClientCall("list_categories"),
    ClientCall("create_export", (), {"exported_object": "order", "fields": ["id"]}),
    ClientCall("list_exports", (), {"order": "status"}, frozenset({"order"})),
    ClientCall("get_export", (f"exp {ODD}",)),
    ClientCall("download_export", (f"exp {ODD}",)),
    ClientCall("control.state"),
    ClientCall("control.reset"),
    ClientCall("control.clock"),
    ClientCall("control.why_not", ({"redeemables": [{"object": "voucher", "id": f"CODE {ODD}"}]},)),
    ClientCall("control.why_not_qualified", ({"customer": {"source_id": f"ann {ODD}"}},)),
    ClientCall("control.advance", (60,)),
    ClientCall("control.snapshot"),
    ClientCall("control.restore", ({"format": "promolab.snapshot/1"},)),
    ClientCall("control.webhook_deliveries"),
    ClientCall("control.member", (f"lmbr {ODD}",)),
    ClientCall("control.coverage"),
]


def _methods(owner: type[Any], prefix: str = "") -> dict[str, Method[..., Any]]:
    return {prefix + name: value for name, value in vars(owner).items() if isinstance(value, Method)}


METHODS = {**_methods(Operations), **_methods(ControlOperations, "control.")}


class Recorder:
    """A MockTransport handler: records each request, answers a plain success
    (JSON for the control API, which the client returns as is; 204 for the
    interface, decoded as None, so no model has to be faked)."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path.startswith("/_sim/"):
            return httpx.Response(200, json={})
        return httpx.Response(204)


def _clients(recorder: Recorder) -> tuple[Client, AsyncClient]:
    options: dict[str, Any] = {
        **CREDENTIALS, "management_base_url": f"https://{MANAGEMENT}",
        "transport": httpx.MockTransport(recorder), "retries": 0,
    }
    return Client(f"https://{API}", **options), AsyncClient(f"https://{API}", **options)


def _bound(owner: Any, method: str) -> Callable[..., Any]:
    for part in method.split("."):
        owner = getattr(owner, part)
    return owner  # type: ignore[no-any-return]  # getattr: the bound client method


def _send(call: ClientCall, flavour: str) -> httpx.Request:
    """The request `call` sends, through a `Client` or an `AsyncClient`."""
    recorder = Recorder()
    sync, async_ = _clients(recorder)
    if flavour == "sync":
        with sync:
            _bound(sync, call.method)(*call.args, **call.kwargs)
    else:
        async def run() -> None:
            async with async_:
                await _bound(async_, call.method)(*call.args, **call.kwargs)

        asyncio.run(run())
    (request,) = recorder.requests
    return request


def _template(endpoint: Endpoint[Any]) -> re.Pattern[str]:
    """The endpoint's path as a regex, one named group per parameter segment."""
    parts = re.split(r"\{(\w+)\}", endpoint.path)  # literal, name, literal, ...
    return re.compile("^" + "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts)
    ) + "$")


def _endpoints_matching(request: httpx.Request) -> list[Endpoint[Any]]:
    path = request.url.raw_path.decode("ascii").partition("?")[0]
    return [e for e in ENDPOINTS if e.method == request.method and _template(e).match(path)]


def test_every_client_method_has_a_call_here() -> None:
    assert {call.method for call in CALLS} == set(METHODS)


@pytest.mark.parametrize("flavour", ["sync", "async"])
@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.id)
def test_a_client_method_sends_its_endpoints_request(call: ClientCall, flavour: str) -> None:
    prepared = METHODS[call.method].build(*call.args, **call.kwargs)
    endpoint = prepared.endpoint
    request = _send(call, flavour)
    # method, base URL, and a path of the endpoint's template
    assert request.method == endpoint.method
    assert request.url.host == (MANAGEMENT if endpoint.auth == "management" or endpoint.control else API)
    assert _endpoints_matching(request) == [endpoint]
    # each path parameter is the method's argument, escaped into one segment
    path = request.url.raw_path.decode("ascii").partition("?")[0]
    found = _template(endpoint).match(path)
    assert found is not None
    arguments = inspect.signature(METHODS[call.method].build).bind(*call.args, **call.kwargs).arguments
    for param in endpoint.path_params:
        assert found[param.name] == quote(arguments[param.arg], safe="")
        assert unquote(found[param.name]) == arguments[param.arg]
    # the endpoint's credentials, and no others
    expected = HEADERS[endpoint.auth]
    assert {name: request.headers.get(name) for name in expected} == expected
    assert not {name for name in ALL_CREDENTIAL_HEADERS - set(expected) if name in request.headers}
    # the query's wire names (bracketed filters count as `filters`)
    sent = {name.partition("[")[0] for name, _ in request.url.params.multi_items()}
    assert sent == set(call.query)
    assert sent <= {p.name.partition("[")[0] for p in endpoint.query}  # `created_at[before]` counts as `created_at`
    # the body, as built
    assert (json.loads(request.content) if request.content else None) == prepared.json


def test_every_endpoint_but_the_document_is_reached_by_exactly_one_client_method() -> None:
    reached: dict[str, set[str]] = {}
    for call in CALLS:
        (endpoint,) = _endpoints_matching(_send(call, "sync"))
        reached.setdefault(endpoint.name, set()).add(call.method)
    assert set(reached) == {e.name for e in ENDPOINTS if e is not OPENAPI}
    assert all(len(methods) == 1 for methods in reached.values()), reached


@pytest.mark.parametrize("method", sorted(METHODS))
def test_a_client_methods_signature_is_its_builders(method: str) -> None:
    """What `help(client.publish)` and a notebook's completion show."""
    recorder = Recorder()
    sync, async_ = _clients(recorder)
    build = METHODS[method].build
    for client in (sync, async_):
        bound = _bound(client, method)
        assert inspect.signature(bound) == inspect.signature(build)
        assert bound.__doc__ == build.__doc__ and bound.__doc__


# -- the derived HTTP handlers and the journal -------------------------------------------------------


@dataclass(frozen=True)
class Through:
    """One interface call through `sim.client()` and what the operation gets."""

    send: Callable[[Client], Any]
    args: list[str]  # the operation's arguments, in order
    values: dict[str, Any] = field(default_factory=dict)  # some of their values


WELCOME = {"promotion_id": {"conditions": {"$is": "camp_welcome"}}}
SERVED: dict[str, Through] = {
    "get_incentive": Through(
        lambda c: c.get_incentive("linc_0a11ce01"),
        ["incentive_id"], {"incentive_id": "linc_0a11ce01"},
    ),
    "purchase_reward": Through(
        lambda c: c.purchase_reward("lprg_coffee_club", "lmbr_alice", "lrew_mug"),
        ["program_id", "member_id", "request"],
        {"program_id": "lprg_coffee_club", "member_id": "lmbr_alice", "request": {"reward_id": "lrew_mug"}},
    ),
    "delete_reward": Through(
        lambda c: c.delete_reward("lrew_retired"),
        ["reward_id"], {"reward_id": "lrew_retired"},
    ),
    "delete_webhook": Through(
        lambda c: c.delete_webhook("proj_kestrel", "wh_crm"),
        ["project_id", "webhook_id"], {"project_id": "proj_kestrel", "webhook_id": "wh_crm"},
    ),
    "publish": Through(
        lambda c: c.publish(voucher="WELCOME-OPEN-1", customer={"source_id": "erin"}, join_once=True),
        ["request", "join_once"],
        {"request": {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}}, "join_once": True},
    ),
    "validate": Through(
        lambda c: c.validate_promotions(customer={"source_id": "alice"}, audience_rules_only=True, filters=WELCOME),
        ["request", "audience_rules_only", "filters"],
        {"request": {"customer": {"source_id": "alice"}}, "audience_rules_only": True, "filters": WELCOME},
    ),
    "track_event": Through(
        lambda c: c.track_event(event="order_placed", customer={"source_id": "alice"}, metadata={"amount": 1250}),
        ["request"],
        {"request": {"event": "order_placed", "customer": {"source_id": "alice"}, "metadata": {"amount": 1250}}},
    ),
    "add_gift_balance": Through(
        lambda c: c.add_gift_balance("GIFT-BOB-25", 400),
        ["code", "request"], {"code": "GIFT-BOB-25", "request": {"amount": 400}},
    ),
    "create_stacking_rules": Through(
        lambda c: c.create_stacking_rules("proj_kestrel", redeemables_application_mode="PARTIAL"),
        ["project_id", "request"],
        {"project_id": "proj_kestrel", "request": {"redeemables_application_mode": "PARTIAL"}},
    ),
    "list_stacking_rules": Through(
        lambda c: c.list_stacking_rules("proj_kestrel"), ["project_id"], {"project_id": "proj_kestrel"},
    ),
    # The three below need rules to exist: the send creates them first (another operation).
    "get_stacking_rules": Through(
        lambda c: c.get_stacking_rules("proj_kestrel", c.create_stacking_rules("proj_kestrel").id),
        ["project_id", "stacking_rules_id"], {"project_id": "proj_kestrel"},
    ),
    "update_stacking_rules": Through(
        lambda c: c.update_stacking_rules(
            "proj_kestrel", c.create_stacking_rules("proj_kestrel").id, applicable_redeemables_limit=3
        ),
        ["project_id", "stacking_rules_id", "request"],
        {"project_id": "proj_kestrel", "request": {"applicable_redeemables_limit": 3}},
    ),
    "delete_stacking_rules": Through(
        lambda c: c.delete_stacking_rules("proj_kestrel", c.create_stacking_rules("proj_kestrel").id),
        ["project_id", "stacking_rules_id"], {"project_id": "proj_kestrel"},
    ),
    "redeem_stacked": Through(
        lambda c: c.redeem_stacked(redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"}]),
        ["request"], {"request": {"redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"}]}},
    ),
    "rollback_redemption": Through(
        lambda c: c.rollback_redemption(
            c.redeem_stacked(redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"}]).redemptions[0].id,
            reason="returned",
        ),
        ["redemption_id", "request", "reason", "tracking_id"], {"request": {"reason": "returned"}},
    ),
    "release_session": Through(
        lambda c: c.release_session("WELCOME-ALICE", c.validate_stacked(
            redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"}], session={"type": "LOCK", "key": "ssn-1"},
        ).session.key),
        ["code", "session_key"], {"code": "WELCOME-ALICE", "session_key": "ssn-1"},
    ),
    "validate_stacked": Through(
        lambda c: c.validate_stacked(redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"}]),
        ["request"], {"request": {"redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"}]}},
    ),
    "list_products": Through(lambda c: c.list_products(limit=2), ["limit", "page", "order", "start_date", "end_date"],
                             {"limit": "2", "page": None}),
    "get_product": Through(lambda c: c.get_product("prod_mug"), ["product_id"], {"product_id": "prod_mug"}),
    "list_skus": Through(lambda c: c.list_skus("prod_beans_ethiopia", order="created_at"),
                         ["product_id", "limit", "page", "order", "start_date", "end_date"], {"order": "created_at"}),
    "get_sku": Through(lambda c: c.get_sku("sku_ethiopia_250"), ["sku_id"], {"sku_id": "sku_ethiopia_250"}),
    "list_product_collections": Through(lambda c: c.list_product_collections(page=1), ["limit", "page", "order"],
                                        {"page": "1"}),
    "list_collection_products": Through(lambda c: c.list_collection_products("pc_beans"),
                                        ["collection_id", "limit", "page", "order", "starting_after"],
                                        {"collection_id": "pc_beans"}),
    "list_customers": Through(
        lambda c: c.list_customers(name="Alice Moreau"),
        ["limit", "page", "email", "city", "name", "segment_id", "created_before", "created_after", "updated_before",
         "updated_after", "order", "starting_after"], {"name": "Alice Moreau"},
    ),
    "get_customer": Through(lambda c: c.get_customer("alice"), ["customer_id"], {"customer_id": "alice"}),
    "list_customer_segments": Through(lambda c: c.list_customer_segments("cust_alice"), ["customer_id"],
                                      {"customer_id": "cust_alice"}),
    "get_segment": Through(lambda c: c.get_segment("seg_vip"), ["segment_id"], {"segment_id": "seg_vip"}),
    "list_rewards": Through(lambda c: c.list_rewards(assignment_id="lrewa_mug"), ["limit", "page", "assignment_id"],
                            {"assignment_id": "lrewa_mug"}),
    "get_reward": Through(lambda c: c.get_reward("lrew_mug"), ["reward_id"], {"reward_id": "lrew_mug"}),
    "list_orders": Through(lambda c: c.list_orders(limit=1), ["limit", "page", "order"], {"limit": "1"}),
    "list_redemptions": Through(
        lambda c: c.list_redemptions(customer="cust_alice"),
        ["limit", "page", "result", "campaign", "customer", "order", "created_before", "created_after"],
        {"customer": "cust_alice"},
    ),
    "list_validation_rules": Through(lambda c: c.list_validation_rules(order="name"),
                                     ["limit", "page", "order", "start_date", "end_date"], {"order": "name"}),
    "get_validation_rule": Through(lambda c: c.get_validation_rule("val_promo_welcome_10"), ["rule_id"],
                                   {"rule_id": "val_promo_welcome_10"}),
    "list_validation_rules_assignments": Through(
        lambda c: c.list_validation_rules_assignments(related_object_id="promo_welcome_10"),
        ["related_object_id", "rule", "page", "limit", "order"], {"related_object_id": "promo_welcome_10"}),
    "list_loyalty_programs": Through(lambda c: c.list_loyalty_programs(expand="category"),
                                     ["limit", "page", "expand", "order"], {"expand": "category"}),
    "get_loyalty_program": Through(lambda c: c.get_loyalty_program("lcdef_beans"), ["campaign_id"],
                                   {"campaign_id": "lcdef_beans"}),
    "list_loyalty_tiers": Through(lambda c: c.list_loyalty_tiers("lcdef_beans"), ["campaign_id", "limit", "order"],
                                  {"campaign_id": "lcdef_beans"}),
    "list_earning_rules": Through(lambda c: c.list_earning_rules("lcdef_beans", page=1),
                                  ["campaign_id", "limit", "page", "order"], {"page": "1"}),
    "list_reward_assignments": Through(lambda c: c.list_reward_assignments("lcdef_beans", assignment_id="lrewa_mug"),
                                       ["campaign_id", "limit", "page", "assignment_id"], {"assignment_id": "lrewa_mug"}),
    "list_members": Through(lambda c: c.list_members("lcdef_beans", customer="alice"),
                            ["campaign_id", "limit", "page", "customer", "created_before", "created_after",
                             "updated_before", "updated_after", "order", "code"], {"customer": "alice"}),
    "list_campaigns": Through(lambda c: c.list_campaigns(is_referral_code=True), ["limit", "page", "campaign_type",
                              "expand", "campaign_status", "is_referral_code", "order", "filters", "access_settings"],
                              {"is_referral_code": "true"}),
    "get_campaign": Through(lambda c: c.get_campaign("camp_gift"), ["campaign_id"], {"campaign_id": "camp_gift"}),
    "get_campaign_summary": Through(lambda c: c.get_campaign_summary("camp_gift", end_date="2026-03-06"),
                                    ["campaign_id", "start_date", "end_date"], {"end_date": "2026-03-06"}),
    "list_campaign_transactions": Through(lambda c: c.list_campaign_transactions("camp_gift", limit=3),
                                          ["campaign_id", "limit", "order", "starting_after_id", "filters"],
                                          {"limit": "3"}),
    "list_vouchers": Through(lambda c: c.list_vouchers(ids=["v_1", "v_2"]), [
        "limit", "page", "category", "campaign_id", "customer", "campaign", "created_before", "created_after",
        "updated_before", "updated_after", "order", "code", "ids", "filters"], {"ids": ["v_1", "v_2"]}),
    "get_voucher": Through(lambda c: c.get_voucher("GIFT-BOB-25"), ["code"], {"code": "GIFT-BOB-25"}),
    "list_promotion_tiers": Through(lambda c: c.list_promotion_tiers(is_available=True),
                                    ["is_available", "limit", "page", "order"], {"is_available": "true"}),
    "list_campaign_promotion_tiers": Through(lambda c: c.list_campaign_promotion_tiers("camp_brewers_club"),
                                             ["campaign_id"], {"campaign_id": "camp_brewers_club"}),
    "get_promotion_tier": Through(lambda c: c.get_promotion_tier("promo_kettle_10pct"), ["tier_id"],
                                  {"tier_id": "promo_kettle_10pct"}),
    "list_promotion_stacks": Through(lambda c: c.list_promotion_stacks(order="name"),
                                     ["limit", "page", "order", "created_before", "created_after", "updated_before",
                                      "updated_after"], {"order": "name"}),
    "list_campaign_promotion_stacks": Through(lambda c: c.list_campaign_promotion_stacks("camp_brewers_club"),
                                              ["campaign_id"], {"campaign_id": "camp_brewers_club"}),
    "list_categories": Through(lambda c: c.list_categories(), [], {}),
    "create_export": Through(lambda c: c.create_export(exported_object="order"), ["request"],
                             {"request": {"exported_object": "order"}}),
    "list_exports": Through(lambda c: c.list_exports(order="status"), ["limit", "page", "order"], {"order": "status"}),
    "get_export": Through(lambda c: c.get_export(c.create_export(exported_object="order").id), ["export_id"]),
    "download_export": Through(lambda c: c.download_export(c.create_export(exported_object="order").id),
                               ["export_id"]),
    "qualifications": Through(
        lambda c: c.qualifications(customer={"source_id": "alice"}, options={"limit": 2}),
        ["request"], {"request": {"customer": {"source_id": "alice"}, "options": {"limit": 2}}},
    ),
}


def test_every_service_operation_is_served_here() -> None:
    assert set(SERVED) == {e.name for e in SERVICE}


@pytest.mark.parametrize("name", sorted(SERVED))
def test_a_handler_passes_the_arguments_a_journal_line_records(
    sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Path parameters, then `request`, then the query's arguments, each
    under the operation's own name: what the journal writes (writes) and what
    the operation is called with (reads and writes alike)."""
    case = SERVED[name]
    op = BY_NAME[name]
    given: list[dict[str, Any]] = []
    apply = sim.apply

    def spy(operation: Operation[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if operation is op:
            given.append(json.loads(json.dumps(kwargs)))  # as the journal would store them
        return apply(operation, *args, **kwargs)

    monkeypatch.setattr(sim, "apply", spy)
    journal = tmp_path / "journal.jsonl"
    sim.record_to(journal, fsync=False)
    with sim.client() as client:
        case.send(client)
    sim.record_to(None)
    (args,) = given
    assert list(args) == case.args
    assert {k: args[k] for k in case.values} == case.values
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    recorded = [line["args"] for line in lines if line["op"] == name]
    if op.write:
        assert recorded == [args]  # the same names, order and values
        assert list(recorded[0]) == case.args
    else:
        assert recorded == [], "a read is not journaled"


def test_the_reads_are_the_ones_that_change_nothing() -> None:
    reads = {op.name for op in OPERATIONS if op.endpoint is not None and not op.write}
    assert reads == {"get_incentive", "validate", "list_stacking_rules", "get_stacking_rules", "qualifications",
                     "list_products", "get_product", "list_skus", "get_sku", "list_product_collections",
                     "list_collection_products", "list_customer_segments", "get_segment", "list_orders",
                     "list_redemptions", "list_customers", "get_customer", "list_rewards", "get_reward",
                     "list_validation_rules", "get_validation_rule", "list_validation_rules_assignments",
                     "list_loyalty_programs", "get_loyalty_program", "list_loyalty_tiers", "list_earning_rules",
                     "list_reward_assignments", "list_members",
                     "list_campaigns", "get_campaign", "get_campaign_summary", "list_vouchers",
                     "get_voucher", "list_campaign_transactions",
                     "list_promotion_tiers", "list_campaign_promotion_tiers", "get_promotion_tier",
                     "list_promotion_stacks", "list_campaign_promotion_stacks", "list_categories",
                     "list_exports", "get_export", "download_export"}


# -- apply -------------------------------------------------------------------------------------------


def test_apply_takes_keyword_arguments_only(sim: Simulator, tmp_path: Path) -> None:
    before = sim.dump_json()
    journal = tmp_path / "journal.jsonl"
    sim.record_to(journal, fsync=False)
    with pytest.raises(TypeError):
        sim.apply(GET_INCENTIVE, "linc_0a11ce01")  # type: ignore[call-arg]  # the refusal under test
    with pytest.raises(TypeError):
        sim.apply(PUBLISH, {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})  # type: ignore[call-arg]  # the refusal under test
    sim.record_to(None)
    assert sim.dump_json() == before
    assert journal.read_text(encoding="utf-8") == ""
    # by keyword, the same calls run
    assert sim.apply(GET_INCENTIVE, incentive_id="linc_0a11ce01").id == "linc_0a11ce01"
