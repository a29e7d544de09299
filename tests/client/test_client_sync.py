"""The typed client: context manager, ApiError, headers, retries, timeouts.

Network behaviour is driven with `httpx.MockTransport`; waits are recorded by
replacing the client module's `time` (nothing actually sleeps).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from promolab import ApiError, Client, Simulator, models
from promolab.client import DEFAULT_RETRIES, DEFAULT_TIMEOUT, _clients

CREDS = {
    "app_id": "app", "app_token": "app-token", "access_token": "access",
    "management_id": "mgmt", "management_token": "mgmt-token",
}
INCENTIVE = {
    "id": "linc_0a11ce04", "name": "Free mug", "type": "MATERIAL", "status": "ACTIVE", "stock": 40,
    "material": {"product": {"id": "prod_mug"}}, "created_at": "2026-03-06T10:00:00.000Z",
    "updated_at": None, "object": "incentive",
}
Handler = Callable[[httpx.Request], httpx.Response]


class Script:
    """A MockTransport handler that plays answers in order and records requests."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def ok(body: Any = INCENTIVE, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def empty() -> httpx.Response:
    """A success without a body: decoded as None, so no model has to be faked."""
    return httpx.Response(204)


def refusal(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers, json={"code": status, "key": "busy", "message": "Try later"})


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    recorded: list[float] = []
    monkeypatch.setattr(_clients, "time", SimpleNamespace(sleep=recorded.append))
    yield recorded


def client_for(script: Script, **options: Any) -> Client:
    return Client("https://api.example.test", **CREDS, transport=httpx.MockTransport(script), **options)


# -- context manager and errors ------------------------------------------------------


def test_client_is_a_context_manager_that_closes(sim: Simulator) -> None:
    with sim.client() as client:
        assert client.get_incentive("linc_0a11ce01").id == "linc_0a11ce01"
    with pytest.raises(RuntimeError, match="closed"):
        client.get_incentive("linc_0a11ce01")


def test_close_is_explicit_too(sim: Simulator) -> None:
    client = sim.client()
    client.close()
    with pytest.raises(RuntimeError):
        client.delete_reward("lrew_retired")
    assert sim.state.rewards["lrew_retired"].status == "INACTIVE"


def test_api_error_carries_status_and_parsed_body(sim: Simulator) -> None:
    with pytest.raises(ApiError) as info:
        sim.client().get_incentive("linc_ffff")
    exc = info.value
    assert exc.status == 404
    assert isinstance(exc.error, models.ErrorBody)
    assert (exc.error.code, exc.error.key, exc.key) == (404, "not_found", "not_found")
    assert exc.error.request_id is not None and exc.error.request_id.startswith("v-")
    assert str(exc) == "404 not_found: Cannot find incentive with id linc_ffff"
    assert exc.headers["content-type"] == "application/json"


def test_api_error_for_a_body_not_in_the_error_shape() -> None:
    script = Script(httpx.Response(502, text="<html>bad gateway</html>"))
    with pytest.raises(ApiError) as info:
        client_for(script, retries=0).get_incentive("linc_1")
    assert info.value.status == 502
    assert info.value.error.key == "http_502"
    assert info.value.error.details == "<html>bad gateway</html>"


def test_api_error_for_a_json_body_without_a_key() -> None:
    # The real service's 429 has no key.
    script = Script(httpx.Response(429, json={"code": 429, "message": "Too many requests hit the API too quickly."}))
    with pytest.raises(ApiError) as info:
        client_for(script, retries=0).get_incentive("linc_1")
    assert (info.value.status, info.value.error.key) == (429, "http_429")
    assert info.value.error.message == "Too many requests hit the API too quickly."


# -- what is sent ----------------------------------------------------------------------


def test_each_interface_gets_its_headers_and_base_url() -> None:
    script = Script(ok(), httpx.Response(204), ok({"now": "x"}))
    client = Client("https://api.example.test/", management_base_url="https://mgmt.example.test",
                    transport=httpx.MockTransport(script), **CREDS)
    client.get_incentive("linc_0a11ce04")
    client.delete_webhook("proj 1", "wh/2")
    client.control.clock()
    loyalty, management, control = script.requests
    assert str(loyalty.url) == "https://api.example.test/v2/loyalties/incentives/linc_0a11ce04"
    assert (loyalty.headers["x-app-id"], loyalty.headers["x-app-token"], loyalty.headers["authorization"]) == (
        "app", "app-token", "Bearer access")
    assert "x-management-token" not in loyalty.headers
    # path segments are quoted: a "/" in an id cannot escape its segment
    assert management.url.raw_path == b"/management/v1/projects/proj%201/webhooks/wh%2F2"
    assert management.url.host == "mgmt.example.test"
    assert (management.headers["x-management-id"], management.headers["x-management-token"]) == ("mgmt", "mgmt-token")
    assert "x-app-token" not in management.headers and "authorization" not in management.headers
    assert control.url.host == "mgmt.example.test" and control.url.path == "/_sim/clock"


def test_missing_credentials_fail_before_sending() -> None:
    script = Script()
    client = Client("https://api.example.test", app_id="a", app_token="t", transport=httpx.MockTransport(script))
    with pytest.raises(ValueError, match="access_token"):
        client.get_incentive("linc_1")
    with pytest.raises(ValueError, match="management"):
        client.delete_webhook("p", "w")
    assert script.requests == []


# -- retries ---------------------------------------------------------------------------


