"""The timeline and its companions: documented dtypes, and key state that is
computed incrementally yet equals the simulator's state after every line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from replay_support import PROGRAM, card_balances, gift_balances, line, require_ops

from promolab import Simulator
from promolab.replay import BALANCE_COLUMNS, TIMELINE_COLUMNS, known_operations, read_events, replay
from promolab.replay.runner import _run
from promolab.replay.timeline import SUCCESS_STATUS
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.refusals import SimError

Fresh = Callable[..., Simulator]
SAMPLES = Path(__file__).resolve().parents[2] / "data" / "events"

TIMELINE_DTYPES = {
    "line": "Int64", "time": "datetime64[us, UTC]", "op": "category", "outcome": "category", "status": "Int64",
    "result": "string", "tiers": "Int64", "best_tier": "string", "best_discount": "Int64",
    "publications": "Int64", "events": "Int64", "conversions": "Int64", "pending_purchases": "Int64",
    "deliveries": "Int64", "pending_deliveries": "Int64", "message": "string", "note": "string",
}
BALANCE_DTYPES = {"line": "Int64", "time": "datetime64[us, UTC]", "kind": "category", "account": "string",
                  "owner": "string", "balance": "Int64", "change": "Int64"}


def _dtypes(frame: pd.DataFrame) -> dict[str, str]:
    return {name: str(dtype) for name, dtype in frame.dtypes.items()}


@pytest.mark.parametrize("lines", [[], ["oops"], [line("advance", {"seconds": 1})]], ids=["empty", "bad", "one"])
def test_timeline_and_balances_dtypes_are_fixed(fresh: Fresh, lines: list[str]) -> None:
    result = replay(fresh(), lines, on_error="skip")
    assert list(result.timeline.columns) == TIMELINE_COLUMNS
    assert _dtypes(result.timeline) == TIMELINE_DTYPES
    assert list(result.timeline["op"].cat.categories) == known_operations()
    assert result.timeline["outcome"].cat.categories[0] == "ok"
    assert list(result.balances.columns) == BALANCE_COLUMNS
    assert _dtypes(result.balances) == BALANCE_DTYPES
    assert list(result.balances["kind"].cat.categories) == ["card", "gift"]
    assert str(result.deliveries["line"].dtype) == "Int64"
    assert result.deliveries.columns[0] == "line"


def test_the_sample_week_has_the_documented_dtypes(fresh: Fresh) -> None:
    require_ops("publish", "track_event", "purchase_reward", "add_gift_balance")
    result = replay(fresh(), SAMPLES / "demo_week.jsonl")
    assert _dtypes(result.timeline) == TIMELINE_DTYPES
    assert _dtypes(result.balances) == BALANCE_DTYPES
    table = result.balance_table()
    assert table.index.name == "line" and table.index[0] == 0
    assert set(map(str, table.dtypes)) == {"Int64"}


def test_opening_balances_are_line_zero(fresh: Fresh) -> None:
    sim = fresh()
    result = replay(sim, [])
    opening = result.balances[result.balances["line"] == 0]
    cards = opening[opening["kind"] == "card"]
    gifts = opening[opening["kind"] == "gift"]
    assert dict(zip(cards["account"], cards["balance"], strict=True)) == card_balances(sim)
    assert dict(zip(gifts["account"], gifts["balance"], strict=True)) == gift_balances(sim)
    assert opening["change"].isna().all()
    assert cards.set_index("account").loc["lcrd_alice_beans", "owner"] == "lmbr_alice"
    assert gifts.set_index("account").loc["GIFT-BOB-25", "owner"] == "cust_bob"


@pytest.mark.parametrize("sample", ["demo_day.jsonl", "demo_week.jsonl"])
def test_key_state_after_every_line_equals_the_simulator(fresh: Fresh, sample: str) -> None:
    """The incremental tracker against the truth: the same lines applied one
    by one on a second simulator, whose whole state is read after each."""
    require_ops("publish", "track_event", "purchase_reward", "add_gift_balance")
    result = replay(fresh(), SAMPLES / sample)
    table = result.balance_table()
    timeline = result.timeline.set_index("line")
    truth = fresh()
    for event in read_events(SAMPLES / sample):
        try:
            _run(truth, event.op, event.args, event.at, truth.now)
        except SimError:
            pass
        st = truth.state
        row = table.loc[event.line]
        assert {a: int(row[a]) for a in card_balances(truth)} == card_balances(truth), event.line
        assert {code: int(row[code]) for code in gift_balances(truth)} == gift_balances(truth), event.line
        expected = {
            "publications": len(st.publications),
            "events": len(st.events),
            "conversions": len(st.referral_conversions),
            "pending_purchases": sum(t.status == "PENDING" for t in st.card_transactions.values()),
            "deliveries": len(st.webhook_deliveries),
            "pending_deliveries": len(st.pending_deliveries),
        }
        assert timeline.loc[event.line, list(expected)].to_dict() == expected, event.line
        assert timeline.loc[event.line, "time"] == pd.Timestamp(truth.now)


def test_balance_changes_name_the_line_that_moved_them(fresh: Fresh) -> None:
    require_ops("track_event", "purchase_reward", "add_gift_balance")
    result = replay(fresh(), [
        line("track_event", {"request": {"event": "review_written", "customer": {"source_id": "bob"},
                                         "metadata": {"rating": 5}}}),
        line("purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_alice",
                                 "request": {"reward_id": "lrew_mug"}}),
        line("add_gift_balance", {"code": "GIFT-BOB-25", "request": {"amount": 300}}),
        line("advance", {"seconds": 10}),
    ])
    moves = result.balances[result.balances["line"] > 0]
    assert list(zip(moves["line"], moves["account"], moves["change"], moves["balance"], strict=True)) == [
        (1, "lcrd_bob_beans", 50, 400),
        (3, "GIFT-BOB-25", 300, 2100),
        (4, "lcrd_alice_beans", -500, 1300),  # settled by the clock, at the advance
    ]
    assert result.timeline["pending_purchases"].tolist() == [0, 1, 1, 0]


def test_deliveries_carry_the_line_that_made_them(fresh: Fresh) -> None:
    require_ops("add_gift_balance")
    sim = fresh()
    result = replay(sim, [
        line("add_gift_balance", {"code": "GIFT-ALICE-50", "request": {"amount": 1000}}),
        line("advance", {"seconds": 30}),
        line("advance", {"minutes": 5}),
    ])
    everything = sim.webhook_deliveries()
    assert len(result.deliveries) == len(everything) > 0
    assert result.deliveries.drop(columns="line").equals(everything)
    # first attempts at once (both webhooks, no receiver registered: they fail),
    # then the retries due +1, +2 and +4 min after, all within line 3's 5 minutes
    assert result.deliveries["line"].tolist() == [1, 1, 3, 3, 3, 3, 3, 3]
    assert result.deliveries["attempt"].tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert result.timeline["deliveries"].tolist() == [2, 2, 8]


def test_only_the_replays_deliveries_are_in_its_log(fresh: Fresh) -> None:
    require_ops("add_gift_balance")
    sim = fresh()
    sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 1000})
    before = len(sim.webhook_deliveries())
    result = replay(sim, [line("advance", {"minutes": 1})])
    assert len(result.deliveries) == len(sim.webhook_deliveries()) - before
    assert result.deliveries["line"].tolist() == [1] * len(result.deliveries)


def test_summaries_of_each_operation(fresh: Fresh) -> None:
    require_ops("publish", "track_event", "purchase_reward", "add_gift_balance")
    result = replay(fresh(), [
        line("publish", {"request": {"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "carol"}}}),
        line("track_event", {"request": {"event": "newsletter_signup", "customer": {"source_id": "erin"}}}),
        line("purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_alice",
                                 "request": {"reward_id": "lrew_mug"}}),
        line("purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_frank",
                                 "request": {"reward_id": "lrew_sticker"}}),
        line("add_gift_balance", {"code": "GIFT-BOB-25", "request": {"amount": 300}}),
        line("delete_reward", {"reward_id": "lrew_retired"}),
        line("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": "wh_crm"}),
        line("get_incentive", {"incentive_id": "linc_0a11ce01"}),
        line("advance", {"hours": 25}),
    ])
    text = result.timeline["result"].tolist()
    assert text[0].startswith("NEWS-") and text[0].endswith("-> carol")
    assert text[1] == "newsletter_signup by erin"
    # money as money (USD, the default currency), points as points; the numbers stay in the frames
    assert text[2].startswith("TRANSACTION_CREATED lctx_") and text[2].endswith(" PENDING -500 points")
    assert text[3] == "NO_SPENT_ON_REWARD"
    assert text[4] == "GIFT-BOB-25 +$3.00 -> balance $21.00"
    assert text[5:] == ["lrew_retired DELETED", "wh_crm deleted", "linc_0a11ce01 ACTIVE", "clock +1d 1h"]
    assert result.timeline["status"].tolist() == [200, 200, 202, 202, 200, 200, 204, 200, 200]


def test_success_statuses_match_the_http_routes() -> None:
    table = pytest.importorskip("promolab.http.table")
    for route in table.ROUTES:
        endpoint = route.endpoint
        if not endpoint.control:
            assert SUCCESS_STATUS.get(endpoint.name, 200) == endpoint.status, endpoint.name


def test_stacking_rules_lines_read_as_what_they_did(sim: Simulator) -> None:
    project = {"project_id": "proj_kestrel"}
    first = line("create_stacking_rules", {**project, "request": {"redeemables_application_mode": "PARTIAL"}})
    result = replay(sim, [first, line("list_stacking_rules", project)])
    rules = sim.state.stacking_rules
    assert rules is not None
    rules_id = rules.id
    assert result.timeline["result"].tolist() == [f"{rules_id} PARTIAL REQUESTED_ORDER 5/30"] * 2
    ids = {**project, "stacking_rules_id": rules_id}
    more = [
        line("update_stacking_rules", {**ids, "request": {"applicable_redeemables_limit": 3}}),
        line("get_stacking_rules", ids),
        line("delete_stacking_rules", ids),
    ]
    result = replay(sim, more)
    texts = result.timeline["result"].tolist()
    assert texts == [f"{rules_id} PARTIAL REQUESTED_ORDER 3/30", f"{rules_id} PARTIAL REQUESTED_ORDER 3/30",
                     f"{rules_id} deleted"]
    assert result.timeline["status"].tolist() == [200, 200, 204]
    assert replay(sim, [line("list_stacking_rules", project)]).timeline["result"].tolist() == ["defaults ALL REQUESTED_ORDER 5/30"]
