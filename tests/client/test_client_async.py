"""`AsyncClient`: the same operations, awaited (anyio's pytest plugin, asyncio)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from promolab import ApiError, AsyncClient, Simulator, models
from promolab.client import _clients

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_async_client_against_the_simulator(sim: Simulator) -> None:
    async with sim.async_client() as client:
        incentive = await client.get_incentive("linc_0a11ce03")
        assert isinstance(incentive, models.Incentive)
        assert incentive.points_proportional is not None
        reward = await client.delete_reward("lrew_retired")
        assert reward.status == "DELETED"
        assert await client.delete_webhook("proj_kestrel", "wh_crm") is None
        with pytest.raises(ApiError) as info:
            await client.delete_reward("lrew_mug")
        assert info.value.status == 400
        assert info.value.error.related_object_type == "reward_assignment"
        assert (await client.control.advance(10))["now"] == "2026-03-06T10:00:10.000Z"
        state = await client.control.state()
    assert state == sim.dump()
    assert sim.state.webhooks["wh_crm"].status == "DELETED"


async def test_async_and_sync_clients_see_the_same(sim: Simulator) -> None:
    other = Simulator.restore(sim.snapshot())
    async with sim.async_client() as client:
        got = [await client.get_incentive(i) for i in sim.state.incentives]
    with other.client() as sync:
        assert got == [sync.get_incentive(i) for i in other.state.incentives]


async def test_async_context_manager_closes(sim: Simulator) -> None:
    async with sim.async_client() as client:
        pass
    with pytest.raises(RuntimeError, match="closed"):
        await client.get_incentive("linc_0a11ce01")


async def test_async_api_error_on_401(sim: Simulator) -> None:
    from promolab.http import AsyncSimulatorTransport

    client = AsyncClient("http://promolab.local", app_id="kestrel-app", app_token="kestrel-app-token",
                         access_token="wrong", transport=AsyncSimulatorTransport(sim))
    with pytest.raises(ApiError) as info:
        await client.get_incentive("linc_0a11ce01")
    await client.aclose()
    assert info.value.status == 401
    assert info.value.error.model_dump(exclude={"request_id"}) == {
        "code": 401, "message": "Unauthorized", "key": "unauthorized"}


async def test_async_retry_on_429_honours_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(_clients, "asyncio", SimpleNamespace(sleep=sleep))
    answers = [
        httpx.Response(429, headers={"Retry-After": "1.5"}, json={"code": 429, "message": "slow down"}),
        httpx.Response(204),
    ]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)

    client = AsyncClient("https://api.example.test", app_id="a", app_token="t",
                         management_id="m", management_token="mt",
                         transport=httpx.MockTransport(handler), backoff=0.001)
    assert await client.delete_webhook("p", "w") is None
    await client.aclose()
    assert len(seen) == 2 and waits == [1.5]


async def test_async_read_timeout_on_post_is_not_retried() -> None:
    calls: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ReadTimeout("slow", request=request)

    async with AsyncClient("https://api.example.test", app_id="a", app_token="t",
                           transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.add_gift_balance("GIFT-1", 500)
    assert len(calls) == 1
