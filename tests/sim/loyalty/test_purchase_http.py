"""The purchase endpoint through the HTTP face (`sim.client()` and raw httpx
over the in-process transport): 202 and the body shape, error bodies, and
read-back through the control API."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from promolab import ApiError, Simulator, models
from promolab.http.transport import SimulatorTransport

PATH = "/v2/loyalties/programs/{program}/members/{member}/rewards/purchases"
#: A PENDING transaction's keys: no `updated_at` until it changes (the interface
#: types it as a date-time, never null).
TRANSACTION_KEYS = {
    "id", "card_id", "program_id", "member_id", "card_definition_id", "card_type", "type", "details", "status",
    "created_at",
}


def _raw(sim: Simulator, *, bearer: bool = True) -> httpx.Client:
    creds = sim.state.project.credentials
    headers = {"x-app-id": creds.app_id, "x-app-token": creds.app_token.get_secret_value()}
    if bearer:
        headers["authorization"] = f"Bearer {creds.access_token.get_secret_value()}"
    return httpx.Client(base_url="http://promolab.local", transport=SimulatorTransport(sim), headers=headers)


def _post(sim: Simulator, member: str, body: Any, program: str = "lprg_coffee_club", **kw: Any) -> httpx.Response:
    with _raw(sim, **kw) as http:
        return http.post(PATH.format(program=program, member=member), json=body)


def test_202_with_the_pending_transaction(sim: Simulator) -> None:
    response = _post(sim, "lmbr_alice", {"reward_id": "lrew_mug"})
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"status", "message", "transaction"}
    assert body["status"] == "TRANSACTION_CREATED"
    assert body["message"] == "Points spent on reward transaction created"
    tx = body["transaction"]
    assert set(tx) == TRANSACTION_KEYS
    assert tx["status"] == "PENDING" and tx["type"] == "POINTS_SPENT_ON_REWARD"
    assert tx["created_at"] == "2026-03-06T10:00:00.000Z"
    assert set(tx["details"]) == {"reason", "metadata", "points", "reward_id"}
    assert tx["details"]["points"] == {"total": 500}  # a spend has no expiration: no null dates
    assert tx["details"]["reward_id"] == "lrew_mug"
    models.RewardPurchaseResult.model_validate(body)


def test_no_spent_on_reward_through_http(sim: Simulator) -> None:
    response = _post(sim, "lmbr_dave", {"reward_id": "lrew_sticker"})
    assert response.status_code == 202
    assert response.json() == {
        "status": "NO_SPENT_ON_REWARD", "message": "The reward costs no points and has been granted",
    }  # no transaction was created: no `transaction` key (never null)


def test_423_error_body(sim: Simulator) -> None:
    before = sim.dump_json()
    response = _post(sim, "lmbr_bob", {"reward_id": "lrew_mug"})
    assert response.status_code == 423
    body = response.json()
    assert body["code"] == 423
    assert body["key"] == "insufficient_card_balance"
    assert body["message"] == "Operation exceeds the available card balance"
    assert "350 points available" in body["details"]
    assert (body["resource_type"], body["resource_id"]) == ("card", "lcrd_bob_beans")
    assert body["request_id"].startswith("v-")
    assert sim.dump_json() == before


@pytest.mark.parametrize(
    ("member", "body", "program", "status", "key"),
    [
        ("lmbr_alice", {"reward_id": "lrew_mug", "quantity": 2}, "lprg_coffee_club", 400, "invalid_payload"),
        ("lmbr_alice", {"reward_id": "lrew_retired"}, "lprg_coffee_club", 400, "reward_not_assigned"),
        ("lmbr_alice", {"reward_id": "lrew_mug"}, "lprg_nope", 404, "not_found"),
        ("lmbr_carol", {"reward_id": "lrew_mug"}, "lprg_coffee_club", 423, "non_active_member"),
        ("lmbr_legacy_bob", {"reward_id": "lrew_mug"}, "lprg_legacy", 423, "non_active_program"),
        ("lmbr_dave", {"reward_id": "lrew_mug"}, "lprg_coffee_club", 423, "zero_card_balance"),
    ],
)
def test_error_statuses_over_http(sim: Simulator, member: str, body: Any, program: str, status: int, key: str) -> None:
    before = sim.dump_json()
    response = _post(sim, member, body, program=program)
    assert (response.status_code, response.json()["key"]) == (status, key)
    assert sim.dump_json() == before


def test_bad_json_and_missing_bearer(sim: Simulator) -> None:
    with _raw(sim) as http:
        response = http.post(
            PATH.format(program="lprg_coffee_club", member="lmbr_alice"),
            content=b"{not json", headers={"content-type": "application/json"},
        )
    assert (response.status_code, response.json()["key"]) == (400, "invalid_payload")
    response = _post(sim, "lmbr_alice", {"reward_id": "lrew_mug"}, bearer=False)
    assert response.status_code == 401


def test_typed_client_purchase_and_read_back(sim: Simulator) -> None:
    client = sim.client()
    result = client.purchase_reward("lprg_coffee_club", "lmbr_alice", "lrew_mug")
    assert result.status is models.PurchaseStatus.TRANSACTION_CREATED
    assert result.transaction is not None
    view = client.control.member("lmbr_alice")
    beans = next(c for c in view["cards"] if c["id"] == "lcrd_alice_beans")
    assert (beans["balance"], beans["reserved"], beans["available"]) == (1800, 500, 1300)
    assert view["transactions"][0]["status"] == "PENDING"
    client.control.advance(2)
    view = client.control.member("lmbr_alice")
    beans = next(c for c in view["cards"] if c["id"] == "lcrd_alice_beans")
    assert (beans["balance"], beans["reserved"], beans["available"]) == (1300, 0, 1300)
    (tx,) = view["transactions"]
    assert tx["id"] == result.transaction.id
    assert tx["status"] == "APPROVED" and tx["updated_at"] == "2026-03-06T10:00:02.000Z"
    assert tx["details"]["result"]["kind"] == "MATERIAL"
    (granted,) = view["rewards"]
    assert (granted["kind"], granted["product_id"], granted["transaction_id"]) == ("MATERIAL", "prod_mug", tx["id"])


def test_typed_client_raises_api_error(sim: Simulator) -> None:
    with pytest.raises(ApiError) as info:
        sim.client().purchase_reward("lprg_coffee_club", "lmbr_dave", "lrew_mug")
    assert info.value.status == 423
    assert info.value.key == "zero_card_balance"
    assert info.value.error.request_id


def test_async_client(sim: Simulator) -> None:
    async def run() -> models.RewardPurchaseResult:
        async with sim.async_client() as client:
            return await client.purchase_reward("lprg_coffee_club", "lmbr_frank", "lrew_mug")

    result = asyncio.run(run())
    assert result.transaction is not None and result.transaction.member_id == "lmbr_frank"


def test_member_read_back_of_an_unknown_member_is_404(sim: Simulator) -> None:
    with pytest.raises(ApiError) as info:
        sim.client().control.member("lmbr_nope")
    assert (info.value.status, info.value.key) == (404, "not_found")
