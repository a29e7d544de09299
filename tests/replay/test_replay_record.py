"""Record -> replay: a session journaled on one simulator, replayed on a fresh
one loaded from the same scenario (and seed), gives the same state dump."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from replay_support import PROGRAM, require_ops

from promolab import Simulator
from promolab.replay import record, replay
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.publishing import PUBLISH
from promolab.sim.operations.purchases import PURCHASE_REWARD
from promolab.sim.operations.rewards import DELETE_REWARD
from promolab.sim.operations.validation import VALIDATE
from promolab.sim.operations.webhook_configs import DELETE_WEBHOOK
from promolab.sim.refusals import SimError

Fresh = Callable[..., Simulator]
ALL_WRITES = ("publish", "track_event", "purchase_reward", "add_gift_balance", "delete_reward", "delete_webhook")


def flaky_receiver(failures: int) -> Callable[[Mapping[str, str], bytes], int]:
    """Answers 503 to its first `failures` calls, then 200 (a fresh one per simulator)."""
    calls = {"n": 0}

    def receive(headers: Mapping[str, str], body: bytes) -> int:
        calls["n"] += 1
        return 503 if calls["n"] <= failures else 200

    return receive


def wire_receivers(sim: Simulator) -> Simulator:
    sim.register_receiver("notebook", flaky_receiver(3))
    sim.register_receiver("crm", flaky_receiver(0))
    return sim


def refused(call: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    with pytest.raises(SimError) as caught:
        call(*args, **kwargs)
    return caught.value.key


def assert_replays(fresh: Fresh, lines: list[str], original: Simulator, *, wire: bool = True) -> Any:
    target = wire_receivers(fresh()) if wire else fresh()
    result = replay(target, lines, on_error="stop", refused="error")
    assert result.applied == len(lines) and result.ok
    assert target.dump_json() == original.dump_json()
    return result


def test_deletes_and_advances_replay_exactly(fresh: Fresh) -> None:
    sim = fresh()
    with record(sim) as lines:
        assert refused(sim.apply, DELETE_REWARD, reward_id="lrew_mug") == "resource_in_use"
        sim.apply(DELETE_REWARD, reward_id="lrew_retired")
        sim.advance(90)
        assert refused(sim.apply, DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_nope") == "not_found"
        sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_crm")
        sim.apply(VALIDATE, request={"customer": {"source_id": "alice"}, "order": {"amount": 6000}})
        sim.advance(0)
        sim.apply(DELETE_REWARD, reward_id="lrew_retired")  # again: harmless, same answer
        sim.advance(3600.5)
    assert [line.split('"op":"')[1].split('"')[0] for line in lines] == [
        "delete_reward", "advance", "delete_webhook", "advance", "delete_reward", "advance"]
    assert_replays(fresh, lines, sim, wire=False)


def test_a_long_mixed_session_replays_exactly(fresh: Fresh, tmp_path: Path) -> None:
    require_ops(*ALL_WRITES)
    sim = wire_receivers(fresh())
    journal = tmp_path / "session.jsonl"
    with record(sim, journal):
        # publications: new customer, join_once, a bad campaign
        carol = {"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "carol"}}
        sim.apply(PUBLISH, request=carol, join_once=True)
        sim.apply(PUBLISH, request=carol, join_once=True)
        sim.apply(PUBLISH, request={"campaign": {"id": "camp_newsletter"},
                                    "customer": {"source_id": "zoe", "name": "Zoe"}, "source_id": "pub-zoe-1"},
                  join_once=True)
        bad_campaign = {"campaign": {"id": "camp_nope"}, "customer": {"source_id": "bob"}}
        assert refused(sim.apply, PUBLISH, request=bad_campaign) == "not_found"
        # events earning points and stars, a referral conversion, a bad event
        sim.apply(TRACK_EVENT, request={"event": "order_placed", "customer": {"source_id": "alice"},
                                        "metadata": {"amount": 12345, "channel": "web"}})
        sim.apply(TRACK_EVENT, request={"event": "review_written", "customer": {"source_id": "bob"},
                                        "metadata": {"rating": 4}})
        sim.apply(TRACK_EVENT, request={"event": "first_order_placed", "customer": {"source_id": "zoe"},
                                        "referral": {"code": "REF-ALICE"}, "metadata": {"amount": 2000}})
        no_amount = {"event": "order_placed", "customer": {"source_id": "bob"}, "metadata": {"channel": "web"}}
        assert refused(sim.apply, TRACK_EVENT, request=no_amount) == "metadata_validation_failed"
        unheard_of = {"event": "unheard_of", "customer": {"source_id": "bob"}}
        assert refused(sim.apply, TRACK_EVENT, request=unheard_of) == "invalid_payload"
        sim.apply(VALIDATE, request={"customer": {"source_id": "dave"},
                                     "order": {"items": [{"product_id": "prod_grinder", "quantity": 1},
                                                         {"product_id": "prod_kettle", "quantity": 1}]}})
        # purchases: pending, refused, free, then settled by the clock
        sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_alice", request={"reward_id": "lrew_mug"})
        sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_dave", request={"reward_id": "lrew_gift_25"})
        sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_frank", request={"reward_id": "lrew_sticker"})
        for member, reward, key in [("lmbr_bob", "lrew_beans_1kg", "insufficient_card_balance"),
                                    ("lmbr_carol", "lrew_coupon", "non_active_member"),
                                    ("lmbr_nobody", "lrew_mug", "not_found")]:
            assert refused(sim.apply, PURCHASE_REWARD, program_id=PROGRAM, member_id=member,
                           request={"reward_id": reward}) == key
        sim.advance(1)
        # while the mug is still pending
        sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_alice", request={"reward_id": "lrew_coupon"})
        sim.advance(5)
        # gift balance: webhooks to a flaky receiver, retried across advances
        sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 2500})
        assert refused(sim.apply, ADD_GIFT_BALANCE, code="GIFT-ALICE-50",
                       request={"amount": 0}) == "invalid_add_balance_params"
        assert refused(sim.apply, ADD_GIFT_BALANCE, code="NEWS-NOPE", request={"amount": 100}) == "not_found"
        sim.advance(60)
        sim.apply(ADD_GIFT_BALANCE, code="GIFT-BOB-25",
                  request={"amount": 700, "source_id": "topup-1", "reason": "birthday"})
        sim.advance(180)
        sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_crm")
        sim.advance(7 * 60)
        assert refused(sim.apply, DELETE_REWARD, reward_id="lrew_mug") == "resource_in_use"
        sim.apply(DELETE_REWARD, reward_id="lrew_retired")
        sim.apply(TRACK_EVENT, request={"event": "order_placed", "customer": {"source_id": "dave"},
                                        "metadata": {"amount": 800, "channel": "app"}})
        sim.advance(2 * 3600)
    lines = journal.read_text(encoding="utf-8").splitlines()
    result = assert_replays(fresh, lines, sim)
    # the session did what it says: points, settlement, retries that finally delivered
    assert (result.timeline["op"] == "advance").sum() == 6
    outcomes = set(result.deliveries["outcome"].astype(str))
    assert {"failed", "delivered"} <= outcomes
    assert result.deliveries["attempt"].max() > 1
    assert result.timeline["pending_purchases"].iloc[-1] == 0
    # replaying the file path directly gives the same state too
    again = wire_receivers(fresh())
    replay(again, journal)
    assert again.dump_json() == sim.dump_json()


def test_a_replay_with_receivers_missing_diverges_only_in_deliveries(fresh: Fresh) -> None:
    """Receivers are runtime, not state: the replaying simulator must register
    the same ones to reproduce the delivery log."""
    require_ops("add_gift_balance")
    sim = wire_receivers(fresh())
    with record(sim) as lines:
        sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 1000})
        sim.advance(120)
    bare = fresh()
    replay(bare, lines)
    assert bare.state.vouchers == sim.state.vouchers
    assert bare.state.webhook_deliveries != sim.state.webhook_deliveries


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_sessions_replay_exactly(fresh: Fresh, seed: int) -> None:
    require_ops(*ALL_WRITES)
    rng = random.Random(seed)
    sim = wire_receivers(fresh())
    customers = ["alice", "bob", "carol", "dave", "erin", "frank", "guest-1", "guest-2"]
    members = ["lmbr_alice", "lmbr_bob", "lmbr_carol", "lmbr_dave", "lmbr_frank", "lmbr_legacy_bob"]
    rewards = ["lrew_mug", "lrew_beans_1kg", "lrew_coupon", "lrew_gift_25", "lrew_sticker", "lrew_retired"]
    calls: list[Callable[[], Any]] = [
        lambda: sim.apply(PUBLISH, request={
            "campaign": {"id": rng.choice(["camp_newsletter", "camp_referral", "camp_gift"])},
            "customer": {"source_id": rng.choice(customers)}}, join_once=rng.random() < 0.5),
        lambda: sim.apply(TRACK_EVENT, request={
            "event": "order_placed", "customer": {"source_id": rng.choice(customers)},
            "metadata": {"amount": rng.randint(0, 20000), "channel": rng.choice(["web", "app", "store", "fax"])}}),
        lambda: sim.apply(TRACK_EVENT, request={
            "event": "first_order_placed", "customer": {"source_id": rng.choice(customers)},
            "referral": {"code": rng.choice(["REF-ALICE", "REF-DAVE", "REF-NONE"])}, "metadata": {"amount": 1000}}),
        lambda: sim.apply(TRACK_EVENT, request={
            "event": "review_written", "customer": {"source_id": rng.choice(customers)},
            "metadata": {"rating": rng.randint(0, 6)}}),
        lambda: sim.apply(PURCHASE_REWARD, program_id=rng.choice([PROGRAM, "lprg_legacy"]),
                          member_id=rng.choice(members), request={"reward_id": rng.choice(rewards)}),
        lambda: sim.apply(ADD_GIFT_BALANCE, code=rng.choice(["GIFT-ALICE-50", "GIFT-BOB-25", "WELCOME-ALICE"]),
                          request={"amount": rng.choice([-5, 0, 250, 1000])}),
        lambda: sim.advance(rng.choice([0, 1, 2, 30, 61, 600, 3600])),
        lambda: sim.apply(DELETE_REWARD, reward_id=rng.choice(rewards)),
        lambda: sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel",
                          webhook_id=rng.choice(["wh_crm", "wh_notebook", "wh_nope"])),
        lambda: sim.apply(VALIDATE, request={"customer": {"source_id": rng.choice(customers)},
                                             "order": {"amount": rng.randint(0, 20000)}}).wire,
    ]
    refusals = 0
    with record(sim) as lines:
        for _ in range(120):
            try:
                rng.choice(calls)()
            except SimError:
                refusals += 1
        sim.advance(86400)
    assert refusals > 0  # the session mixes failed requests in, which are not journaled
    assert_replays(fresh, lines, sim)
