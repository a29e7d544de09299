"""POST /v1/vouchers/{code}/balance, and the gift contract used by loyalty rewards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from promolab import ApiError, Simulator, models
from promolab.http.transport import SimulatorTransport
from promolab.sim.gift import credit_gift_balance, issue_gift_voucher
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.refusals import SimError

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"


@pytest.fixture(scope="module")
def demo_snapshot() -> dict[str, Any]:
    return Simulator.from_scenario(DEMO).snapshot()


@pytest.fixture
def sim(demo_snapshot: dict[str, Any]) -> Simulator:
    sim = Simulator.restore(demo_snapshot)
    sim.received = []  # type: ignore[attr-defined]
    sim.register_receiver("notebook", lambda headers, body: sim.received.append((dict(headers), body)))  # type: ignore[attr-defined]
    sim.register_receiver("crm", lambda headers, body: 204)
    return sim


def voucher(sim: Simulator, code: str) -> Any:
    return sim.state.vouchers[sim.indexes.voucher_by_code[code]]


def test_adding_balance(sim: Simulator) -> None:
    result = sim.apply(ADD_GIFT_BALANCE, code="GIFT-BOB-25",
                       request={"amount": 400, "source_id": "topup-1", "reason": "birthday"})
    bob = voucher(sim, "GIFT-BOB-25")
    assert result.model_dump(mode="json") == {
        "amount": 400, "total": 2900, "balance": 2200, "type": "gift_voucher", "operation_type": "MANUAL",
        "object": "balance", "related_object": {"type": "voucher", "id": bob.id},
    }
    assert (bob.gift.amount, bob.gift.balance) == (2900, 2200)  # redeemed 700 stays redeemed
    (tx,) = sim.state.voucher_transactions.values()
    assert tx.id.startswith("vtx_")
    assert (tx.type, tx.amount, tx.voucher_id, tx.campaign_id) == ("CREDITS_ADDITION", 400, bob.id, "camp_gift")
    assert (tx.source_id, tx.reason, tx.source) == ("topup-1", "birthday", "API")
    assert tx.details["balance"] == {
        "type": "gift_voucher", "total": 2900, "amount": 400, "object": "balance", "balance": 2200,
        "operation_type": "MANUAL", "related_object": {"id": bob.id, "type": "voucher"},
    }


def test_balance_added_payload(sim: Simulator) -> None:
    sim.apply(ADD_GIFT_BALANCE, code="GIFT-BOB-25", request={"amount": 400})
    (_headers, body), = sim.received  # type: ignore[attr-defined]
    envelope = models.WebhookEnvelope.model_validate_json(body)
    data = envelope.data
    assert isinstance(data, models.GiftBalanceAddedData)
    assert envelope.type == envelope.event.type == "customer.voucher.gift.balance_added"
    assert data.customer.id == "cust_bob" and data.customer.source_id == "bob"
    assert data.campaign.id == "camp_gift" and data.campaign.campaign_type == "GIFT_VOUCHERS"
    assert data.voucher.code == "GIFT-BOB-25" and data.voucher.holder_id == "cust_bob"
    assert data.voucher.gift is not None
    assert (data.voucher.gift.amount, data.voucher.gift.balance) == (2900, 2200)
    assert data.voucher.redemption is not None and data.voucher.redemption.redeemed_amount == 0
    raw = json.loads(body)["data"]["balance"]
    assert raw == {"type": "gift_voucher", "total": 2900, "amount": 400, "object": "balance", "balance": 2200,
                   "related_object": {"type": "voucher", "id": data.voucher.id}}
    assert data.transaction.type == "CREDITS_ADDITION" and data.transaction.voucher_id == data.voucher.id
    assert envelope.event.entity_id == data.voucher.id


def test_unpublished_gift_card_is_credited_without_webhook(sim: Simulator) -> None:
    free = next(v for v in sim.state.vouchers.values() if v.campaign_id == "camp_gift" and v.holder_id is None)
    sim.apply(ADD_GIFT_BALANCE, code=free.code, request={"amount": 100})
    assert free.gift.amount == 5100
    assert sim.received == [] and sim.state.webhook_deliveries == []  # type: ignore[attr-defined]


ERROR_CASES: list[tuple[str, str, Any, int, str]] = [
    ("zero", "GIFT-BOB-25", {"amount": 0}, 400, "invalid_add_balance_params"),
    ("negative", "GIFT-BOB-25", {"amount": -500}, 400, "invalid_add_balance_params"),
    ("overflow", "GIFT-BOB-25", {"amount": 2**63 - 1}, 400, "invalid_add_balance_params"),
    ("discount code", "WELCOME-ALICE", {"amount": 100}, 400, "invalid_voucher"),
    ("referral code", "REF-ALICE", {"amount": 100}, 400, "invalid_voucher"),
    ("unknown code", "GIFT-NOPE", {"amount": 100}, 404, "not_found"),
    ("float amount", "GIFT-BOB-25", {"amount": 1.5}, 400, "invalid_payload"),
    ("string amount", "GIFT-BOB-25", {"amount": "100"}, 400, "invalid_payload"),
    ("missing amount", "GIFT-BOB-25", {"reason": "x"}, 400, "invalid_payload"),
    ("unknown field", "GIFT-BOB-25", {"amount": 100, "currency": "EUR"}, 400, "invalid_payload"),
]


@pytest.mark.parametrize(("code", "body", "status", "key"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_refused_balance_changes_nothing(sim: Simulator, code: str, body: Any, status: int, key: str) -> None:
    sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 100})  # some history first
    before = sim.dump_json()
    received = len(sim.received)  # type: ignore[attr-defined]
    response = _post_raw(sim, f"/v1/vouchers/{code}/balance", body)
    error = response.json()
    assert (response.status_code, error["code"], error["key"]) == (status, status, key)
    assert error["request_id"]
    if status == 404:
        assert (error["resource_type"], error["resource_id"]) == ("voucher", code)
    assert sim.dump_json() == before
    with pytest.raises(SimError) as in_process:
        sim.apply(ADD_GIFT_BALANCE, code=code, request=body)
    assert (in_process.value.status, in_process.value.key) == (status, key)
    assert sim.dump_json() == before
    assert len(sim.received) == received  # type: ignore[attr-defined]


def _post_raw(sim: Simulator, path: str, body: Any) -> httpx.Response:
    """Any JSON body through the HTTP face in-process (the typed client only
    sends well-typed amounts)."""
    creds = sim.state.project.credentials
    headers = {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token.get_secret_value()}
    with httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local") as http:
        return http.post(path, json=body, headers=headers)


def test_balance_through_the_client(sim: Simulator) -> None:
    result = sim.client().add_gift_balance("GIFT-ALICE-50", 1000, source_id="s-1", reason="goodwill")
    assert isinstance(result, models.BalanceResult)
    assert (result.amount, result.total, result.balance) == (1000, 6000, 6000)
    assert len(sim.received) == 1  # type: ignore[attr-defined]
    with pytest.raises(ApiError) as caught:
        sim.client().add_gift_balance("GIFT-ALICE-50", 0)
    assert caught.value.key == "invalid_add_balance_params"


# -- contract functions (used by loyalty rewards and referrals) -----------------------------------
def test_credit_gift_balance_contract(sim: Simulator) -> None:
    alice = voucher(sim, "GIFT-ALICE-50")
    tx = credit_gift_balance(sim, alice, 250, source_id="src", reason="why", source="INTERNAL")
    assert (tx.type, tx.amount, tx.source, tx.reason, tx.source_id) == ("CREDITS_ADDITION", 250, "INTERNAL", "why", "src")
    assert (alice.gift.amount, alice.gift.balance) == (5250, 5250)
    assert len(sim.state.pending_deliveries) == 2  # queued for both configurations, delivered after the operation
    before = sim.dump_json()
    with pytest.raises(SimError):
        credit_gift_balance(sim, voucher(sim, "WELCOME-ALICE"), 250)
    with pytest.raises(SimError):
        credit_gift_balance(sim, alice, 0)
    assert sim.dump_json() == before


def test_issue_gift_voucher_takes_a_free_code_worth_exactly_the_balance(sim: Simulator) -> None:
    free = next(v for v in sim.state.vouchers.values() if v.campaign_id == "camp_gift" and v.holder_id is None)
    issued = issue_gift_voucher(sim, campaign_id="camp_gift", customer_id="cust_erin", balance=2500, reason="reward")
    assert issued.id == free.id and issued.holder_id == "cust_erin" and issued.publish_count == 1
    assert (issued.gift.amount, issued.gift.balance) == (2500, 2500)  # the template 5000 is replaced
    (pub,) = sim.state.publications.values()
    assert (pub.customer_id, pub.voucher_id) == ("cust_erin", issued.id)
    (tx,) = sim.state.voucher_transactions.values()
    assert (tx.amount, tx.reason) == (2500, "reward")
    assert [p.webhook_id for p in sim.state.pending_deliveries] == ["wh_notebook", "wh_crm"]


def test_issue_gift_voucher_generates_a_code_when_none_is_free(sim: Simulator) -> None:
    for v in sim.state.vouchers.values():
        if v.campaign_id == "camp_gift" and v.holder_id is None:
            v.holder_id = "cust_frank"
            v.publish_count = 1
    count = len(sim.state.vouchers)
    issued = issue_gift_voucher(sim, campaign_id="camp_gift", customer_id="cust_erin", balance=700)
    assert len(sim.state.vouchers) == count + 1
    assert issued.code.startswith("GIFT-") and len(issued.code) == len("GIFT-") + 8
    assert sim.indexes.voucher_by_code[issued.code] == issued.id
    assert issued.holder_id == "cust_erin" and issued.gift.balance == 700
    again = issue_gift_voucher(sim, campaign_id="camp_gift", customer_id="cust_erin", balance=700)
    assert again.code != issued.code


@pytest.mark.parametrize(
    ("campaign_id", "customer_id", "balance", "key"),
    [
        ("camp_newsletter", "cust_erin", 100, "invalid_campaign"),
        ("camp_nope", "cust_erin", 100, "not_found"),
        ("camp_gift", "cust_nope", 100, "not_found"),
        ("camp_gift", "cust_erin", -1, "invalid_add_balance_params"),
    ],
)
def test_issue_gift_voucher_refusals_change_nothing(
    sim: Simulator, campaign_id: str, customer_id: str, balance: int, key: str
) -> None:
    before = sim.dump_json()
    with pytest.raises(SimError) as caught:
        issue_gift_voucher(sim, campaign_id=campaign_id, customer_id=customer_id, balance=balance)
    assert caught.value.key == key
    assert sim.dump_json() == before
