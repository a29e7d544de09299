"""Replay semantics: a line never half-applies; stop vs skip; refusals are
outcomes; time steps and advances; internal errors always stop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from replay_support import PROGRAM, card_balances, line, require_ops

from promolab import Simulator, models
from promolab.display import format_money
from promolab.replay import ReplayError, record, replay
from promolab.sim.operation import Operation
from promolab.sim.operations import BY_NAME
from promolab.sim.operations.rewards import DELETE_REWARD
from promolab.sim.operations.validation import VALIDATE

Fresh = Callable[..., Simulator]

OK_1 = line("delete_reward", {"reward_id": "lrew_retired"}, at="2026-03-06T10:05:00Z")
OK_2 = line("advance", {"minutes": 10})
#: Malformed third lines, each with a far-future `at` where it can carry one:
#: had its time step run, the clock would show it.
BAD = {
    "invalid_json": '{"at": "2026-03-09T00:00:00Z", "op": "delete_webhook", ',
    "unknown_operation": line("teleport", {}, at="2026-03-09T00:00:00Z"),
    "unknown_argument": line("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": "wh_crm",
                                                "force": True}, at="2026-03-09T00:00:00Z"),
    "missing_argument": line("delete_webhook", {"webhook_id": "wh_crm"}, at="2026-03-09T00:00:00Z"),
    "invalid_argument": line("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": 7},
                             at="2026-03-09T00:00:00Z"),
    "invalid_time": line("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": "wh_crm"},
                         at="2026-03-09 noon"),
    "time_in_past": line("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": "wh_crm"},
                         at="2026-03-06T10:01:00Z"),
}
AFTER = line("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": "wh_notebook"})


def _reference(fresh: Fresh, lines: list[str]) -> str:
    sim = fresh()
    replay(sim, lines)
    return sim.dump_json()


@pytest.mark.parametrize("key", sorted(BAD))
def test_stop_at_a_malformed_line_applies_nothing_of_it(fresh: Fresh, key: str) -> None:
    sim = fresh()
    with pytest.raises(ReplayError) as caught:
        replay(sim, [OK_1, OK_2, BAD[key], AFTER], on_error="stop")
    err = caught.value
    assert (err.line, err.key, err.kind, err.status) == (3, key, "malformed", None)
    assert "line 3" in str(err)
    # the state is exactly the first two lines' state: no time step, no operation
    assert sim.dump_json() == _reference(fresh, [OK_1, OK_2])
    assert sim.state.webhooks["wh_crm"].status == "ACTIVE"
    partial = err.result
    assert partial.timeline["line"].tolist() == [1, 2, 3]
    assert partial.timeline["outcome"].astype(str).tolist() == ["ok", "ok", key]
    assert pd.isna(partial.timeline["status"].iloc[2])
    assert (partial.applied, partial.refused, partial.skipped) == (2, 0, 0)
    assert [(e.line, e.key) for e in partial.errors] == [(3, key)]


@pytest.mark.parametrize("key", sorted(BAD))
def test_skip_records_the_malformed_line_and_goes_on(fresh: Fresh, key: str) -> None:
    sim = fresh()
    result = replay(sim, [OK_1, OK_2, BAD[key], AFTER], on_error="skip")
    assert result.timeline["outcome"].astype(str).tolist() == ["ok", "ok", key, "ok"]
    assert (result.applied, result.refused, result.skipped) == (3, 0, 1)
    assert result.errors[0].kind == "malformed" and result.errors[0].line == 3
    assert sim.dump_json() == _reference(fresh, [OK_1, OK_2, AFTER])
    bad_row = result.timeline.iloc[2]
    assert bad_row["time"] == result.timeline.iloc[1]["time"]  # the clock did not move
    assert key in ("invalid_json", "unknown_operation") or bad_row["op"] == "delete_webhook"
    assert isinstance(bad_row["message"], str) and bad_row["message"]


def test_refusals_are_outcomes_and_change_nothing(fresh: Fresh) -> None:
    refused = line("delete_reward", {"reward_id": "lrew_mug"}, at="2026-03-06T10:05:00Z")
    missing = line("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": "wh_nope"})
    sim = fresh()
    result = replay(sim, [OK_1, refused, missing, OK_2], on_error="stop")
    tl = result.timeline
    assert tl["outcome"].astype(str).tolist() == ["ok", "resource_in_use", "not_found", "ok"]
    assert tl["status"].tolist() == [200, 400, 404, 200]
    assert (result.applied, result.refused, result.skipped) == (2, 2, 0)
    assert [(e.line, e.kind, e.key, e.status) for e in result.errors] == [
        (2, "refused", "resource_in_use", 400), (3, "refused", "not_found", 404)]
    assert "lrewa_mug" in tl["message"].iloc[1]
    assert not result.ok
    assert sim.dump_json() == _reference(fresh, [OK_1, OK_2])


def test_refused_error_mode_stops_at_the_refusal(fresh: Fresh) -> None:
    refused = line("delete_reward", {"reward_id": "lrew_mug"})
    sim = fresh()
    with pytest.raises(ReplayError) as caught:
        replay(sim, [OK_1, refused, OK_2], refused="error")
    assert (caught.value.line, caught.value.key, caught.value.kind, caught.value.status) == (
        2, "resource_in_use", "refused", 400)
    assert caught.value.result.timeline["line"].tolist() == [1, 2]
    # with skip, a refusal in error mode is recorded like any other
    result = replay(fresh(), [OK_1, refused, OK_2], refused="error", on_error="skip")
    assert result.refused == 1 and result.applied == 2


def test_loyalty_refusal_423_is_recorded(fresh: Fresh) -> None:
    require_ops("purchase_reward")
    sim = fresh()
    balances = card_balances(sim)
    result = replay(sim, [line("purchase", {"program_id": PROGRAM, "member_id": "lmbr_bob",
                                            "request": {"reward_id": "lrew_mug"}})])
    row = result.timeline.iloc[0]
    assert (row["op"], row["outcome"], row["status"]) == ("purchase_reward", "insufficient_card_balance", 423)
    assert card_balances(sim) == balances
    assert len(sim.state.card_transactions) == 0


def test_validate_is_a_read(fresh: Fresh) -> None:
    sim = fresh()
    before = sim.dump_json()
    request = {"customer": {"source_id": "alice"},
               "order": {"items": [{"product_id": "prod_mug", "quantity": 2},
                                   {"product_id": "prod_grinder", "quantity": 1}]}}
    result = replay(sim, [line("validate", {"request": request})])
    assert sim.dump_json() == before
    expected = models.ValidationResponse.model_validate(fresh().apply(VALIDATE, request=request).wire)
    row = result.timeline.iloc[0]
    assert row["tiers"] == len(expected.promotions)
    best = max(expected.promotions, key=lambda t: t.order.total_discount_amount or 0)
    assert row["best_tier"] == best.id
    assert row["best_discount"] == best.order.total_discount_amount
    # text for people: the discount in money, the column in cents
    assert row["result"] == f"{len(expected.promotions)} tiers; best {best.id} {format_money(-row['best_discount'])}"


def test_validate_with_no_applicable_tier(fresh: Fresh) -> None:
    only_vip = {"id": {"conditions": {"$is": "promo_vip_10pct"}}}
    result = replay(fresh(), [line("validate", {"request": {"order": {"items": [
        {"product_id": "prod_filters", "quantity": 1}]}}, "filters": only_vip})])
    row = result.timeline.iloc[0]
    assert (row["outcome"], row["tiers"]) == ("ok", 0)
    assert pd.isna(row["best_tier"]) and pd.isna(row["best_discount"])


# -- time ---------------------------------------------------------------------------------


def test_at_moves_the_clock_before_the_operation(fresh: Fresh) -> None:
    sim = fresh()
    result = replay(sim, [line("delete_reward", {"reward_id": "lrew_retired"}, at="2026-03-06T12:00:00Z")])
    assert sim.state.rewards["lrew_retired"].updated_at.isoformat() == "2026-03-06T12:00:00+00:00"
    assert str(result.timeline["time"].iloc[0]) == "2026-03-06 12:00:00+00:00"


def test_a_line_without_at_runs_at_the_current_clock(fresh: Fresh) -> None:
    sim = fresh()
    start = sim.now
    replay(sim, [line("delete_reward", {"reward_id": "lrew_retired"})])
    assert sim.now == start


def test_advance_forms(fresh: Fresh) -> None:
    sim = fresh()
    result = replay(sim, [
        line("advance", {"seconds": 30}),                                  # by 30 s
        line("advance", {}, at="2026-03-06T11:00:00Z"),                    # to 11:00
        line("advance", {"seconds": 60}, at="2026-03-06T11:30:00Z"),       # journal form: ends at 11:30
        line("clock", {"hours": 1}),                                       # alias + unit
    ])
    assert result.timeline["time"].astype(str).tolist() == [
        "2026-03-06 10:00:30+00:00", "2026-03-06 11:00:00+00:00", "2026-03-06 11:30:00+00:00",
        "2026-03-06 12:30:00+00:00"]
    assert result.timeline["result"].tolist() == ["clock +30s", "clock +59m 30s", "clock +30m", "clock +1h"]


def test_an_advance_that_would_start_before_the_clock_is_malformed(fresh: Fresh) -> None:
    sim = fresh()
    with pytest.raises(ReplayError) as caught:
        replay(sim, [line("advance", {"seconds": 600}),
                     line("advance", {"seconds": 3600}, at="2026-03-06T10:30:00Z")])
    assert (caught.value.line, caught.value.key) == (2, "time_in_past")
    assert sim.now.isoformat() == "2026-03-06T10:10:00+00:00"


def test_advance_by_zero_runs_the_work_due_now(fresh: Fresh) -> None:
    require_ops("purchase_reward")
    sim = fresh(settings={"purchase_delay_seconds": 0})
    result = replay(sim, [
        line("purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_alice",
                                 "request": {"reward_id": "lrew_mug"}}),
        line("advance", {"seconds": 0}),
    ])
    assert result.timeline["pending_purchases"].tolist() == [1, 0]
    assert sim.state.cards["lcrd_alice_beans"].balance == 1300


def test_the_replay_does_not_move_the_clock_past_the_last_line(fresh: Fresh) -> None:
    require_ops("purchase_reward")
    sim = fresh()
    result = replay(sim, [line("purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_alice",
                                                   "request": {"reward_id": "lrew_mug"}})])
    assert result.timeline["pending_purchases"].tolist() == [1]
    assert result.ended_at == result.started_at


# -- internal errors -------------------------------------------------------------------------


def test_an_internal_error_stops_even_when_skipping(fresh: Fresh, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(sim: Any, *, how: str) -> None:
        raise RuntimeError(f"boom {how}")

    monkeypatch.setitem(BY_NAME, "explode", Operation("explode", explode, write=False))
    with pytest.raises(ReplayError) as caught:
        replay(fresh(), [OK_1, line("explode", {"how": "loudly"}), OK_2], on_error="skip")
    err = caught.value
    assert (err.line, err.key, err.kind, err.status) == (2, "internal_error", "internal", 500)
    assert isinstance(err.__cause__, RuntimeError)
    assert err.result.timeline["outcome"].astype(str).tolist() == ["ok", "internal_error"]


# -- options and record() ---------------------------------------------------------------------


def test_bad_options_are_refused(fresh: Fresh) -> None:
    with pytest.raises(ValueError, match="on_error"):
        replay(fresh(), [], on_error="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="refused"):
        replay(fresh(), [], refused="drop")  # type: ignore[arg-type]


def test_an_empty_sequence_gives_empty_frames(fresh: Fresh) -> None:
    result = replay(fresh(), [])
    assert len(result.timeline) == 0 and result.ok
    assert (result.balances["line"] == 0).all() and len(result.balances) > 0
    assert list(result.balance_table().index) == [0]


def test_progress_bar_runs(fresh: Fresh, capsys: pytest.CaptureFixture[str]) -> None:
    result = replay(fresh(), [OK_1, OK_2] * 1, progress=True)
    assert result.applied == 2


def test_record_to_a_list_and_to_a_file(fresh: Fresh, tmp_path: Path) -> None:
    sim = fresh()
    with record(sim) as lines:
        sim.apply(DELETE_REWARD, reward_id="lrew_retired")
        sim.advance(5)
    sim.advance(5)  # after the block: not journaled
    assert len(lines) == 2
    path = tmp_path / "journal.jsonl"
    other = fresh()
    with record(other, path) as target:
        other.apply(DELETE_REWARD, reward_id="lrew_retired")
        other.advance(5)
    assert target == path
    assert path.read_text(encoding="utf-8").splitlines() == lines


def test_summary_mentions_counts_and_errors(fresh: Fresh) -> None:
    result = replay(fresh(), [OK_1, line("delete_reward", {"reward_id": "lrew_mug"}), "oops", OK_2],
                    on_error="skip")
    text = result.summary()
    assert "4 lines: 2 applied, 1 refused, 1 skipped" in text
    assert "line 2: refused 400 resource_in_use" in text
    assert "line 3: malformed invalid_json" in text
