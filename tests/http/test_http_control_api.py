"""The control API under /_sim/ (management credentials), through `client.control`."""

from __future__ import annotations

import json

import pytest

from promolab import ApiError, Simulator
from promolab.sim.records._base import REDACTED

SECRETS = (
    "kestrel-app-token",
    "kestrel-access-token",
    "kestrel-management-token",
    "kestrel-webhook-secret",
    "kestrel-crm-secret",
)


def test_state_is_the_redacted_dump(sim: Simulator) -> None:
    state = sim.client().control.state()
    assert state == sim.dump()
    text = json.dumps(state)
    assert not any(secret in text for secret in SECRETS)
    assert state["state"]["project"]["credentials"]["app_token"] == REDACTED


def test_clock_and_advance(sim: Simulator) -> None:
    control = sim.client().control
    assert control.clock() == {"now": "2026-03-06T10:00:00.000Z"}
    assert control.advance(90.5) == {"now": "2026-03-06T10:01:30.500Z"}
    assert sim.clock.iso() == "2026-03-06T10:01:30.500Z"
    with pytest.raises(ApiError) as info:
        control.advance(-1)
    assert (info.value.status, info.value.error.key) == (400, "invalid_payload")
    assert "seconds" in (info.value.error.details or "")
    assert control.clock() == {"now": "2026-03-06T10:01:30.500Z"}


def test_reset_returns_to_the_scenario(sim: Simulator) -> None:
    initial = sim.dump_json()
    client = sim.client()
    client.delete_reward("lrew_retired")
    client.delete_webhook("proj_kestrel", "wh_crm")
    client.control.advance(3600)
    assert sim.dump_json() != initial
    assert client.control.reset() == {"now": "2026-03-06T10:00:00.000Z"}
    assert sim.dump_json() == initial


def test_redacted_snapshot_restores_and_keeps_the_running_secrets(sim: Simulator) -> None:
    client = sim.client()
    client.control.advance(60)
    client.delete_reward("lrew_retired")
    snapshot = client.control.snapshot()
    assert not any(secret in json.dumps(snapshot) for secret in SECRETS)
    at_snapshot = sim.dump_json()

    client.delete_webhook("proj_kestrel", "wh_crm")
    client.control.advance(7200)
    assert sim.dump_json() != at_snapshot

    assert client.control.restore(snapshot) == {"now": "2026-03-06T10:01:00.000Z"}
    assert sim.dump_json() == at_snapshot
    # The running project's secrets survived the redacted image: same client still gets in.
    creds = sim.state.project.credentials
    assert creds.app_token.get_secret_value() == "kestrel-app-token"
    assert creds.access_token.get_secret_value() == "kestrel-access-token"
    assert creds.management_token.get_secret_value() == "kestrel-management-token"
    assert sim.state.webhooks["wh_crm"].secret.get_secret_value() == "kestrel-crm-secret"
    assert client.get_incentive("linc_0a11ce01").id == "linc_0a11ce01"
    assert client.control.clock() == {"now": "2026-03-06T10:01:00.000Z"}


@pytest.mark.parametrize(
    "body",
    [{}, {"format": "something/else"}, {"format": "promolab.snapshot/1"}, {"format": "promolab.snapshot/1", "seed": 1}],
    ids=["empty", "wrong-format", "no-state", "no-clock"],
)
def test_restoring_junk_is_400_and_changes_nothing(sim: Simulator, body: dict[str, object]) -> None:
    before = sim.dump_json()
    with pytest.raises(ApiError) as info:
        sim.client().control.restore(body)
    assert (info.value.status, info.value.error.key) == (400, "invalid_payload")
    assert sim.dump_json() == before


def test_coverage_lists_every_route_of_the_service(sim: Simulator) -> None:
    from promolab.http import ROUTES

    rows = sim.client().control.coverage()["data"]
    assert [(r["method"], r["path"]) for r in rows] == [(r.method, r.path) for r in ROUTES if not r.endpoint.control]
    implemented = {r["operation"] for r in rows if r["implemented"]}
    assert {"get_incentive", "delete_reward", "delete_webhook", "create_stacking_rules"} <= implemented
    assert all(r["implemented"] for r in rows)  # every declared operation has its function


def test_member_view_and_unknown_member(sim: Simulator) -> None:
    control = sim.client().control
    view = control.member("lmbr_alice")
    assert "lcrd_alice_beans" in json.dumps(view)
    with pytest.raises(ApiError) as info:
        control.member("lmbr_nobody")
    assert (info.value.status, info.value.error.resource_type) == (404, "member")


def test_deliveries_start_empty(sim: Simulator) -> None:
    assert sim.client().control.webhook_deliveries() == {"object": "list", "data": []}


def test_control_api_refuses_app_credentials(sim: Simulator) -> None:
    from promolab import Client
    from promolab.http import SimulatorTransport

    creds = sim.state.project.credentials
    # An app-only caller posing its app token as management token.
    client = Client("http://promolab.local", app_id=creds.app_id, app_token="kestrel-app-token",
                    management_id=creds.app_id, management_token="kestrel-app-token",
                    transport=SimulatorTransport(sim))
    for call in (client.control.state, client.control.reset, client.control.snapshot, client.control.clock):
        with pytest.raises(ApiError) as info:
            call()
        assert info.value.status == 401
