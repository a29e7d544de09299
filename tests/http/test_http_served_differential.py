"""Differential: one scripted sequence, three ways in, identical answers.

The same requests (reads, deletes, refusals, malformed bodies, control calls)
go through the in-process httpx transport, the ASGI app (httpx's
ASGITransport) and `promolab serve` over 127.0.0.1. Statuses, the headers
that carry meaning and the JSON bodies must be equal, *request ids
included*: a request id is `blake2b(seed, n)` with `n` counting the answers
of one App, so two fresh Apps over the same scenario number their errors
alike. (The served fixture probes readiness with GET /openapi.json, which
draws no id.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from demo_keys import JSON, LOYALTY, MANAGEMENT
from promolab import ApiError, Client, Simulator
from promolab.http import SimulatorTransport, asgi_app

Body = bytes | Callable[[list[Any]], bytes] | None
#: (method, path, headers, body); a callable body is computed from the
#: answers so far (each target feeds it its own answers).
Step = tuple[str, str, dict[str, str], Body]


def _snapshot_of(step: int) -> Callable[[list[Any]], bytes]:
    return lambda answers: json.dumps(answers[step][3]).encode()


SCRIPT: list[Step] = [
    ("GET", "/openapi.json", {}, None),
    *[("GET", f"/v2/loyalties/incentives/linc_0a11ce0{i}", LOYALTY, None) for i in range(1, 8)],
    ("GET", "/v2/loyalties/incentives/linc_XYZ", LOYALTY, None),                 # 400 pattern
    ("GET", "/v2/loyalties/incentives/linc_ffff", LOYALTY, None),                # 404 incentive
    ("GET", "/v2/loyalties/incentives/linc_0a11ce01", {}, None),                 # 401
    ("GET", "/v2/loyalties/incentives/linc_0a11ce01", {**LOYALTY, "Authorization": "Bearer x"}, None),
    ("PUT", "/v2/loyalties/incentives/linc_0a11ce01", LOYALTY, b"{}"),           # 405 + Allow
    ("GET", "/v2/nowhere", LOYALTY, None),                                       # 404 route
    ("GET", "/_sim/snapshot", MANAGEMENT, None),                                 # step 14: initial image
    ("DELETE", "/v2/loyalties/rewards/lrew_retired", LOYALTY, None),
    ("POST", "/_sim/clock/advance", {**MANAGEMENT, **JSON}, b'{"seconds": 120}'),
    ("DELETE", "/v2/loyalties/rewards/lrew_retired", LOYALTY, None),            # again: same reward
    ("DELETE", "/v2/loyalties/rewards/lrew_mug", LOYALTY, None),                # 400 resource_in_use
    ("DELETE", "/v2/loyalties/rewards/lrew_nope", LOYALTY, None),               # 404
    ("DELETE", "/management/v1/projects/proj_kestrel/webhooks/wh_crm", LOYALTY, None),     # 401
    ("DELETE", "/management/v1/projects/proj_kestrel/webhooks/wh_crm", MANAGEMENT, None),  # 204
    ("DELETE", "/management/v1/projects/proj_kestrel/webhooks/wh_crm", MANAGEMENT, None),  # 404 again
    ("DELETE", "/management/v1/projects/proj_other/webhooks/wh_notebook", MANAGEMENT, None),
    ("POST", "/_sim/clock/advance", {**MANAGEMENT, **JSON}, b'{"seconds": '),    # 400 bad JSON
    ("POST", "/_sim/clock/advance", {**MANAGEMENT, **JSON}, b'{"seconds": -3}'),  # 400 model
    ("POST", "/_sim/clock/advance", {**MANAGEMENT, "Content-Type": "text/plain"}, b'{"seconds": 1}'),  # 415
    # 413: more than the demo's 1 MiB limit, still valid JSON if it were read truncated
    ("POST", "/_sim/clock/advance", {**MANAGEMENT, **JSON}, b'{"seconds": 1}' + b" " * (1 << 21)),
    ("GET", "/_sim/clock", MANAGEMENT, None),
    ("GET", "/_sim/state", MANAGEMENT, None),
    ("GET", "/_sim/snapshot", MANAGEMENT, None),                                 # step 30
    ("POST", "/_sim/reset", MANAGEMENT, None),
    ("GET", "/_sim/state", MANAGEMENT, None),
    ("POST", "/_sim/restore", {**MANAGEMENT, **JSON}, _snapshot_of(30)),         # back to after the deletes
    ("GET", "/_sim/state", MANAGEMENT, None),
    ("POST", "/_sim/restore", {**MANAGEMENT, **JSON}, _snapshot_of(14)),         # the initial image
    ("GET", "/_sim/state", MANAGEMENT, None),
    ("GET", "/_sim/coverage", MANAGEMENT, None),
    ("GET", "/_sim/loyalty/members/lmbr_alice", MANAGEMENT, None),
    ("GET", "/_sim/webhooks/deliveries", MANAGEMENT, None),
    ("GET", "/v2/loyalties/incentives/linc_0a11ce01", LOYALTY, None),
]

MEANINGFUL_HEADERS = ("content-type", "allow", "retry-after")


def _record(method: str, path: str, response: httpx.Response) -> tuple[Any, ...]:
    content_type = response.headers.get("content-type")
    body: Any = response.json() if content_type == "application/json" else response.content
    headers = {k: response.headers[k] for k in MEANINGFUL_HEADERS if k in response.headers}
    return (f"{method} {path}", response.status_code, headers, body)


def _content(body: Body, answers: list[Any]) -> bytes | None:
    return body(answers) if callable(body) else body


def run_sync(client: httpx.Client, base_url: str) -> list[Any]:
    answers: list[Any] = []
    for method, path, headers, body in SCRIPT:
        response = client.request(method, base_url + path, headers=headers, content=_content(body, answers))
        answers.append(_record(method, path, response))
    return answers


async def run_async(client: httpx.AsyncClient, base_url: str) -> list[Any]:
    answers: list[Any] = []
    for method, path, headers, body in SCRIPT:
        response = await client.request(method, base_url + path, headers=headers, content=_content(body, answers))
        answers.append(_record(method, path, response))
    return answers


def in_process(demo_path: Path) -> list[Any]:
    sim = Simulator.from_scenario(demo_path)
    with httpx.Client(transport=SimulatorTransport(sim)) as client:
        return run_sync(client, "http://promolab.local")


def test_the_script_means_what_it_says(demo_path: Path) -> None:
    """Pin the in-process answers that matter, so the comparisons below
    compare meaningful sequences (not, say, 35 identical 404s)."""
    answers = in_process(demo_path)
    statuses = [a[1] for a in answers]
    assert statuses == [
        200, 200, 200, 200, 200, 200, 200, 200, 400, 404, 401, 401, 405, 404,
        200, 200, 200, 200, 400, 404, 401, 204, 404, 404, 400, 400, 415, 413,
        200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200,
    ]
    assert answers[12][2]["allow"] == "GET"
    assert answers[15][3] == answers[17][3]  # the second delete returns the same reward
    ids = [a[3]["request_id"] for a in answers if a[1] >= 400]
    assert len(set(ids)) == len(ids)
    # state after restoring the post-delete snapshot == the state when it was taken
    assert answers[34][3] == answers[29][3]
    assert answers[36][3] == answers[32][3]  # restoring the initial image == reset
    assert answers[32][3] != answers[29][3]


@pytest.mark.anyio
async def test_asgi_app_answers_like_the_transport(demo_path: Path) -> None:
    sim = Simulator.from_scenario(demo_path)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi_app(sim))) as client:
        through_asgi = await run_async(client, "http://promolab.local")
    assert through_asgi == in_process(demo_path)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.served
def test_served_instance_answers_like_the_transport(served: Any, demo_path: Path) -> None:
    with served.http() as client:
        over_http = run_sync(client, served.base_url)
    expected = in_process(demo_path)
    for got, want in zip(over_http, expected, strict=True):
        assert got == want, got[0]


def _typed_session(client: Client) -> list[Any]:
    """The typed client's view of a short session: models or error bodies."""
    out: list[Any] = []

    def attempt(call: Callable[..., Any], *args: Any) -> None:
        try:
            result = call(*args)
            out.append(None if result is None else result.model_dump(mode="json"))
        except ApiError as exc:
            out.append((exc.status, exc.error.model_dump(mode="json")))

    for i in range(1, 8):
        attempt(client.get_incentive, f"linc_0a11ce0{i}")
    attempt(client.get_incentive, "linc_nope")
    attempt(client.delete_reward, "lrew_retired")
    attempt(client.delete_reward, "lrew_mug")
    attempt(client.delete_webhook, "proj_kestrel", "wh_notebook")
    attempt(client.delete_webhook, "proj_kestrel", "wh_notebook")
    out.append(client.control.advance(5))
    out.append(client.control.state())
    return out


@pytest.mark.served
def test_typed_client_sees_the_same_through_both_targets(served: Any, demo_path: Path) -> None:
    """One notebook, two targets: `Client(base_url=...)` against the served
    simulator and `sim.client()` in-process return equal models and errors."""
    with served.client(retries=0) as remote:
        over_http = _typed_session(remote)
    with Simulator.from_scenario(demo_path).client() as local:
        in_proc = _typed_session(local)
    assert over_http == in_proc
    # and the server goes away when told to (the fixture relies on it)
    served.process.terminate()
    assert served.process.wait(timeout=10) is not None
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{served.base_url}/openapi.json", timeout=2.0)

