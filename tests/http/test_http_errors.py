"""The HTTP face's own failures: 404 route, 405, 400 payload, 413, 415.

Each is answered in the interface's error shape with a unique request_id and
leaves the state untouched. Body checks use the control API's
`POST /_sim/clock/advance` (a POST route that is implemented whatever other
issues have landed); the order of checks is route -> method -> auth -> size
-> content type -> JSON -> request model.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import httpx
import pytest
import yaml

from demo_keys import BASE, JSON, LOYALTY, MANAGEMENT
from promolab import Simulator
from promolab.http import App, HttpRequest, SimulatorTransport

ADVANCE = f"{BASE}/_sim/clock/advance"
REQUEST_ID = re.compile(r"^v-[0-9a-f]{20}$")


def error(response: httpx.Response, status: int, key: str) -> dict[str, Any]:
    """Check the common shape and return the body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["code"] == status
    assert body["key"] == key
    assert isinstance(body["message"], str) and body["message"]
    assert REQUEST_ID.match(body["request_id"])
    return body


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v2/loyalties/incentives"),          # the collection is not an endpoint
        ("GET", "/v2/loyalties/incentives/linc_1/x"),  # one segment too many
        ("GET", "/v3/loyalties/incentives/linc_1"),
        ("POST", "/v1/nothing"),
        ("GET", "/_sim/nothing"),
        ("GET", "/"),
    ],
)
def test_unknown_route_is_404_before_auth(http: httpx.Client, sim: Simulator, method: str, path: str) -> None:
    before = sim.dump_json()
    body = error(http.request(method, BASE + path), 404, "not_found")
    assert body["resource_type"] == "route"
    assert path in body["details"]
    assert sim.dump_json() == before


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/v2/loyalties/incentives/linc_0a11ce01", "GET"),
        ("DELETE", "/v2/loyalties/incentives/linc_0a11ce01", "GET"),
        ("GET", "/v2/loyalties/rewards/lrew_mug", "DELETE"),
        ("GET", "/client/v1/publish", "POST"),
        ("PATCH", "/management/v1/projects/proj_kestrel/webhooks/wh_crm", "DELETE"),
        ("DELETE", "/_sim/state", "GET"),
        ("GET", "/_sim/reset", "POST"),
    ],
)
def test_wrong_method_is_405_with_allow(http: httpx.Client, sim: Simulator, method: str, path: str, allow: str) -> None:
    before = sim.dump_json()
    response = http.request(method, BASE + path, headers=MANAGEMENT)
    body = error(response, 405, "method_not_allowed")
    assert response.headers["allow"] == allow
    assert method in body["details"]
    assert sim.dump_json() == before


def test_head_is_answered_like_get(sim: Simulator) -> None:
    app = App(sim)
    request = HttpRequest("HEAD", "/v2/loyalties/incentives/linc_0a11ce01",
                          headers={k.lower(): v for k, v in LOYALTY.items()})
    assert app.handle(request).status == 200


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b'{"seconds": ', "Invalid JSON"),
        (b"{'seconds': 1}", "Invalid JSON"),
        (b"\xff\xfe", "Invalid JSON"),
        (b"[1, 2", "Invalid JSON"),
    ],
    ids=["truncated", "single-quotes", "not-utf8", "unclosed-array"],
)
def test_malformed_json_is_400_invalid_payload(http: httpx.Client, sim: Simulator, content: bytes, needle: str) -> None:
    before = sim.dump_json()
    body = error(http.post(ADVANCE, headers={**MANAGEMENT, **JSON}, content=content), 400, "invalid_payload")
    assert needle in body["details"]
    assert sim.dump_json() == before


@pytest.mark.parametrize(
    ("payload", "details"),
    [
        ({}, "Payload should have required property 'seconds'"),
        ({"seconds": 1, "minutes": 2}, "Property .minutes is not allowed"),
        ({"seconds": -1}, "Property .seconds: Input should be greater than or equal to 0"),
        ({"seconds": "soon"}, "Property .seconds: Input should be a valid number, unable to parse string as a number"),
        ([1], "Payload should be an object"),
    ],
)
def test_body_breaking_the_request_model_names_the_field(
    http: httpx.Client, sim: Simulator, payload: Any, details: str
) -> None:
    before = sim.dump_json()
    body = error(http.post(ADVANCE, headers=MANAGEMENT, json=payload), 400, "invalid_payload")
    assert body["details"] == details
    assert sim.dump_json() == before


@pytest.fixture
def small_body_sim(_demo_document: dict[str, Any]) -> Simulator:
    document = copy.deepcopy(_demo_document)
    document["settings"]["max_body_bytes"] = 64
    return Simulator.from_scenario(document)


