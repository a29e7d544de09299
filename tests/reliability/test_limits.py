"""Limits: body size (413), request timeout (504), rate limiting (429).

- 413: a body past `Settings.max_body_bytes`, sent with a Content-Length or
  chunked (no length), is answered 413 `request_too_large` in the error
  shape by the served simulator, which keeps serving afterwards.
- 504: `AsgiApp(timeout_seconds=)` in-process with a slow operation, and a
  served simulator (`--timeout 0.5`) whose write triggers a webhook to a
  slow receiver on 127.0.0.1: the client gets 504 `request_timeout`; the
  operation itself completes (like the real service's load balancer).
  While that slow POST is on the network, other clients' reads and writes
  are answered at once (the POST runs outside the simulator's lock).
- 429: `promolab serve --rate-limit N`: X-Rate-Limit-* headers on every
  answer of an authenticated route, a 429 `too_many_requests` body with
  Retry-After once the window is used up, per caller, the caller being the
  identity the credentials proved (a spoofed `X-App-Id` on a management
  call changes nothing), with a bounded table of windows; and `promolab.Client`
  (sync and async) waits Retry-After and retries, checked in-process with a
  `RateLimiter(now=...)` on a fake clock so no test sleeps for a window.
"""

from __future__ import annotations

import asyncio
import copy
import http.server
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import httpx
import pytest

from promolab import AsyncClient, Client, Simulator, models
from promolab.http.app import App
from promolab.http.asgi import AsgiApp
from promolab.http.messages import HttpRequest
from promolab.http.ratelimit import RateLimiter
from promolab.http.transport import AsyncSimulatorTransport, SimulatorTransport
from relsupport import (
    APP_HEADERS,
    CREDENTIALS,
    DEMO,
    LOYALTY_HEADERS,
    MANAGEMENT_HEADERS,
    demo_document,
    free_port,
    record_result,
    summary_line,
    write_scenario,
)

pytestmark = pytest.mark.timeout(300)

REQUEST_ID = re.compile(r"^v-[0-9a-f]{20}$")
LIMIT = 1024 * 1024
FIGURES: dict[str, Any] = {}


def error_of(status: int, content_type: str | None, body: bytes, expected: int, key: str) -> dict[str, Any]:
    assert status == expected, body[:300]
    assert (content_type or "").startswith("application/json")
    data = json.loads(body)
    models.ErrorBody.model_validate(data)
    assert data["code"] == expected and data["key"] == key, data
    assert REQUEST_ID.match(data["request_id"])
    return data


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    if FIGURES:
        record_result("limits", dict(FIGURES))
        summary_line(f"limits: {json.dumps(FIGURES, sort_keys=True)}")


