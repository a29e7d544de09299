"""Security: secrets stay secret, comparisons are constant-time, the control
API takes management credentials only.

Secrets: the app token, the access token, the management token and every
webhook secret of the scenario. They must never appear in
- the served simulator's output (stdout/stderr, uvicorn at `--log-level
  trace`, which is the most talkative it gets) nor in the `promolab.*`
  loggers in-process, including the trace of an unhandled error;
- any error body (the whole bad-input catalogue, 401s for every way of
  getting a credential wrong, 404/405);
- `GET /_sim/state`, the redacted `GET /_sim/snapshot`, the delivery log,
  the member view, the coverage report, nor the journal on disk.

Constant time: `http/auth.py` compares every credential with
`hmac.compare_digest`, and all of them even when the first one is wrong
(no early exit that would tell which header was right).
"""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from promolab import Simulator
from promolab.http import auth as auth_module
from promolab.http.app import App
from promolab.http.auth import AuthKind, authorized
from promolab.http.messages import HttpRequest
from promolab.http.table import ROUTES
from promolab.http.transport import SimulatorTransport
from relsupport import (
    ACCESS_TOKEN,
    APP_HEADERS,
    APP_TOKEN,
    DEMO,
    LOYALTY_HEADERS,
    MANAGEMENT_HEADERS,
    MANAGEMENT_TOKEN,
    WEBHOOK_SECRETS,
    demo_document,
    record_result,
    summary_line,
)
from test_bad_inputs import CASES

SECRETS = (APP_TOKEN, ACCESS_TOKEN, MANAGEMENT_TOKEN, *WEBHOOK_SECRETS)
FIGURES: dict[str, Any] = {}


def leaked(text: str | bytes) -> list[str]:
    data = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    return [s for s in SECRETS if s in data]


def _fresh() -> Simulator:
    return Simulator.from_scenario(copy.deepcopy(demo_document()))


@pytest.fixture(scope="module", autouse=True)
def _report() -> Any:
    yield
    if FIGURES:
        record_result("security", dict(FIGURES))
        summary_line(f"security: no secret in {FIGURES.get('error_bodies_checked', 0)} error bodies, the server output, "
                     f"the control views or the journal; {FIGURES.get('auth_variants_checked', 0)} credential variants "
                     f"all through hmac.compare_digest")


def test_the_secrets_are_the_scenarios() -> None:
    """Guard: the list checked below is really what the demo scenario holds."""
    sim = _fresh()
    creds = sim.state.project.credentials
    assert {creds.app_token.get_secret_value(), creds.access_token.get_secret_value(),
            creds.management_token.get_secret_value()} == {APP_TOKEN, ACCESS_TOKEN, MANAGEMENT_TOKEN}
    assert {h.secret.get_secret_value() for h in sim.state.webhooks.values()} == set(WEBHOOK_SECRETS)
    assert leaked(json.dumps(sim.snapshot())), "an unredacted snapshot carries the secrets (by design)"


# -- state dumps ---------------------------------------------------------------------------------
def test_dumps_and_redacted_snapshot_hold_no_secret() -> None:
    sim = _fresh()
    client = sim.client()
    client.add_gift_balance("GIFT-ALICE-50", 500)  # webhook sendouts: signed bodies in the state
    sim.advance(120)  # retries attempted (no receiver registered in-process)
    assert sim.state.webhook_deliveries, "no delivery was attempted"
    for name, text in {
        "dump_json": sim.dump_json(),
        "snapshot(redact=True)": json.dumps(sim.snapshot(redact=True)),
        "repr(state.project)": repr(sim.state.project),
        "repr(webhooks)": repr(sim.state.webhooks),
        "str(credentials)": str(sim.state.project.credentials),
    }.items():
        assert not leaked(text), f"{name} leaks {leaked(text)}"