def test_body_over_the_limit_is_413_and_at_the_limit_is_not(small_body_sim: Simulator) -> None:
    sim = small_body_sim
    http = httpx.Client(transport=SimulatorTransport(sim))
    before = sim.dump_json()
    at_limit = b'{"seconds": 5}'.ljust(64)
    assert len(at_limit) == 64
    over = at_limit + b" "
    body = error(http.post(ADVANCE, headers={**MANAGEMENT, **JSON}, content=over), 413, "request_too_large")
    assert body["details"] == "Request body exceeds the limit of 64 bytes"
    assert sim.dump_json() == before
    assert http.post(ADVANCE, headers={**MANAGEMENT, **JSON}, content=at_limit).json() == {
        "now": "2026-03-06T10:00:05.000Z"
    }


def test_size_is_checked_before_content_type(small_body_sim: Simulator) -> None:
    http = httpx.Client(transport=SimulatorTransport(small_body_sim))
    response = http.post(ADVANCE, headers={**MANAGEMENT, "Content-Type": "text/plain"}, content=b"x" * 65)
    error(response, 413, "request_too_large")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_wrong_content_type_is_415(http: httpx.Client, sim: Simulator, content_type: str) -> None:
    before = sim.dump_json()
    response = http.post(ADVANCE, headers={**MANAGEMENT, "Content-Type": content_type}, content=b'{"seconds": 1}')
    body = error(response, 415, "unsupported_media_type")
    assert content_type in body["details"]
    assert sim.dump_json() == before


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "application/vnd.api+json"])
def test_json_content_types_are_accepted(http: httpx.Client, content_type: str) -> None:
    response = http.post(ADVANCE, headers={**MANAGEMENT, "Content-Type": content_type}, content=b'{"seconds": 1}')
    assert response.status_code == 200


def test_auth_is_checked_before_the_body(http: httpx.Client) -> None:
    # A refused caller learns nothing about what the route would accept.
    response = http.post(ADVANCE, headers={"Content-Type": "text/plain"}, content=b"{")
    error(response, 401, "unauthorized")


def test_every_failure_has_a_unique_request_id(http: httpx.Client) -> None:
    failures = [
        http.get(f"{BASE}/nowhere"),
        http.put(f"{BASE}/v2/loyalties/incentives/linc_0a11ce01"),
        http.get(f"{BASE}/v2/loyalties/incentives/linc_0a11ce01"),
        http.get(f"{BASE}/v2/loyalties/incentives/nope", headers=LOYALTY),
        http.get(f"{BASE}/v2/loyalties/incentives/linc_ffff", headers=LOYALTY),
        http.delete(f"{BASE}/v2/loyalties/rewards/lrew_mug", headers=LOYALTY),
        http.post(ADVANCE, headers={**MANAGEMENT, **JSON}, content=b"{"),
        http.post(ADVANCE, headers={**MANAGEMENT, "Content-Type": "text/plain"}, content=b"{}"),
        http.get(f"{BASE}/nowhere"),
    ]
    ids = [r.json()["request_id"] for r in failures]
    assert [r.status_code for r in failures] == [404, 405, 401, 400, 404, 400, 400, 415, 404]
    assert all(REQUEST_ID.match(i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_request_ids_are_a_deterministic_sequence_per_app(sim: Simulator) -> None:
    """Two fresh apps over equal simulators number their answers alike (the
    served-vs-in-process differential relies on it); successes draw no id."""
    other = Simulator.restore(sim.snapshot())

    def run(target: Simulator) -> list[str]:
        with httpx.Client(transport=SimulatorTransport(target)) as http:
            http.get(f"{BASE}/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY)
            return [http.get(f"{BASE}/x{i}").json()["request_id"] for i in range(3)]

    assert run(sim) == run(other)
    assert run(sim) != run(Simulator.restore({**sim.snapshot(), "seed": 99}))


def test_no_route_ever_answers_500_on_junk(http: httpx.Client, sim: Simulator) -> None:
    """A handful of odd requests on every route: all answered in shape, none 500."""
    from promolab.http import ROUTES

    for route in ROUTES:
        path = re.sub(r"\{\w+\}", "%00%FF", route.path)
        for content in (b"", b"null", b"[]", b'"x"', b"{}"):
            response = http.request(route.method, BASE + path, headers={**LOYALTY, **MANAGEMENT, **JSON},
                                    content=content)
            assert response.status_code != 500, (route.path, content, response.text)
            if response.status_code >= 400:
                assert "request_id" in response.json()


def test_demo_yaml_is_the_fixture(demo_path: Any, _demo_document: dict[str, Any]) -> None:
    # Guards the header constants above against a change of the demo's credentials.
    creds = yaml.safe_load(demo_path.read_text())["project"]["credentials"]
    assert creds["app_id"] == LOYALTY["X-App-Id"]
    assert creds["access_token"] == LOYALTY["Authorization"].split()[1]
    assert creds["management_token"] == MANAGEMENT["X-Management-Token"]