def test_429_is_retried_after_retry_after(waits: list[float]) -> None:
    script = Script(refusal(429, {"Retry-After": "0.25"}), ok())
    incentive = client_for(script, backoff=0.001).get_incentive("linc_0a11ce04")
    assert incentive.id == "linc_0a11ce04"
    assert len(script.requests) == 2
    assert waits == [0.25]  # Retry-After wins over the backoff


def test_429_without_retry_after_backs_off_exponentially_then_gives_up(waits: list[float]) -> None:
    script = Script(refusal(429), refusal(429), refusal(429))
    with pytest.raises(ApiError) as info:
        client_for(script, backoff=0.01, retries=2).get_incentive("linc_1")
    assert info.value.status == 429
    assert len(script.requests) == 3
    assert waits == [0.01, 0.02]


def test_retry_after_is_capped(waits: list[float]) -> None:
    script = Script(refusal(429, {"Retry-After": "3600"}), ok())
    client_for(script).get_incentive("linc_0a11ce04")
    assert waits == [30.0]


@pytest.mark.parametrize("status", [502, 503, 504])
def test_gateway_errors_are_retried(waits: list[float], status: int) -> None:
    script = Script(refusal(status), ok())
    assert client_for(script, backoff=0.001).get_incentive("linc_0a11ce04").id == "linc_0a11ce04"
    assert waits == [0.001]


@pytest.mark.parametrize("status", [400, 401, 404, 423, 500])
def test_other_errors_are_not_retried(waits: list[float], status: int) -> None:
    script = Script(refusal(status), ok())
    with pytest.raises(ApiError):
        client_for(script).get_incentive("linc_1")
    assert len(script.requests) == 1 and waits == []


def test_retries_zero_means_one_try(waits: list[float]) -> None:
    script = Script(refusal(503), ok())
    with pytest.raises(ApiError):
        client_for(script, retries=0).get_incentive("linc_1")
    assert len(script.requests) == 1


def test_non_idempotent_post_is_not_retried_after_a_read_timeout(waits: list[float]) -> None:
    script = Script(httpx.ReadTimeout("slow"), ok({}))
    with pytest.raises(httpx.ReadTimeout):
        client_for(script).track_event(event="order_placed", customer={"source_id": "ann"})
    assert len(script.requests) == 1  # the service may have recorded the event already
    assert waits == []


def test_publish_without_source_id_is_not_retried_after_a_read_timeout(waits: list[float]) -> None:
    script = Script(httpx.ReadTimeout("slow"), ok({}))
    with pytest.raises(httpx.ReadTimeout):
        client_for(script).publish(voucher="V-1", customer={"source_id": "ann"})
    assert len(script.requests) == 1


def test_idempotent_requests_are_retried_after_a_read_timeout(waits: list[float]) -> None:
    script = Script(httpx.ReadTimeout("slow"), ok())
    assert client_for(script, backoff=0.001).get_incentive("linc_0a11ce04").id == "linc_0a11ce04"
    assert len(script.requests) == 2


def test_publish_with_source_id_is_safe_to_retry(waits: list[float]) -> None:
    script = Script(httpx.ReadTimeout("slow"), empty())
    client_for(script, backoff=0.001).publish(voucher="V-1", customer={"source_id": "ann"}, source_id="pub-1")
    assert len(script.requests) == 2
    assert json.loads(script.requests[0].content) == json.loads(script.requests[1].content)


@pytest.mark.parametrize("error", [httpx.ConnectError("refused"), httpx.ConnectTimeout("no answer")])
def test_a_connection_that_never_opened_is_retried_even_for_post(waits: list[float], error: Exception) -> None:
    script = Script(error, empty())
    client_for(script, backoff=0.001).track_event(event="order_placed", customer={"source_id": "ann"})
    assert len(script.requests) == 2


def test_connect_errors_give_up_after_the_retries(waits: list[float]) -> None:
    script = Script(*(httpx.ConnectError("refused") for _ in range(4)))
    with pytest.raises(httpx.ConnectError):
        client_for(script, retries=3, backoff=0.5).get_incentive("linc_1")
    assert len(script.requests) == 4
    assert waits == [0.5, 1.0, 2.0]


def test_defaults() -> None:
    assert (DEFAULT_TIMEOUT, DEFAULT_RETRIES) == (30.0, 2)
    script = Script(ok())
    client_for(script).get_incentive("linc_0a11ce04")
    assert script.requests[0].extensions["timeout"] == {"connect": 30.0, "read": 30.0, "write": 30.0, "pool": 30.0}


@pytest.mark.parametrize(
    ("timeout", "expected"),
    [
        (1.5, {"connect": 1.5, "read": 1.5, "write": 1.5, "pool": 1.5}),
        (httpx.Timeout(5.0, connect=0.5), {"connect": 0.5, "read": 5.0, "write": 5.0, "pool": 5.0}),
        (None, {"connect": None, "read": None, "write": None, "pool": None}),
    ],
)
def test_timeouts_are_configurable(timeout: Any, expected: dict[str, Any]) -> None:
    script = Script(ok())
    client_for(script, timeout=timeout).get_incentive("linc_0a11ce04")
    assert script.requests[0].extensions["timeout"] == expected


def test_sim_client_passes_options_through(sim: Simulator) -> None:
    client = sim.client(timeout=2.0, retries=5, backoff=0.1)
    assert (client.retries, client.backoff) == (5, 0.1)
    assert client.get_incentive("linc_0a11ce01").id == "linc_0a11ce01"
