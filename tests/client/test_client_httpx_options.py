"""`Client(..., http_client=..., event_hooks=...)` and httpx's URL joining.

A caller's own httpx client carries the requests (and stays the caller's);
hooks run as httpx runs them; a base URL with a path prefix keeps it; a bad
base URL or a setting given twice is refused at construction, naming it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from promolab import AsyncClient, Client, Simulator
from promolab.http.transport import AsyncSimulatorTransport, SimulatorTransport

CREDS = {"app_id": "app", "app_token": "app-token", "access_token": "access",
         "management_id": "mgmt", "management_token": "mgmt-token"}
INCENTIVE = {
    "id": "linc_0a11ce04", "name": "Free mug", "type": "MATERIAL", "status": "ACTIVE", "stock": 40,
    "material": {"product": {"id": "prod_mug"}}, "created_at": "2026-03-06T10:00:00.000Z",
    "updated_at": None, "object": "incentive",
}


class Recorder:
    """A MockTransport handler answering every request with the incentive."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.urls.append(str(request.url))
        return httpx.Response(200, json=INCENTIVE)


@pytest.mark.parametrize(("base_url", "expected"), [
    ("https://api.example.test", "https://api.example.test/v2/loyalties/incentives/linc_1"),
    ("https://api.example.test/", "https://api.example.test/v2/loyalties/incentives/linc_1"),
    ("https://gw.example.test/voucherify", "https://gw.example.test/voucherify/v2/loyalties/incentives/linc_1"),
    ("https://gw.example.test/voucherify///", "https://gw.example.test/voucherify/v2/loyalties/incentives/linc_1"),
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000/v2/loyalties/incentives/linc_1"),
])
def test_urls_are_the_base_joined_with_the_path(base_url: str, expected: str) -> None:
    recorder = Recorder()
    with Client(base_url, **CREDS, transport=httpx.MockTransport(recorder)) as client:
        client.get_incentive("linc_1")
    assert recorder.urls == [expected]


def test_a_quoted_segment_stays_quoted_under_a_prefix() -> None:
    seen: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path)
        return httpx.Response(204)

    with Client("https://gw.example.test/api", **CREDS, transport=httpx.MockTransport(handler)) as client:
        client.delete_webhook("proj 1", "wh/2")
    assert seen == [b"/api/management/v1/projects/proj%201/webhooks/wh%2F2"]


def test_remembered_urls_are_the_ones_httpx_joins_for_each_base() -> None:
    """A client remembers the URLs it joined (httpx's join parses twice, as much
    as the rest of a GET): whatever the order, the repeats and the evictions
    (more ids than it keeps), each call goes where httpx's own join sends it,
    under the base of its credentials."""
    recorder = Recorder()
    app_base, management_base = "https://api.example.test/v", "https://manage.example.test/m/"
    ids = [f"linc_{n}" for n in range(600)] + ["linc_0", "a b", "linc_599", "a b"]
    expected: list[str] = []
    other_base = "http://127.0.0.1:8000/"  # a second client: what one remembers is its own
    with Client(app_base, **CREDS, management_base_url=management_base,
                transport=httpx.MockTransport(recorder)) as client, \
            Client(other_base, **CREDS, transport=httpx.MockTransport(recorder)) as other:
        for n, incentive_id in enumerate(ids):
            path = f"v2/loyalties/incentives/{quote(incentive_id)}"
            client.get_incentive(incentive_id)
            other.get_incentive(incentive_id)
            expected += [str(httpx.URL(app_base + "/").join(path)), str(httpx.URL(other_base).join(path))]
            if n % 150 == 0:
                client.delete_webhook("proj_1", incentive_id)
                expected.append(str(httpx.URL(management_base).join(
                    f"management/v1/projects/proj_1/webhooks/{quote(incentive_id)}")))
    assert recorder.urls == expected
    assert "https://manage.example.test/m/management/v1/projects/proj_1/webhooks/linc_0" in recorder.urls


def test_the_callers_http_client_sends_and_stays_open() -> None:
    recorder = Recorder()
    own = httpx.Client(transport=httpx.MockTransport(recorder), headers={"X-Team": "pricing"})
    with Client("https://api.example.test", **CREDS, http_client=own) as client:
        assert client.get_incentive("linc_1").id == "linc_0a11ce04"
    assert recorder.urls == ["https://api.example.test/v2/loyalties/incentives/linc_1"]
    assert not own.is_closed  # the caller's to close
    response = own.get("https://api.example.test/ping")  # still usable
    assert response.status_code == 200
    own.close()


def test_the_callers_headers_and_our_credentials_both_go() -> None:
    headers: list[httpx.Headers] = []

    def handler(request: httpx.Request) -> httpx.Response:
        headers.append(request.headers)
        return httpx.Response(200, json=INCENTIVE)

    with httpx.Client(transport=httpx.MockTransport(handler), headers={"X-Team": "pricing"}) as own:
        Client("https://api.example.test", **CREDS, http_client=own).get_incentive("linc_1")
    assert (headers[0]["x-team"], headers[0]["x-app-id"], headers[0]["authorization"]) == (
        "pricing", "app", "Bearer access")


def test_a_client_made_here_is_closed_by_close() -> None:
    client = Client("https://api.example.test", **CREDS, transport=httpx.MockTransport(Recorder()))
    client.close()
    with pytest.raises(RuntimeError, match="closed"):
        client.get_incentive("linc_1")


