"""Every route x every way of getting the credentials wrong -> the exact 401.

Auth is checked right after routing, before the route's body, its operation
or whether it is implemented yet (a 501 route still answers 401 first). A
refused request must leave the simulator byte-identical, so every request
here carries a body that *would* change the state if it got through, and the
simulator has been moved away from its initial state first (so a reset or a
restore slipping through would show).
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from demo_keys import APP, BASE, BEARER, LOYALTY, MANAGEMENT
from promolab import Simulator
from promolab.http import ROUTES, SimulatorTransport
from promolab.http.auth import AuthKind
from promolab.http.routes import Route

REQUEST_ID = re.compile(r"^v-[0-9a-f]+$")
UNAUTHORIZED = {"code": 401, "message": "Unauthorized", "key": "unauthorized"}

# Demo credentials (data/scenarios/demo.yaml).

#: (method, template) -> (concrete path, JSON body). Bodies would succeed (or
#: change the state) if auth let them through.
SAMPLES: dict[tuple[str, str], tuple[str, Any]] = {
    ("GET", "/v2/loyalties/incentives/{id}"): ("/v2/loyalties/incentives/linc_0a11ce01", None),
    ("POST", "/v2/loyalties/programs/{programId}/members/{memberId}/rewards/purchases"): (
        "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases", {"reward_id": "lrew_mug"}),
    ("DELETE", "/v2/loyalties/rewards/{id}"): ("/v2/loyalties/rewards/lrew_retired", None),
    ("DELETE", "/management/v1/projects/{projectId}/webhooks/{webhookId}"): (
        "/management/v1/projects/proj_kestrel/webhooks/wh_crm", None),
    ("POST", "/client/v1/publish"): (
        "/client/v1/publish", {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}}),
    ("POST", "/v1/promotions/validation"): (
        "/v1/promotions/validation",
        {"customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}}),
    ("POST", "/v1/events"): (
        "/v1/events", {"event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 5}}),
    ("POST", "/v1/vouchers/{code}/balance"): ("/v1/vouchers/GIFT-ALICE-50/balance", {"amount": 1000}),
    ("POST", "/_sim/clock/advance"): ("/_sim/clock/advance", {"seconds": 3600}),
    ("GET", "/_sim/loyalty/members/{memberId}"): ("/_sim/loyalty/members/lmbr_alice", None),
    # /_sim/restore gets the initial snapshot (see `body_for`).
}


def concrete(route: Route) -> tuple[str, Any]:
    sample = SAMPLES.get((route.method, route.path))
    if sample is not None:
        return sample
    # A route added after this table: fill its parameters with plausible ids.
    return re.sub(r"\{\w+\}", "x", route.path), ({} if route.method == "POST" else None)


def wrong_ways(kind: AuthKind) -> dict[str, dict[str, str]]:
    """Named header sets that must all be refused on a route of `kind`."""
    if kind is AuthKind.APP:
        return {
            "no credentials": {},
            "wrong app token": {**APP, "X-App-Token": "kestrel-app-token-x"},
            "wrong app id": {**APP, "X-App-Id": "someone-else"},
            "app id only": {"X-App-Id": APP["X-App-Id"]},
            "management credentials": MANAGEMENT,
            "management id + token as app headers": {
                "X-App-Id": MANAGEMENT["X-Management-Id"], "X-App-Token": MANAGEMENT["X-Management-Token"]},
        }
    if kind is AuthKind.LOYALTY:
        return {
            "no credentials": {},
            "wrong app token": {**LOYALTY, "X-App-Token": "wrong"},
            "wrong bearer": {**APP, "Authorization": "Bearer wrong"},
            "bearer only": BEARER,
            "app id+token without bearer": APP,
            "bearer token with another scheme": {**APP, "Authorization": "Basic kestrel-access-token"},
            "bare token without scheme": {**APP, "Authorization": "kestrel-access-token"},
            "management credentials": MANAGEMENT,
        }
    assert kind is AuthKind.MANAGEMENT
    return {
        "no credentials": {},
        "wrong management token": {**MANAGEMENT, "X-Management-Token": "kestrel-management-token-x"},
        "wrong management id": {**MANAGEMENT, "X-Management-Id": "kestrel-app"},
        "management token empty": {**MANAGEMENT, "X-Management-Token": ""},
        "app credentials": LOYALTY,
        "app id + token as management headers": {
            "X-Management-Id": APP["X-App-Id"], "X-Management-Token": APP["X-App-Token"]},
    }


def right_way(kind: AuthKind) -> dict[str, str]:
    return {AuthKind.APP: APP, AuthKind.LOYALTY: LOYALTY, AuthKind.MANAGEMENT: MANAGEMENT}[kind]


GUARDED = [r for r in ROUTES if r.auth is not AuthKind.NONE]
CASES = [(r, name) for r in GUARDED for name in wrong_ways(r.auth)]


def test_every_route_of_the_table_is_guarded() -> None:
    # /openapi.json is added by App itself and is the only open route.
    assert GUARDED == list(ROUTES)
    assert {r.path for r in ROUTES if r.endpoint.control} >= {"/_sim/state", "/_sim/reset", "/_sim/snapshot", "/_sim/restore"}
    assert all(r.auth is AuthKind.MANAGEMENT for r in ROUTES if r.path.startswith("/_sim/"))


@pytest.fixture
def moved_sim(sim: Simulator) -> tuple[Simulator, dict[str, Any]]:
    """The demo simulator one hour after its start; returns it with its
    initial snapshot (the body a smuggled /_sim/restore would apply)."""
    initial = sim.snapshot()
    sim.advance(3600)
    return sim, initial


def send(client: httpx.Client, route: Route, headers: dict[str, str], initial: dict[str, Any]) -> httpx.Response:
    path, body = concrete(route)
    if route.path == "/_sim/restore":
        body = initial
    content = None if body is None else json.dumps(body).encode()
    if content is not None:
        headers = {**headers, "Content-Type": "application/json"}
    return client.request(route.method, BASE + path, headers=headers, content=content)


@pytest.mark.parametrize(("route", "way"), CASES, ids=[f"{r.method} {r.path} | {w}" for r, w in CASES])
def test_wrong_credentials_get_the_exact_401_and_change_nothing(
    moved_sim: tuple[Simulator, dict[str, Any]], route: Route, way: str
) -> None:
    sim, initial = moved_sim
    before = sim.dump_json()
    with httpx.Client(transport=SimulatorTransport(sim)) as client:
        response = send(client, route, wrong_ways(route.auth)[way], initial)
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    request_id = body.pop("request_id")
    assert body == UNAUTHORIZED  # exactly: no details, no resource fields
    assert REQUEST_ID.match(request_id)
    assert sim.dump_json() == before


def test_request_ids_of_refusals_are_unique(moved_sim: tuple[Simulator, dict[str, Any]]) -> None:
    sim, initial = moved_sim
    ids = []
    with httpx.Client(transport=SimulatorTransport(sim)) as client:
        for route, way in CASES:
            ids.append(send(client, route, wrong_ways(route.auth)[way], initial).json()["request_id"])
    assert len(set(ids)) == len(ids) == len(CASES)


@pytest.mark.parametrize("route", GUARDED, ids=[f"{r.method} {r.path}" for r in GUARDED])
def test_right_credentials_pass_auth(moved_sim: tuple[Simulator, dict[str, Any]], route: Route) -> None:
    """The other half of the matrix: the headers the table calls right are
    accepted, so the 401s above come from the credentials, not the path."""
    sim, initial = moved_sim
    with httpx.Client(transport=SimulatorTransport(sim)) as client:
        response = send(client, route, right_way(route.auth), initial)
    assert response.status_code not in (401, 405), response.text
    if response.status_code == 404:  # a missing resource is fine, a missing route is not
        assert response.json().get("resource_type") != "route", response.text


def test_header_names_are_case_insensitive(sim: Simulator) -> None:
    lower = {k.lower(): v for k, v in LOYALTY.items()}
    with httpx.Client(transport=SimulatorTransport(sim)) as client:
        response = client.get(f"{BASE}/v2/loyalties/incentives/linc_0a11ce01", headers=lower)
    assert response.status_code == 200


def test_openapi_is_the_only_open_route(sim: Simulator) -> None:
    with httpx.Client(transport=SimulatorTransport(sim)) as client:
        response = client.get(f"{BASE}/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    public = {(r.method.lower(), r.path) for r in ROUTES if not r.endpoint.control}
    served = {(m, p) for p, ops in document["paths"].items() for m in ops}
    assert served == public  # generated from the table: nothing more, nothing less
    assert not any(p.startswith("/_sim") for p in document["paths"])