# -- 413 ---------------------------------------------------------------------------------------
@pytest.mark.served
def test_body_limit_served_with_length_and_chunked(demo_server: Any) -> None:
    with demo_server.http() as http:
        before = demo_server.state_json(http)
        big = json.dumps({"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "x" * (LIMIT + 10)}}).encode()
        r = http.post("/client/v1/publish", headers={**APP_HEADERS, "Content-Type": "application/json"}, content=big)
        body = error_of(r.status_code, r.headers.get("content-type"), r.content, 413, "request_too_large")
        assert str(LIMIT) in body["details"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: Transfer-Encoding: chunked, 4 MiB
            for _ in range(64):
                yield b"x" * 65536

        r = http.post("/v1/events", headers={**APP_HEADERS, "Content-Type": "application/json"}, content=chunks())
        assert "content-length" not in r.request.headers
        error_of(r.status_code, r.headers.get("content-type"), r.content, 413, "request_too_large")

        exact = b'{"event":"newsletter_signup","customer":{"source_id":"alice"},"metadata":{"p":"'
        exact += b"x" * (LIMIT - len(exact) - 3) + b'"}}'
        assert len(exact) == LIMIT  # at the limit: not refused for its size
        r = http.post("/v1/events", headers={**APP_HEADERS, "Content-Type": "application/json"}, content=exact)
        assert r.status_code != 413, r.text[:200]

        # the server keeps serving on the same connection pool
        assert http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY_HEADERS).status_code == 200
        assert demo_server.state_json(http) != before  # only the at-the-limit event was applied
    FIGURES["body_limit_bytes"] = LIMIT


# -- 504 ---------------------------------------------------------------------------------------
def _asgi_call(asgi: AsgiApp, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=asgi)
        async with httpx.AsyncClient(transport=transport, base_url="http://promolab.test") as client:
            return await client.request(method, path, headers=headers, content=body or None)

    return asyncio.run(go())


def test_request_timeout_in_process_asgi(sim: Simulator) -> None:
    """A slow operation answered 504 request_timeout after `timeout_seconds`."""
    app = App(sim)
    release = threading.Event()
    original = app.handle

    def slow(request: Any) -> Any:
        release.wait(5)  # bounded
        return original(request)

    app.handle = slow  # type: ignore[method-assign]
    asgi = AsgiApp(app, timeout_seconds=0.2)
    started = time.monotonic()
    try:
        r = _asgi_call(asgi, "GET", "/v2/loyalties/incentives/linc_0a11ce01", LOYALTY_HEADERS)
    finally:
        release.set()
    elapsed = time.monotonic() - started
    body = error_of(r.status_code, r.headers.get("content-type"), r.content, 504, "request_timeout")
    assert "0.2" in body["details"]
    assert elapsed < 2.0
    # without the slowness the same app answers
    r = _asgi_call(AsgiApp(App(sim), timeout_seconds=5), "GET", "/v2/loyalties/incentives/linc_0a11ce01",
                   LOYALTY_HEADERS)
    assert r.status_code == 200


class _SlowReceiver:
    """A webhook receiver on 127.0.0.1 that takes `delay` seconds to answer 200."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        #: Set when a POST has arrived (before the delay): the delivery is on the network.
        self.arrived = threading.Event()
        #: monotonic time of every answer sent
        self.received: list[float] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.arrived.set()
                time.sleep(outer.delay)
                outer.received.append(time.monotonic())
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _slow_webhook_scenario(tmp_path: Path, port: int) -> Path:
    doc = demo_document()
    doc["webhooks"] = [{"id": "wh_slow", "url": f"http://127.0.0.1:{port}/hook", "secret": "slow-secret",
                        "events": ["EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED"]}]
    doc.setdefault("settings", {})["webhook_timeout_seconds"] = 5
    return write_scenario(doc, tmp_path / "slow-webhook.yaml")


@pytest.mark.served
def test_request_timeout_served_slow_webhook(server_factory: Any, tmp_path: Path) -> None:
    with _SlowReceiver(delay=2.0) as receiver:
        server = server_factory(_slow_webhook_scenario(tmp_path, receiver.port), timeout=0.5)
        with server.http() as http:
            before = http.get("/_sim/state", headers=MANAGEMENT_HEADERS).json()
            started = time.monotonic()
            r = http.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP_HEADERS, json={"amount": 700})
            answered = time.monotonic() - started
            error_of(r.status_code, r.headers.get("content-type"), r.content, 504, "request_timeout")
            assert answered < 1.8, f"the 504 came after {answered:.2f} s, not after ~0.5 s"
            for _ in range(100):  # bounded: wait for the delivery (2 s) to finish
                if receiver.received:
                    break
                time.sleep(0.05)
            time.sleep(0.2)
            after = http.get("/_sim/state", headers=MANAGEMENT_HEADERS).json()
    gift = lambda s: next(v for v in s["state"]["vouchers"].values() if v["code"] == "GIFT-ALICE-50")["gift"]
    assert gift(after)["balance"] == gift(before)["balance"] + 700, "the timed-out write did not complete"
    assert [d["outcome"] for d in after["state"]["webhook_deliveries"]] == ["delivered"]
    FIGURES["timeout_504_after_s"] = round(answered, 2)


@pytest.mark.served
def test_slow_webhook_does_not_stall_other_clients(server_factory: Any, tmp_path: Path) -> None:
    """While a write's webhook POST waits 2 s for its receiver, another
    client's read and write are answered at once; the write that caused the
    delivery answers after it, with the attempt in the log."""
    with _SlowReceiver(delay=2.0) as receiver:
        server = server_factory(_slow_webhook_scenario(tmp_path, receiver.port), timeout=10.0)
        results: dict[str, Any] = {}

        def credit() -> None:
            with server.http() as http:
                started = time.monotonic()
                status = http.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP_HEADERS,
                                   json={"amount": 1}).status_code
                results["credit"] = (status, time.monotonic() - started)

        writer = threading.Thread(target=credit)
        writer.start()
        try:
            # Not a sleep: wait until the delivery is known to be on the network.
            assert receiver.arrived.wait(20), "the credit's webhook never reached the receiver"
            with server.http() as http:
                started = time.monotonic()
                read = http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY_HEADERS)
                read_latency = time.monotonic() - started
                started = time.monotonic()
                write = http.post("/client/v1/publish", headers=APP_HEADERS,
                                  json={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})
                write_latency = time.monotonic() - started
                still_on_the_network = not receiver.received
        finally:
            writer.join(timeout=20)
        with server.http() as http:
            after = http.get("/_sim/state", headers=MANAGEMENT_HEADERS).json()
    FIGURES["read_during_slow_webhook"] = {"status": read.status_code, "seconds": round(read_latency, 2)}
    FIGURES["write_during_slow_webhook"] = {"status": write.status_code, "seconds": round(write_latency, 2)}
    assert read.status_code == 200 and read_latency < 0.5, f"read answered {read.status_code} after {read_latency:.2f} s"
    assert write.status_code == 200 and write_latency < 0.5, (
        f"write answered {write.status_code} after {write_latency:.2f} s")
    assert still_on_the_network, "the slow delivery ended before the other requests: nothing was shown"
    status, credit_seconds = results["credit"]
    assert status == 200 and credit_seconds >= 2.0, "the credit answered before its delivery was made"
    assert [(d["webhook_id"], d["outcome"]) for d in after["state"]["webhook_deliveries"]] == [("wh_slow", "delivered")]
    assert after["state"]["pending_deliveries"] == []


# -- 429 ---------------------------------------------------------------------------------------
@pytest.mark.served
def test_rate_limit_served_headers_and_429(server_factory: Any) -> None:
    limit = 5
    server = server_factory(DEMO, rate_limit=limit)
    with server.http() as http:
        remaining = []
        for i in range(limit):
            # successes and operation errors alike carry the headers
            path = "/v2/loyalties/incentives/linc_0a11ce01" if i % 2 == 0 else "/v2/loyalties/incentives/linc_ffff"
            r = http.get(path, headers=LOYALTY_HEADERS)
            assert r.status_code in (200, 404)
            assert r.headers["x-rate-limit-limit"] == str(limit)
            assert r.headers["x-rate-limit-type"] == "api_calls"
            assert int(r.headers["x-rate-limit-retry"]) >= int(time.time())
            remaining.append(int(r.headers["x-rate-limit-remaining"]))
        assert remaining == list(range(limit - 1, -1, -1))
        state_before = server.state_json(http)  # management caller: its own window
        r = http.post("/client/v1/publish", headers=APP_HEADERS,
                      json={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})
        body = error_of(r.status_code, r.headers.get("content-type"), r.content, 429, "too_many_requests")
        retry_after = int(r.headers["retry-after"])
        assert 1 <= retry_after <= 60
        assert r.headers["x-rate-limit-remaining"] == "0" and r.headers["x-rate-limit-limit"] == str(limit)
        assert str(limit) in body["details"]
        assert server.state_json(http) == state_before, "a refused (429) write changed the state"
        # the document needs no credentials and is not limited
        assert http.get("/openapi.json").status_code == 200
        # a wrong token is 401 (auth first), without rate-limit headers
        r = http.get("/v2/loyalties/incentives/linc_0a11ce01", headers={**LOYALTY_HEADERS, "X-App-Token": "no"})
        assert r.status_code == 401
    FIGURES["rate_limit"] = {"limit_per_minute": limit, "retry_after_s": retry_after}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _limited_app(clock: FakeClock, limit: int = 2, window: float = 10.0) -> App:
    sim = Simulator.from_scenario(copy.deepcopy(demo_document()))
    return App(sim, rate_limiter=RateLimiter(limit, window, now=clock))


def test_client_retries_after_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    app = _limited_app(clock)
    import promolab.client._clients as clients

    monkeypatch.setattr(clients.time, "sleep", clock.sleep)
    seen: list[int] = []
    transport = SimulatorTransport(app)
    original = transport.handle_request

    def spy(request: httpx.Request) -> httpx.Response:
        response = original(request)
        seen.append(response.status_code)
        return response

    transport.handle_request = spy  # type: ignore[method-assign]
    with Client("http://promolab.local", **CREDENTIALS, transport=transport, retries=2) as client:
        for _ in range(3):
            assert client.get_incentive("linc_0a11ce01").id == "linc_0a11ce01"
    assert seen == [200, 200, 429, 200]
    assert clock.sleeps == [10.0], "the client should wait exactly Retry-After (the rest of the 10 s window)"
    FIGURES["client_retry"] = {"sync": {"answers": seen, "waited_s": clock.sleeps}}


def test_client_gives_up_after_its_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    from promolab import ApiError

    clock = FakeClock()
    app = _limited_app(clock, limit=1, window=10.0)
    import promolab.client._clients as clients

    monkeypatch.setattr(clients.time, "sleep", lambda s: clock.sleeps.append(s))  # the window never passes
    with Client("http://promolab.local", **CREDENTIALS, transport=SimulatorTransport(app), retries=2) as client:
        client.get_incentive("linc_0a11ce01")
        with pytest.raises(ApiError) as info:
            client.get_incentive("linc_0a11ce01")
    assert info.value.status == 429 and info.value.error.key == "too_many_requests"
    assert clock.sleeps == [10.0, 10.0]


def test_async_client_retries_after_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    app = _limited_app(clock)
    import promolab.client._clients as clients

    async def fake_sleep(seconds: float) -> None:
        clock.sleep(seconds)

    monkeypatch.setattr(clients.asyncio, "sleep", fake_sleep)

    async def go() -> list[str]:
        async with AsyncClient("http://promolab.local", **CREDENTIALS, transport=AsyncSimulatorTransport(app)) as c:
            return [(await c.get_incentive("linc_0a11ce01")).id for _ in range(3)]

    assert asyncio.run(go()) == ["linc_0a11ce01"] * 3
    assert clock.sleeps == [10.0]
    FIGURES.setdefault("client_retry", {})["async"] = {"waited_s": clock.sleeps}


def test_rate_limit_window_resets_and_counts_callers_apart() -> None:
    clock = FakeClock()
    app = _limited_app(clock, limit=2, window=10.0)
    http = httpx.Client(transport=SimulatorTransport(app), base_url="http://promolab.local")
    get = lambda headers: http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=headers)
    assert [get(LOYALTY_HEADERS).status_code for _ in range(3)] == [200, 200, 429]
    # the management caller has its own window
    assert http.get("/_sim/clock", headers=MANAGEMENT_HEADERS).status_code == 200
    clock.now += 9.5
    r = get(LOYALTY_HEADERS)
    assert r.status_code == 429 and r.headers["retry-after"] == "1"
    clock.now += 0.5
    r = get(LOYALTY_HEADERS)
    assert r.status_code == 200 and r.headers["x-rate-limit-remaining"] == "1"


# -- 429: keyed on the proved identity, bounded ------------------------------------------------
@pytest.mark.served
def test_rate_limit_served_ignores_spoofed_caller_headers(server_factory: Any) -> None:
    """A management or control call carrying a fresh `X-App-Id` each time is
    still the management caller: limited after 3, not given a new window."""
    limit = 3
    server = server_factory(DEMO, rate_limit=limit)
    with server.http() as http:
        statuses = []
        for i in range(10):
            spoof = {"X-App-Id": f"spoof{i}"}
            if i % 2:
                r = http.get("/_sim/clock", headers={**MANAGEMENT_HEADERS, **spoof})
            else:
                r = http.delete("/management/v1/projects/proj_kestrel/webhooks/wh_nope",
                                headers={**MANAGEMENT_HEADERS, **spoof})
            statuses.append(r.status_code)
        assert statuses.count(429) == 10 - limit, statuses
        assert 429 not in statuses[:limit], statuses
        # the app is another caller, with its own window
        r = http.get("/v2/loyalties/incentives/linc_0a11ce01", headers={**LOYALTY_HEADERS, "X-Management-Id": "x"})
        assert r.status_code == 200 and r.headers["x-rate-limit-remaining"] == str(limit - 1)
    FIGURES["rate_limit_spoofed_headers"] = {"limit": limit, "tried": 10, "refused": statuses.count(429)}


def test_rate_limiter_keeps_one_window_per_proved_identity() -> None:
    """However many caller headers a client invents, and however many
    unauthenticated requests arrive, the limiter keeps at most the app's and
    the management caller's windows."""
    clock = FakeClock()
    app = _limited_app(clock, limit=1000, window=60.0)
    limiter = app.rate_limiter
    assert limiter is not None
    http = httpx.Client(transport=SimulatorTransport(app), base_url="http://promolab.local")
    statuses = set()
    for i in range(300):
        spoof = f"spoof{i}"
        statuses.add(http.get("/_sim/clock", headers={**MANAGEMENT_HEADERS, "X-App-Id": spoof}).status_code)
        statuses.add(http.get("/v2/loyalties/incentives/linc_0a11ce01",
                              headers={**LOYALTY_HEADERS, "X-Management-Id": spoof}).status_code)
        statuses.add(http.get("/_sim/clock", headers={"X-Management-Id": spoof, "X-Management-Token": "x"}).status_code)
        statuses.add(http.get("/v2/loyalties/incentives/linc_0a11ce01",
                              headers={"X-App-Id": spoof, "X-App-Token": "x"}).status_code)
    assert statuses == {200, 401}
    assert len(limiter) == 2


def test_rate_limiter_table_is_bounded() -> None:
    """Called directly with ever new identities, the table never holds more
    than MAX_CALLERS windows; expired windows go first, then the oldest."""
    from promolab.http.ratelimit import MAX_CALLERS

    clock = FakeClock()
    limiter = RateLimiter(1, 10.0, now=clock)
    sim = Simulator.from_scenario(copy.deepcopy(demo_document()))
    request = HttpRequest("GET", "/_sim/clock")
    for i in range(10 * MAX_CALLERS):
        refusal, _ = limiter.check(sim, request, caller=f"caller{i}")
        assert refusal is None
        assert len(limiter) <= MAX_CALLERS
    # the newest windows are the ones kept: the last caller is still limited
    refusal, _ = limiter.check(sim, request, caller=f"caller{10 * MAX_CALLERS - 1}")
    assert refusal is not None and refusal.status == 429
    clock.now += 10.0  # every window expired: a new caller finds them all dropped
    limiter.check(sim, request, caller="fresh")
    assert len(limiter) == 1
    # requests without an identity share one window
    assert limiter.check(sim, request)[0] is None
    assert limiter.check(sim, request)[0] is not None


def _route_cases() -> list[Any]:
    """Every route that takes credentials (control routes included), with a
    request that would change the state if it ran (a body of the demo where
    it takes one): the rate limit is the HTTP face's, applied before the
    route's handler, so a route added later is limited like the first."""
    from promolab.http.auth import AuthKind
    from promolab.http.table import ROUTES

    bodies: dict[str, Any] = {
        "publish": {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}},
        "track_event": {"event": "review_written", "customer": {"source_id": "alice"}},
        "add_gift_balance": {"amount": 1000},
        "purchase_reward": {"reward_id": "lrew_sticker"},
        "redeem_stacked": {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}], "order": {"amount": 5000}},
        "validate_stacked": {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}], "order": {"amount": 5000}},
        "advance": {"seconds": 60},
    }
    cases = []
    for route in ROUTES:
        if route.auth is AuthKind.NONE:
            continue
        endpoint = route.endpoint
        path = endpoint.url_path(**{p.arg: _KNOWN_PATH.get(p.name, "x") for p in endpoint.path_params})
        cases.append(pytest.param(route.auth.value, endpoint.method, path, bodies.get(endpoint.name, {}),
                                  id=endpoint.name))
    return cases