def test_event_hooks_see_every_request_and_response(sim: Simulator) -> None:
    seen: list[tuple[str, Any]] = []
    hooks = {"request": [lambda request: seen.append(("request", request.url.path))],
             "response": (lambda response: seen.append(("response", response.status_code)),)}
    with sim.client(event_hooks=hooks) as client:
        client.get_incentive("linc_0a11ce01")
        with pytest.raises(Exception, match="404"):
            client.get_incentive("linc_ffff")
    assert seen == [("request", "/v2/loyalties/incentives/linc_0a11ce01"), ("response", 200),
                    ("request", "/v2/loyalties/incentives/linc_ffff"), ("response", 404)]


def test_a_hook_that_raises_stops_the_call(sim: Simulator) -> None:
    def refuse(response: httpx.Response) -> None:
        response.raise_for_status()

    with sim.client(event_hooks={"response": [refuse]}) as client, pytest.raises(httpx.HTTPStatusError):
        client.get_incentive("linc_ffff")


@pytest.mark.parametrize(("options", "message"), [
    ({"transport": httpx.MockTransport(Recorder())}, "pass transport to it"),
    ({"timeout": 3.0}, "pass timeout to it"),
    ({"event_hooks": {"request": []}}, "pass event_hooks to it"),
    ({"timeout": 3.0, "transport": httpx.MockTransport(Recorder())}, "pass transport, timeout to it"),
])
def test_a_setting_of_the_callers_http_client_is_not_taken_twice(options: dict[str, Any], message: str) -> None:
    with httpx.Client() as own, pytest.raises(ValueError, match=message):
        Client("https://api.example.test", **CREDS, http_client=own, **options)


def test_the_wrong_kind_of_http_client_is_refused() -> None:
    with httpx.Client() as sync_own, pytest.raises(TypeError, match=r"httpx\.AsyncClient, not httpx\..*Client"):
        AsyncClient("https://api.example.test", **CREDS, http_client=sync_own)
    with pytest.raises(TypeError, match=r"httpx\.Client, not httpx\..*AsyncClient"):
        Client("https://api.example.test", **CREDS, http_client=httpx.AsyncClient())


def test_a_misspelt_hook_name_is_refused() -> None:
    with pytest.raises(ValueError, match="not 'reponse'"):
        Client("https://api.example.test", **CREDS, event_hooks={"reponse": [print]})


@pytest.mark.parametrize(("base_url", "message"), [
    ("localhost:8000", "absolute http"),
    ("api.example.test", "absolute http"),
    ("ftp://api.example.test", "absolute http"),
    ("https://api.example.test/?x=1", "query or fragment"),
    ("http://[::1", "is not a URL"),
])
def test_a_base_url_that_is_no_base_is_refused_at_once(base_url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        Client(base_url, **CREDS)
    assert repr(base_url) in str(info.value)


def test_a_bad_management_base_url_is_named() -> None:
    with pytest.raises(ValueError, match="management_base_url"):
        Client("https://api.example.test", **CREDS, management_base_url="mgmt.example.test")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_async_client_takes_an_httpx_async_client_and_hooks(sim: Simulator) -> None:
    seen: list[int] = []

    async def note(response: httpx.Response) -> None:
        seen.append(response.status_code)

    own = httpx.AsyncClient(transport=AsyncSimulatorTransport(sim), event_hooks={"response": [note]})
    async with AsyncClient("http://promolab.local", **sim._credentials(), http_client=own) as client:
        incentive = await client.get_incentive("linc_0a11ce01")
    assert incentive.id == "linc_0a11ce01" and seen == [200]
    assert not own.is_closed
    await own.aclose()


@pytest.mark.anyio
async def test_async_event_hooks_are_awaited(sim: Simulator) -> None:
    seen: list[str] = []

    async def note(request: httpx.Request) -> None:
        seen.append(request.method)

    async with sim.async_client(event_hooks={"request": [note]}) as client:
        await client.delete_reward("lrew_retired")
    assert seen == ["DELETE"]


def test_sync_answers_are_the_same_through_the_callers_client(sim: Simulator) -> None:
    order = {"items": [{"product_id": "prod_grinder", "quantity": 1}]}
    with sim.client() as ours:
        expected = ours.validate_promotions(customer={"source_id": "alice"}, order=order)
    with httpx.Client(transport=SimulatorTransport(sim)) as own:
        got = Client("http://promolab.local", **sim._credentials(), http_client=own).validate_promotions(
            customer={"source_id": "alice"}, order=order)
    assert got == expected


@pytest.mark.parametrize(("options", "message"), [
    ({**CREDS, "timeot": 3}, "unexpected keyword argument 'timeot'; did you mean 'timeout'?"),
    ({**CREDS, "colour": "red"}, "unexpected keyword argument 'colour'; it takes access_token, app_id"),
    ({"app_id": "a"}, "missing the project's keys: app_token"),
])
def test_a_keyword_that_is_not_an_option_is_refused_at_run_time_too(options: dict[str, Any], message: str) -> None:
    for kind in (Client, AsyncClient):
        with pytest.raises(TypeError, match=re.escape(message)):
            kind("https://api.example.test", **options)
