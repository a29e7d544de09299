"""`Simulator.served()` (`http.server.serving_in_thread`): uvicorn in a thread
on a free port for a block, always stopped after it, even when the block fails."""

from __future__ import annotations

import threading

import httpx
import pytest

from promolab import Simulator

THREAD = "promolab-served-simulator"


def _serving_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD]


def test_served_answers_with_the_projects_keys_then_stops(sim: Simulator) -> None:
    with sim.served() as server:
        assert server.sim is sim
        assert server.base_url.startswith("http://127.0.0.1:")
        with server.client() as client:
            assert client.get_incentive("linc_0a11ce01").name == "50 points for a review"
        assert server.credentials == sim._credentials()
        assert len(_serving_threads()) == 1
    assert _serving_threads() == []
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.base_url + "/openapi.json", timeout=2.0)


def test_a_failing_block_still_stops_the_server(sim: Simulator) -> None:
    with pytest.raises(ZeroDivisionError), sim.served() as server:
        _ = 1 / 0
    assert _serving_threads() == []
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.base_url + "/openapi.json", timeout=2.0)


def test_two_served_at_once_get_their_own_ports(sim: Simulator) -> None:
    other = Simulator.from_scenario({"project": {"id": "proj_other"}})
    with sim.served() as one, other.served() as two:
        assert one.base_url != two.base_url
        assert httpx.get(two.base_url + "/openapi.json", timeout=5.0).status_code == 200
        with one.client() as client:
            client.delete_reward("lrew_retired")
    assert sim.state.rewards["lrew_retired"].status == "DELETED"
    assert other.state.rewards == {}


def test_a_host_that_cannot_be_bound_raises_before_the_block(sim: Simulator) -> None:
    with pytest.raises(OSError), sim.served(host="192.0.2.1"):  # TEST-NET-1: not this machine's
        raise AssertionError("the block ran")
