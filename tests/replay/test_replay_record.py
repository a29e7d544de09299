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
        assert refused(sim.delete_reward, "lrew_mug") == "resource_in_use"
        sim.delete_reward("lrew_retired")
        sim.advance(90)
        assert refused(sim.delete_webhook, "proj_kestrel", "wh_nope") == "not_found"
        sim.delete_webhook("proj_kestrel", "wh_crm")
        sim.validate_promotions({"customer": {"source_id": "alice"}, "order": {"amount": 6000}})
        sim.advance(0)
        sim.delete_reward("lrew_retired")  # again: harmless, same answer
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
        sim.publish({"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "carol"}}, join_once=True)
        sim.publish({"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "carol"}}, join_once=True)
        sim.publish({"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "zoe", "name": "Zoe"},
                     "source_id": "pub-zoe-1"}, join_once=True)
        assert refused(sim.publish, {"campaign": {"id": "camp_nope"}, "customer": {"source_id": "bob"}}) == "not_found"
        # events earning points and stars, a referral conversion, a bad event
        sim.track_event({"event": "order_placed", "customer": {"source_id": "alice"},
                         "metadata": {"amount": 12345, "channel": "web"}})
        sim.track_event({"event": "review_written", "customer": {"source_id": "bob"}, "metadata": {"rating": 4}})
        sim.track_event({"event": "first_order_placed", "customer": {"source_id": "zoe"},
                         "referral": {"code": "REF-ALICE"}, "metadata": {"amount": 2000}})
        assert refused(sim.track_event, {"event": "order_placed", "customer": {"source_id": "bob"},
                                         "metadata": {"channel": "web"}}) == "metadata_validation_failed"
        assert refused(sim.track_event, {"event": "unheard_of", "customer": {"source_id": "bob"}}) == "invalid_payload"
        sim.validate_promotions({"customer": {"source_id": "dave"},
                                 "order": {"items": [{"product_id": "prod_grinder", "quantity": 1},
                                                     {"product_id": "prod_kettle", "quantity": 1}]}})
        # purchases: pending, refused, free, then settled by the clock
        sim.purchase_reward(PROGRAM, "lmbr_alice", "lrew_mug")
        sim.purchase_reward(PROGRAM, "lmbr_dave", "lrew_gift_25")
        sim.purchase_reward(PROGRAM, "lmbr_frank", "lrew_sticker")
        assert refused(sim.purchase_reward, PROGRAM, "lmbr_bob", "lrew_beans_1kg") == "insufficient_card_balance"
        assert refused(sim.purchase_reward, PROGRAM, "lmbr_carol", "lrew_coupon") == "non_active_member"
        assert refused(sim.purchase_reward, PROGRAM, "lmbr_nobody", "lrew_mug") == "not_found"
        sim.advance(1)
        sim.purchase_reward(PROGRAM, "lmbr_alice", "lrew_coupon")  # while the mug is still pending
        sim.advance(5)
        # gift balance: webhooks to a flaky receiver, retried across advances
        sim.add_gift_balance("GIFT-ALICE-50", 2500)
        assert refused(sim.add_gift_balance, "GIFT-ALICE-50", 0) == "invalid_add_balance_params"
        assert refused(sim.add_gift_balance, "NEWS-NOPE", 100) == "not_found"
        sim.advance(60)
        sim.add_gift_balance("GIFT-BOB-25", {"amount": 700, "source_id": "topup-1", "reason": "birthday"})
        sim.advance(180)
        sim.delete_webhook("proj_kestrel", "wh_crm")
        sim.advance(7 * 60)
        assert refused(sim.delete_reward, "lrew_mug") == "resource_in_use"
        sim.delete_reward("lrew_retired")
        sim.track_event({"event": "order_placed", "customer": {"source_id": "dave"},
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
        sim.add_gift_balance("GIFT-ALICE-50", 1000)
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
        lambda: sim.publish({"campaign": {"id": rng.choice(["camp_newsletter", "camp_referral", "camp_gift"])},
                             "customer": {"source_id": rng.choice(customers)}}, join_once=rng.random() < 0.5),
        lambda: sim.track_event({"event": "order_placed", "customer": {"source_id": rng.choice(customers)},
                                 "metadata": {"amount": rng.randint(0, 20000),
                                              "channel": rng.choice(["web", "app", "store", "fax"])}}),
        lambda: sim.track_event({"event": "first_order_placed", "customer": {"source_id": rng.choice(customers)},
                                 "referral": {"code": rng.choice(["REF-ALICE", "REF-DAVE", "REF-NONE"])},
                                 "metadata": {"amount": 1000}}),
        lambda: sim.track_event({"event": "review_written", "customer": {"source_id": rng.choice(customers)},
                                 "metadata": {"rating": rng.randint(0, 6)}}),
        lambda: sim.purchase_reward(rng.choice([PROGRAM, "lprg_legacy"]), rng.choice(members), rng.choice(rewards)),
        lambda: sim.add_gift_balance(rng.choice(["GIFT-ALICE-50", "GIFT-BOB-25", "WELCOME-ALICE"]),
                                     rng.choice([-5, 0, 250, 1000])),
        lambda: sim.advance(rng.choice([0, 1, 2, 30, 61, 600, 3600])),
        lambda: sim.delete_reward(rng.choice(rewards)),
        lambda: sim.delete_webhook("proj_kestrel", rng.choice(["wh_crm", "wh_notebook", "wh_nope"])),
        lambda: sim.validate_promotions({"customer": {"source_id": rng.choice(customers)},
                                         "order": {"amount": rng.randint(0, 20000)}}),
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
