"""A purchase on the simulated clock: 202 PENDING, then APPROVED or REJECTED
when the clock passes its due time (material rewards and the free path;
digital grants are in test_purchase_digital.py)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from promolab import Simulator, models
from promolab.sim.loyalty import ledger
from promolab.sim.operations.rewards import DELETE_REWARD
from promolab.sim.refusals import Locked, SimError

from ._helpers import PROGRAM, balance, buy, refused, stock


def _transaction(sim: Simulator, transaction_id: str):
    return sim.state.card_transactions[transaction_id]


def _admin(sim: Simulator, card_id: str, points: int) -> None:
    """An administrator moves points meanwhile (not a purchase)."""
    ledger.post(sim, sim.state.cards[card_id], type="ADMIN_CREDIT" if points > 0 else "ADMIN_DEBIT", points=points)


def test_purchase_answers_a_complete_pending_transaction(sim: Simulator) -> None:
    start = sim.now
    result = buy(sim, "lmbr_alice", "lrew_mug")
    assert result.status is models.PurchaseStatus.TRANSACTION_CREATED
    assert result.message == "Points spent on reward transaction created"
    tx = result.transaction
    assert tx is not None
    assert tx.id.startswith("lctx_")
    assert (tx.card_id, tx.program_id, tx.member_id) == ("lcrd_alice_beans", PROGRAM, "lmbr_alice")
    assert (tx.card_definition_id, tx.card_type) == ("lcdef_beans", "POINTS")
    assert tx.type is models.CardTransactionType.POINTS_SPENT_ON_REWARD
    assert tx.status is models.CardTransactionStatus.PENDING
    assert tx.created_at == start and tx.updated_at is None
    assert tx.details.reward_id == "lrew_mug"
    assert tx.details.points is not None and tx.details.points.total == 500
    assert tx.details.reason == "Reward purchase: Enamel mug"
    assert tx.details.metadata == {}
    assert tx.details.rejection is None and tx.details.result is None
    wire = result.model_dump(mode="json")
    assert "rejection" not in wire["transaction"]["details"]
    assert "updated_at" not in wire["transaction"]  # absent until it changes, never null
    # Nothing has moved yet, but the points and the unit are held.
    assert balance(sim, "lcrd_alice_beans") == 1800
    assert stock(sim, "lrewa_mug") == 25
    assert _transaction(sim, tx.id).due_at == start + timedelta(seconds=2)


def test_pending_then_approved_on_the_clock(sim: Simulator) -> None:
    start = sim.now
    tx_id = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    sim.advance(1)
    assert _transaction(sim, tx_id).status == "PENDING"
    assert balance(sim, "lcrd_alice_beans") == 1800
    assert sim.state.granted_rewards == {}
    sim.advance(1)  # exactly the due time
    record = _transaction(sim, tx_id)
    assert record.status == "APPROVED"
    assert record.updated_at == start + timedelta(seconds=2)
    assert record.due_at is None
    assert balance(sim, "lcrd_alice_beans") == 1300
    assert stock(sim, "lrewa_mug") == 24
    (granted,) = sim.state.granted_rewards.values()
    assert granted.id.startswith("lgrt_")
    assert (granted.kind, granted.product_id, granted.sku_id) == ("MATERIAL", "prod_mug", None)
    assert (granted.member_id, granted.reward_id, granted.transaction_id) == ("lmbr_alice", "lrew_mug", tx_id)
    assert granted.created_at == start + timedelta(seconds=2)
    assert record.details["result"] == {"granted_reward_id": granted.id, "kind": "MATERIAL", "product_id": "prod_mug"}


def test_processing_happens_at_the_due_instant_even_on_a_long_advance(sim: Simulator) -> None:
    start = sim.now
    tx_id = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    sim.advance(timedelta(hours=5))
    assert _transaction(sim, tx_id).updated_at == start + timedelta(seconds=2)
    assert sim.now == start + timedelta(hours=5)


def test_sku_reward_takes_the_last_unit(sim: Simulator) -> None:
    buy(sim, "lmbr_alice", "lrew_beans_1kg")
    sim.advance(2)
    assert stock(sim, "lrewa_beans") == 0
    assert balance(sim, "lcrd_alice_beans") == 300
    (granted,) = sim.state.granted_rewards.values()
    assert (granted.product_id, granted.sku_id) == ("prod_beans_ethiopia", "sku_ethiopia_1000")
    sim.state.cards["lcrd_bob_beans"].balance = 5000
    assert refused(sim, "lmbr_bob", "lrew_beans_1kg").key == "reward_out_of_stock"


def test_the_delay_is_a_setting(sim: Simulator) -> None:
    sim.state.settings.purchase_delay_seconds = 30
    tx_id = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    sim.advance(29)
    assert _transaction(sim, tx_id).status == "PENDING"
    sim.advance(1)
    assert _transaction(sim, tx_id).status == "APPROVED"


def _debit_to(points: int):
    def change(sim: Simulator) -> None:
        card = sim.state.cards["lcrd_alice_beans"]
        _admin(sim, card.id, points - card.balance)

    return change


def _status(path: str, key: str, value: str):
    def change(sim: Simulator) -> None:
        getattr(sim.state, path)[key].status = value

    return change


def _expire_program(sim: Simulator) -> None:
    sim.state.programs[PROGRAM].expiration_date = sim.now + timedelta(seconds=1)


def _stock_to_zero(sim: Simulator) -> None:
    sim.state.reward_assignments["lrewa_mug"].stock = 0


def _unassign(sim: Simulator) -> None:
    del sim.state.reward_assignments["lrewa_mug"]


REJECTIONS = [
    ("points-spent-by-an-admin", _debit_to(499), "insufficient_card_balance"),
    ("card-emptied-by-an-admin", _debit_to(0), "zero_card_balance"),
    ("reward-made-inactive", _status("rewards", "lrew_mug", "INACTIVE"), "non_active_reward"),
    ("reward-back-to-draft", _status("rewards", "lrew_mug", "DRAFT"), "non_active_reward"),
    ("reward-deleted", _status("rewards", "lrew_mug", "DELETED"), "non_active_reward"),
    ("stock-gone", _stock_to_zero, "reward_out_of_stock"),
    ("reward-unassigned", _unassign, "reward_not_assigned"),
    ("member-deactivated", _status("members", "lmbr_alice", "INACTIVE"), "non_active_member"),
    ("program-deactivated", _status("programs", PROGRAM, "INACTIVE"), "non_active_program"),
    ("program-window-closed", _expire_program, "program_outside_validity_window"),
]


@pytest.mark.parametrize(("change", "reason"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS])
def test_pending_then_rejected_when_the_state_changed(sim: Simulator, change, reason: str) -> None:
    start = sim.now
    tx_id = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    change(sim)
    card_before = balance(sim, "lcrd_alice_beans")
    stock_before = sim.state.reward_assignments.get("lrewa_mug") and stock(sim, "lrewa_mug")
    sim.advance(1)
    assert _transaction(sim, tx_id).status == "PENDING"
    sim.advance(5)
    record = _transaction(sim, tx_id)
    assert record.status == "REJECTED"
    assert record.updated_at == start + timedelta(seconds=2)
    assert record.details["rejection"]["reason"] == reason
    assert record.details["rejection"]["details"]
    assert "result" not in record.details
    assert balance(sim, "lcrd_alice_beans") == card_before
    if "lrewa_mug" in sim.state.reward_assignments:
        assert stock(sim, "lrewa_mug") == stock_before
    assert sim.state.granted_rewards == {}
    wire = sim.client().control.member("lmbr_alice")["transactions"][0]
    assert wire["status"] == "REJECTED"
    assert wire["details"]["rejection"]["reason"] == reason


def test_rejection_frees_the_reservation(sim: Simulator) -> None:
    buy(sim, "lmbr_bob", "lrew_coupon")  # 300 of 350 held
    assert refused(sim, "lmbr_bob", "lrew_coupon").key == "insufficient_card_balance"
    sim.state.rewards["lrew_coupon"].status = "INACTIVE"
    sim.advance(2)
    sim.state.rewards["lrew_coupon"].status = "ACTIVE"
    view = sim.client().control.member("lmbr_bob")
    assert (view["cards"][0]["balance"], view["cards"][0]["reserved"], view["cards"][0]["available"]) == (350, 0, 350)


def test_deleting_a_reward_with_a_pending_purchase_is_refused_and_the_purchase_goes_through(sim: Simulator) -> None:
    tx_id = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    with pytest.raises(SimError) as info:
        sim.apply(DELETE_REWARD, reward_id="lrew_mug")
    assert info.value.key == "resource_in_use"
    sim.advance(2)
    assert _transaction(sim, tx_id).status == "APPROVED"


def test_back_to_back_purchases_never_spend_the_same_points_twice(sim: Simulator) -> None:
    first = buy(sim, "lmbr_frank", "lrew_mug")  # 620 - 500 = 120 left
    assert first.status is models.PurchaseStatus.TRANSACTION_CREATED
    error = refused(sim, "lmbr_frank", "lrew_coupon")  # 300 > 120 available
    assert (error.status, error.key) == (423, "insufficient_card_balance")
    sim.advance(2)
    statuses = [t.status for t in sim.state.card_transactions.values()]
    assert statuses == ["APPROVED"]
    assert balance(sim, "lcrd_frank_beans") == 120


def test_threads_purchasing_at_once_cannot_overspend(sim: Simulator) -> None:
    barrier = threading.Barrier(12)

    def attempt(_: int) -> str:
        barrier.wait()
        try:
            return buy(sim, "lmbr_alice", "lrew_mug").status.value
        except Locked as exc:
            return exc.key

    with ThreadPoolExecutor(max_workers=12) as pool:
        outcomes = sorted(pool.map(attempt, range(12)))
    assert outcomes.count("TRANSACTION_CREATED") == 3  # 1800 // 500
    assert outcomes.count("insufficient_card_balance") == 9
    sim.advance(2)
    assert balance(sim, "lcrd_alice_beans") == 300
    assert stock(sim, "lrewa_mug") == 22


def test_same_due_time_is_processed_in_creation_order(sim: Simulator) -> None:
    first = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    second = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    _admin(sim, "lcrd_alice_beans", -1000)  # 800 left: only one mug can be paid
    sim.advance(2)
    assert _transaction(sim, first).status == "APPROVED"
    assert _transaction(sim, second).status == "REJECTED"
    assert _transaction(sim, second).details["rejection"]["reason"] == "insufficient_card_balance"
    assert balance(sim, "lcrd_alice_beans") == 300


def test_earlier_due_time_goes_first_whatever_the_creation_order(sim: Simulator) -> None:
    sim.state.reward_assignments["lrewa_mug"].stock = 2
    sim.state.settings.purchase_delay_seconds = 10
    slow = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    sim.state.settings.purchase_delay_seconds = 2
    fast = buy(sim, "lmbr_frank", "lrew_mug").transaction.id
    sim.state.reward_assignments["lrewa_mug"].stock = 1  # a unit broke in the warehouse
    sim.advance(3)
    assert _transaction(sim, fast).status == "APPROVED"
    assert _transaction(sim, slow).status == "PENDING"
    sim.advance(10)
    assert _transaction(sim, slow).details["rejection"]["reason"] == "reward_out_of_stock"
    assert stock(sim, "lrewa_mug") == 0


def test_points_earned_meanwhile_count_at_processing(sim: Simulator) -> None:
    tx_id = buy(sim, "lmbr_frank", "lrew_mug").transaction.id
    _admin(sim, "lcrd_frank_beans", -600)  # 20 left
    _admin(sim, "lcrd_frank_beans", 480)  # 500 again
    sim.advance(2)
    assert _transaction(sim, tx_id).status == "APPROVED"
    assert balance(sim, "lcrd_frank_beans") == 0


def test_free_reward_is_granted_directly(sim: Simulator) -> None:
    before = dict(sim.state.card_transactions)
    result = buy(sim, "lmbr_dave", "lrew_sticker")
    assert result.status is models.PurchaseStatus.NO_SPENT_ON_REWARD
    assert result.transaction is None
    assert "transaction" not in result.model_dump(mode="json")
    assert sim.state.card_transactions == before
    assert stock(sim, "lrewa_sticker") == 99
    assert balance(sim, "lcrd_dave_beans") == 0
    (granted,) = sim.state.granted_rewards.values()
    assert (granted.kind, granted.product_id, granted.transaction_id) == ("MATERIAL", "prod_tote", None)
    assert granted.created_at == sim.now


def test_a_free_reward_does_not_need_points_held(sim: Simulator) -> None:
    buy(sim, "lmbr_frank", "lrew_mug")  # holds 500 of 620
    assert buy(sim, "lmbr_frank", "lrew_sticker").status is models.PurchaseStatus.NO_SPENT_ON_REWARD


def test_same_calls_give_the_same_bytes(demo_snapshot: dict) -> None:
    def run() -> str:
        sim = Simulator.restore(demo_snapshot)
        buy(sim, "lmbr_alice", "lrew_mug")
        buy(sim, "lmbr_frank", "lrew_mug")
        sim.advance(1)
        buy(sim, "lmbr_dave", "lrew_sticker")
        _admin(sim, "lcrd_frank_beans", -200)
        sim.advance(10)
        return sim.dump_json()

    assert run() == run()


def test_a_snapshot_taken_while_pending_restores_the_pending_work(sim: Simulator) -> None:
    tx_id = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    copy = Simulator.restore(sim.snapshot())
    sim.advance(2)
    copy.advance(2)
    assert copy.state.card_transactions[tx_id].status == "APPROVED"
    assert copy.dump_json() == sim.dump_json()


def test_a_recorded_session_replays_to_the_same_state(demo_snapshot: dict) -> None:
    from promolab.replay import replay

    sim = Simulator.restore(demo_snapshot)
    lines: list[str] = []
    sim.record_to(lines)
    buy(sim, "lmbr_alice", "lrew_mug")
    with pytest.raises(SimError):
        buy(sim, "lmbr_bob", "lrew_mug")
    buy(sim, "lmbr_dave", "lrew_sticker")
    sim.advance(1)
    buy(sim, "lmbr_alice", "lrew_gift_25")
    sim.advance(5)
    sim.record_to(None)
    again = Simulator.restore(demo_snapshot)
    replay(again, lines)
    assert again.dump_json() == sim.dump_json()