@pytest.mark.served
def test_served_control_views_and_journal_hold_no_secret(server_factory: Any, tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    server = server_factory(DEMO, journal=journal, log_level="trace")
    with server.http() as http:
        assert http.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP_HEADERS, json={"amount": 100}).status_code == 200
        assert http.post("/v1/events", headers=APP_HEADERS, json={
            "event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 4}}).status_code == 200
        assert http.post("/_sim/clock/advance", headers=MANAGEMENT_HEADERS, json={"seconds": 300}).status_code == 200
        views = {}
        for path in ("/_sim/state", "/_sim/snapshot", "/_sim/webhooks/deliveries", "/_sim/loyalty/members/lmbr_alice",
                     "/_sim/coverage", "/_sim/clock", "/openapi.json"):
            r = http.get(path, headers=MANAGEMENT_HEADERS)
            assert r.status_code == 200, (path, r.text[:200])
            views[path] = r.content
        # the redacted snapshot restores onto the running simulator, keeping its secrets
        r = http.post("/_sim/restore", headers=MANAGEMENT_HEADERS, content=views["/_sim/snapshot"],
                      )
        assert r.status_code == 200, r.text[:300]
        assert http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY_HEADERS).status_code == 200
    server.stop()
    for path, content in views.items():
        assert not leaked(content), f"{path} leaks {leaked(content)}"
    assert json.loads(views["/_sim/state"])["state"]["project"]["credentials"]["app_token"] == "**********"
    assert not leaked(journal.read_bytes()), f"the journal leaks {leaked(journal.read_bytes())}"
    FIGURES["control_views_checked"] = sorted(views)


# -- logs ------------------------------------------------------------------------------------------
@pytest.mark.served
def test_server_output_holds_no_secret(server_factory: Any) -> None:
    """uvicorn at trace level, a 404, 401s with near-miss tokens, a 413, successes."""
    server = server_factory(DEMO, log_level="trace")
    with server.http() as http:
        http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY_HEADERS)
        http.get("/v2/loyalties/incentives/linc_ffff", headers=LOYALTY_HEADERS)
        http.get("/v2/loyalties/incentives/linc_0a11ce01", headers={**LOYALTY_HEADERS, "X-App-Token": APP_TOKEN + "x"})
        http.get("/_sim/state", headers={"X-Management-Id": "kestrel-management", "X-Management-Token": APP_TOKEN})
        http.post("/client/v1/publish", headers=APP_HEADERS, json={"voucher": "WELCOME-OPEN-1",
                                                                   "customer": {"source_id": "erin"}})
        http.post("/v1/events", headers=APP_HEADERS, content=b"x" * (2 * 1024 * 1024))
        http.get("/_sim/state", headers=MANAGEMENT_HEADERS)
    server.stop()
    output = server.log_text()
    assert "ASGI" in output, "trace logging was not on"
    assert not leaked(output), f"server output leaks {leaked(output)}"
    FIGURES["server_log_bytes_checked"] = len(output.encode())


def test_in_process_logs_hold_no_secret_even_on_a_crash(caplog: pytest.LogCaptureFixture,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    sim = _fresh()
    app = App(sim)
    http = httpx.Client(transport=SimulatorTransport(app), base_url="http://promolab.local")
    caplog.set_level(logging.DEBUG)
    http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY_HEADERS)
    http.get("/_sim/state", headers={**MANAGEMENT_HEADERS, "X-Management-Token": ACCESS_TOKEN})
    http.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP_HEADERS, json={"amount": 100})

    from promolab.http.handlers import operation_handler
    from promolab.http.routes import Route, Router
    from promolab.models.endpoints import GET_INCENTIVE
    from promolab.sim.operation import bind

    def explode(sim: Any, **args: Any) -> Any:
        token = sim.state.project.credentials.app_token  # a SecretStr in a local of the failing frame
        raise RuntimeError(f"boom with {token}")

    # The app's route for GET incentive, served by an operation that crashes.
    handler = operation_handler(bind(GET_INCENTIVE, explode, write=False))
    monkeypatch.setattr(app, "router", Router([
        Route(r.endpoint, handler) if r.endpoint is GET_INCENTIVE else r for r in app.router.routes
    ]))
    r = http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY_HEADERS)
    assert r.status_code == 500 and r.json()["key"] == "internal_error"
    assert not leaked(r.content)
    text = "\n".join(caplog.messages) + "\n" + caplog.text
    assert "unhandled error" in text and "boom" in text
    assert not leaked(text), f"logs leak {leaked(text)}"


