"""Digital rewards: a discount coupon published from the named campaign, a
gift voucher issued with the named balance (and its webhook); a grant that
cannot happen rejects the purchase and changes nothing else."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from promolab import Simulator, models

from ._helpers import balance, buy, refused, stock

GIFT_EVENT = "EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED"


def _tx(sim: Simulator, transaction_id: str):
    return sim.state.card_transactions[transaction_id]


def test_coupon_reward_publishes_a_code_of_the_campaign(sim: Simulator) -> None:
    start = sim.now
    tx_id = buy(sim, "lmbr_bob", "lrew_coupon").transaction.id
    publications = len(sim.state.publications)
    sim.advance(1)
    assert len(sim.state.publications) == publications
    sim.advance(1)
    record = _tx(sim, tx_id)
    assert record.status == "APPROVED"
    assert balance(sim, "lcrd_bob_beans") == 50
    assert stock(sim, "lrewa_coupon") is None  # unlimited stays unlimited
    (granted,) = sim.state.granted_rewards.values()
    assert granted.kind == "DISCOUNT_COUPON" and granted.voucher_code is not None
    assert granted.voucher_code.startswith("NEWS-")
    voucher = sim.state.vouchers[sim.indexes.voucher_by_code[granted.voucher_code]]
    assert (voucher.campaign_id, voucher.holder_id) == ("camp_newsletter", "cust_bob")
    publication = list(sim.state.publications.values())[-1]
    assert (publication.customer_id, publication.voucher_id) == ("cust_bob", voucher.id)
    assert publication.created_at == start + timedelta(seconds=2)
    assert publication.metadata == {
        "loyalty_program_id": "lprg_coffee_club", "loyalty_reward_id": "lrew_coupon", "loyalty_transaction_id": tx_id,
    }
    assert record.details["result"] == {
        "granted_reward_id": granted.id, "kind": "DISCOUNT_COUPON", "voucher_code": granted.voucher_code,
    }


def _exhaust_newsletter_codes(sim: Simulator) -> None:
    for voucher in sim.state.vouchers.values():
        if voucher.campaign_id == "camp_newsletter":
            voucher.holder_id = "cust_erin"
            voucher.publish_count = 1


def test_no_free_code_rejects_the_purchase_and_changes_nothing_else(sim: Simulator) -> None:
    tx_id = buy(sim, "lmbr_bob", "lrew_coupon").transaction.id
    _exhaust_newsletter_codes(sim)
    before = sim.dump()
    sim.advance(2)
    after = sim.dump()
    record = _tx(sim, tx_id)
    assert record.status == "REJECTED"
    assert record.details["rejection"]["reason"] == "no_voucher_suitable_for_publication"
    assert "camp_newsletter" in record.details["rejection"]["details"]
    assert balance(sim, "lcrd_bob_beans") == 350
    # Only the transaction and the clock moved: no id was spent, nothing granted.
    assert after["ids"] == before["ids"]
    del before["state"]["card_transactions"][tx_id], after["state"]["card_transactions"][tx_id]
    assert after["state"] == before["state"]


def test_inactive_coupon_campaign_rejects(sim: Simulator) -> None:
    tx_id = buy(sim, "lmbr_alice", "lrew_coupon").transaction.id
    sim.state.campaigns["camp_newsletter"].active = False
    sim.advance(2)
    assert _tx(sim, tx_id).details["rejection"]["reason"] == "voucher_cannot_be_published"
    assert sim.state.granted_rewards == {}


def test_second_coupon_of_a_join_once_campaign_is_rejected(sim: Simulator) -> None:
    """camp_newsletter gives one code per customer: a second purchase would
    buy nothing new, so it is rejected and the points stay on the card."""
    first = buy(sim, "lmbr_alice", "lrew_coupon").transaction.id
    sim.advance(2)
    second = buy(sim, "lmbr_alice", "lrew_coupon").transaction.id
    sim.advance(2)
    assert _tx(sim, first).status == "APPROVED"
    rejection = _tx(sim, second).details["rejection"]
    assert rejection["reason"] == "join_once_code_already_published"
    code = sim.state.granted_rewards[_tx(sim, first).details["result"]["granted_reward_id"]].voucher_code
    assert code in rejection["details"]
    assert balance(sim, "lcrd_alice_beans") == 1500
    assert len(sim.state.granted_rewards) == 1


def test_gift_reward_issues_a_gift_voucher_and_sends_the_webhook(sim: Simulator) -> None:
    received: list[dict[str, Any]] = []

    def receiver(headers: Any, body: bytes) -> int:
        received.append(json.loads(body))
        return 200

    sim.register_receiver("notebook", receiver)
    tx_id = buy(sim, "lmbr_alice", "lrew_gift_25").transaction.id
    assert _tx(sim, tx_id).card_id == "lcrd_alice_stars"
    sim.advance(1)
    assert received == [] and sim.state.webhook_deliveries == []
    sim.advance(1)
    record = _tx(sim, tx_id)
    assert record.status == "APPROVED"
    assert balance(sim, "lcrd_alice_stars") == 2
    assert balance(sim, "lcrd_alice_beans") == 1800
    assert stock(sim, "lrewa_gift") == 4
    (granted,) = sim.state.granted_rewards.values()
    assert granted.kind == "GIFT_VOUCHER"
    voucher = sim.state.vouchers[sim.indexes.voucher_by_code[granted.voucher_code]]
    assert (voucher.campaign_id, voucher.holder_id, voucher.type) == ("camp_gift", "cust_alice", "GIFT_VOUCHER")
    assert voucher.gift is not None and voucher.gift.balance == 2500
    # The webhook: one attempt per subscribed configuration, at the grant instant.
    deliveries = sim.webhook_deliveries()
    assert set(deliveries["webhook_id"]) == {"wh_notebook", "wh_crm"}
    assert set(deliveries["event_type"]) == {GIFT_EVENT}
    assert (deliveries["attempted_at"] == record.updated_at).all()
    notebook = deliveries[deliveries["webhook_id"] == "wh_notebook"]
    assert list(notebook["outcome"]) == ["delivered"]
    assert len(received) == 1
    assert received[0]["type"] == "customer.voucher.gift.balance_added"
    assert received[0]["data"]["voucher"]["code"] == granted.voucher_code
    assert received[0]["data"]["customer"]["id"] == "cust_alice"


def test_free_reward_grant_failure_refuses_the_request_unchanged(sim: Simulator) -> None:
    """A 0-point coupon is granted at request time: no free code means the
    request itself fails, with nothing changed (ids included)."""
    sim.state.reward_assignments["lrewa_coupon"].costs[0].points = 0
    _exhaust_newsletter_codes(sim)
    error = refused(sim, "lmbr_dave", "lrew_coupon")
    assert (error.status, error.key) == (400, "no_voucher_suitable_for_publication")


def test_free_coupon_reward_is_granted_at_once(sim: Simulator) -> None:
    sim.state.reward_assignments["lrewa_coupon"].costs[0].points = 0
    result = buy(sim, "lmbr_dave", "lrew_coupon")
    assert result.status is models.PurchaseStatus.NO_SPENT_ON_REWARD
    (granted,) = sim.state.granted_rewards.values()
    assert granted.kind == "DISCOUNT_COUPON" and granted.transaction_id is None
    publication = list(sim.state.publications.values())[-1]
    assert publication.customer_id == "cust_dave"
    assert "loyalty_transaction_id" not in publication.metadata