_KNOWN_PATH = {"programId": "lprg_coffee_club", "memberId": "lmbr_alice", "code": "GIFT-ALICE-50",
               "projectId": "proj_kestrel", "id": "linc_0a11ce01"}
_HEADERS = {"app": APP_HEADERS, "loyalty": LOYALTY_HEADERS, "management": MANAGEMENT_HEADERS}


@pytest.mark.parametrize(("auth", "method", "path", "body"), _route_cases())
def test_every_route_is_rate_limited_and_a_refused_call_changes_nothing(auth: str, method: str, path: str,
                                                                       body: Any) -> None:
    clock = FakeClock()
    app = _limited_app(clock, limit=1, window=10.0)
    headers = {k.lower(): v for k, v in _HEADERS[auth].items()} | {"content-type": "application/json"}
    raw = json.dumps(body).encode() if method in ("POST", "PUT") else b""
    first = app.handle(HttpRequest(method, path, "", headers, raw))
    assert first.status != 429 and dict(first.header_list())["x-rate-limit-remaining"] == "0"
    before = app.sim.dump_json()
    second = app.handle(HttpRequest(method, path, "", headers, raw))
    assert second.status == 429, second.body[:200]
    assert json.loads(second.body)["key"] == "too_many_requests"
    assert dict(second.header_list())["retry-after"] == "10"
    assert app.sim.dump_json() == before, "a refused (429) call changed the state"
    clock.now += 10.0  # the next window lets the caller in again
    assert app.handle(HttpRequest(method, path, "", headers, raw)).status != 429