# -- error bodies -------------------------------------------------------------------------------
def test_no_error_body_holds_a_secret() -> None:
    app = App(_fresh())
    bodies = 0
    for case in CASES:
        response = app.handle(case.http_request())
        assert response.status >= 400
        assert not leaked(response.body), f"{case.id} leaks {leaked(response.body)}"
        bodies += 1
    # near misses: the given or the expected token is never echoed
    for route in ROUTES:
        path = route.path.replace("{", "").replace("}", "")
        for headers in ({"x-app-id": "kestrel-app", "x-app-token": APP_TOKEN[:-1]},
                        {"x-management-id": "kestrel-management", "x-management-token": MANAGEMENT_TOKEN + " "},
                        {"authorization": f"Bearer {ACCESS_TOKEN.upper()}", "x-app-id": "kestrel-app",
                         "x-app-token": APP_TOKEN},
                        {"authorization": f"Basic {ACCESS_TOKEN}", "x-app-id": "kestrel-app", "x-app-token": APP_TOKEN}):
            if route.auth is AuthKind.APP and "authorization" in headers:
                continue  # these carry the right app credentials: not a refusal on app routes
            response = app.handle(HttpRequest(route.method, path, "", headers, b""))
            assert response.status == 401, (route.path, headers, response.body)
            body = json.loads(response.body)
            assert set(body) == {"code", "key", "message", "request_id"}
            assert not leaked(response.body) and APP_TOKEN[:-1] not in response.body.decode()
            bodies += 1
    FIGURES["error_bodies_checked"] = bodies


# -- constant-time comparison ---------------------------------------------------------------------
class Recorder:
    def __init__(self, real: Any) -> None:
        self.real = real
        self.calls: list[tuple[bytes, bytes]] = []

    def __call__(self, a: Any, b: Any) -> bool:
        self.calls.append((a, b))
        return bool(self.real(a, b))


def test_auth_uses_compare_digest_for_every_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder(auth_module.hmac.compare_digest)
    monkeypatch.setattr(auth_module.hmac, "compare_digest", recorder)
    creds = _fresh().state.project.credentials
    lower = lambda h: {k.lower(): v for k, v in h.items()}
    expected_calls = {AuthKind.APP: 2, AuthKind.LOYALTY: 3, AuthKind.MANAGEMENT: 2}
    good = {AuthKind.APP: APP_HEADERS, AuthKind.LOYALTY: LOYALTY_HEADERS, AuthKind.MANAGEMENT: MANAGEMENT_HEADERS}
    checked = 0
    for kind, headers in good.items():
        names = list(lower(headers))
        variants = {"all right": lower(headers), "none": {}}
        for name in names:  # each credential wrong on its own, the first one included
            variants[f"{name} wrong"] = {**lower(headers), name: lower(headers)[name] + "x"}
            variants[f"{name} missing"] = {k: v for k, v in lower(headers).items() if k != name}
        for label, given in variants.items():
            recorder.calls.clear()
            result = authorized(kind, given, creds)
            assert result is (label == "all right"), (kind, label)
            assert len(recorder.calls) == expected_calls[kind], (
                f"{kind.value} / {label}: {len(recorder.calls)} compare_digest calls, "
                f"want {expected_calls[kind]} (every credential, even after a mismatch)")
            assert all(isinstance(a, bytes) and isinstance(b, bytes) for a, b in recorder.calls)
            checked += 1
    assert authorized(AuthKind.NONE, {}, creds) is True
    FIGURES["auth_variants_checked"] = checked


def test_repeated_credential_headers_are_refused_after_every_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    """A credential header sent twice is refused even when both copies are
    right, and still after comparing every credential (no early exit); a
    repeated header that is not a credential changes nothing."""
    recorder = Recorder(auth_module.hmac.compare_digest)
    monkeypatch.setattr(auth_module.hmac, "compare_digest", recorder)
    creds = _fresh().state.project.credentials
    good = {AuthKind.APP: APP_HEADERS, AuthKind.LOYALTY: LOYALTY_HEADERS, AuthKind.MANAGEMENT: MANAGEMENT_HEADERS}
    calls = {AuthKind.APP: 2, AuthKind.LOYALTY: 3, AuthKind.MANAGEMENT: 2}
    for kind, headers in good.items():
        given = {k.lower(): v for k, v in headers.items()}
        for name in given:
            recorder.calls.clear()
            assert authorized(kind, given, creds, frozenset({name})) is False, (kind, name)
            assert len(recorder.calls) == calls[kind], (kind, name)
        assert authorized(kind, given, creds, frozenset({"accept"})) is True


def test_every_request_goes_through_compare_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: App.handle compares all of a route's credentials, right or wrong."""
    recorder = Recorder(auth_module.hmac.compare_digest)
    monkeypatch.setattr(auth_module.hmac, "compare_digest", recorder)
    app = App(_fresh())
    per_kind = {AuthKind.APP: 2, AuthKind.LOYALTY: 3, AuthKind.MANAGEMENT: 2}
    for route in ROUTES:
        path = route.path.replace("{", "").replace("}", "")
        for headers in ({}, {k.lower(): v for k, v in MANAGEMENT_HEADERS.items()},
                        {k.lower(): v for k, v in APP_HEADERS.items()}):
            recorder.calls.clear()
            app.handle(HttpRequest(route.method, path, "", headers, b""))
            assert len(recorder.calls) == per_kind[route.auth], (route.method, route.path, headers)


def test_no_plain_comparison_of_secrets_in_auth_module() -> None:
    source = Path(auth_module.__file__).read_text(encoding="utf-8")
    code = source.split('"""', 2)[2]  # skip the module docstring
    assert "get_secret_value() ==" not in code and "== creds" not in code and "!= creds" not in code
    assert code.count("compare_digest") == 1, "one comparison helper, used for every credential"


# -- the control API refuses app credentials --------------------------------------------------------
CONTROL = [r for r in ROUTES if r.endpoint.control]


@pytest.mark.parametrize("route", CONTROL, ids=lambda r: f"{r.method} {r.path}")
def test_control_api_refuses_app_credentials(route: Any) -> None:
    sim = _fresh()
    sim.advance(3600)  # away from the initial state, so a reset/restore slipping through would show
    app = App(sim)
    path = route.path.replace("{memberId}", "lmbr_alice")
    bodies = {"/_sim/restore": json.dumps(sim.snapshot(redact=True)).encode(), "/_sim/clock/advance": b'{"seconds": 60}',
              "/_sim/why-not": b'{"redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"}]}',
              "/_sim/why-not/qualifications": b"{}"}
    body = bodies.get(route.path, b"")  # reset takes no body
    before = sim.dump_json()
    for credentials in (APP_HEADERS, LOYALTY_HEADERS, {**APP_HEADERS, "X-Management-Id": "kestrel-management"},
                        {"X-Management-Id": "kestrel-app", "X-Management-Token": APP_TOKEN}):
        headers = {k.lower(): v for k, v in credentials.items()} | {"content-type": "application/json"}
        response = app.handle(HttpRequest(route.method, path, "", headers, body if route.method == "POST" else b""))
        assert response.status == 401, (route.path, credentials, response.body[:200])
        assert json.loads(response.body)["key"] == "unauthorized"
    assert sim.dump_json() == before
    headers = {k.lower(): v for k, v in MANAGEMENT_HEADERS.items()} | {"content-type": "application/json"}
    response = app.handle(HttpRequest(route.method, path, "", headers, body if route.method == "POST" else b""))
    assert response.status == 200, response.body[:200]


@pytest.mark.served
def test_served_control_api_refuses_app_credentials(demo_server: Any) -> None:
    with demo_server.http() as http:
        before = demo_server.state_json(http)
        for route in CONTROL:
            path = route.path.replace("{memberId}", "lmbr_alice")
            for credentials in (APP_HEADERS, LOYALTY_HEADERS):
                r = http.request(route.method, path, headers=credentials,
                                 json={"seconds": 86400} if route.method == "POST" else None)
                assert r.status_code == 401 and r.json()["key"] == "unauthorized", (route.path, r.text[:200])
        assert demo_server.state_json(http) == before
    FIGURES["control_routes_refusing_app_credentials"] = len(CONTROL)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_the_in_process_transports_refuse_a_repeated_credential_as_the_served_face_does(
    asynchronous: bool,
) -> None:
    """httpx hands the transport every copy of a repeated header; the in-process
    transports fold them as the ASGI face does, so the second copy is not
    silently taken (401 there as over HTTP), while one copy of each passes."""
    import asyncio

    from promolab.http.transport import AsyncSimulatorTransport
    from promolab.samples import demo_scenario

    sim = Simulator.from_scenario(demo_scenario())
    body = {"event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 5}}
    once = [("X-App-Id", "kestrel-app"), ("X-App-Token", "kestrel-app-token")]
    twice = [*once, ("X-App-Token", "kestrel-app-token")]

    def send(headers: list[tuple[str, str]]) -> int:
        if asynchronous:
            async def go() -> int:
                async with httpx.AsyncClient(transport=AsyncSimulatorTransport(sim), base_url="http://sim") as c:
                    return (await c.post("/v1/events", json=body, headers=headers)).status_code
            return asyncio.run(go())
        with httpx.Client(transport=SimulatorTransport(sim), base_url="http://sim") as c:
            return c.post("/v1/events", json=body, headers=headers).status_code

    assert send(twice) == 401
    assert send(once) == 200
