"""`promolab replay` end to end: events file in, timeline (+ balances and
deliveries) out, a summary printed, exit status by outcome."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from replay_support import line

from promolab.cli import main

EVENTS = [
    line("validate", {"request": {"customer": {"source_id": "dave"}, "order": {"items": [
        {"product_id": "prod_grinder", "quantity": 1}, {"product_id": "prod_kettle", "quantity": 1}]}}},
         at="2026-03-06T10:00:00Z", note="the bundle"),
    line("delete_reward", {"reward_id": "lrew_mug"}, at="2026-03-06T10:01:00Z"),
    line("delete_reward", {"reward_id": "lrew_retired"}),
    line("clock", {"minutes": 5}),
]


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(demo_path: Path, events: Path, out: Path, *extra: str) -> int:
    return main(["replay", "--scenario", str(demo_path), "--events", str(events), "--out", str(out), *extra])


def test_csv_out_with_summary(demo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "timeline.csv"
    assert _run(demo_path, _write(tmp_path, EVENTS), out, "--no-progress") == 0
    printed = capsys.readouterr().out
    assert "4 lines: 3 applied, 1 refused, 0 skipped" in printed
    assert "line 2: refused 400 resource_in_use" in printed
    assert str(out) in printed
    frame = pd.read_csv(out)
    assert list(frame["line"]) == [1, 2, 3, 4]
    assert list(frame["outcome"]) == ["ok", "resource_in_use", "ok", "ok"]
    assert list(frame["op"]) == ["validate", "delete_reward", "delete_reward", "advance"]
    assert frame["time"].iloc[-1] == "2026-03-06T10:06:00.000000Z"
    assert frame["note"].iloc[0] == "the bundle"
    balances = pd.read_csv(out.with_name("timeline.balances.csv"))
    assert list(balances["line"]) == [0, 1, 2, 3, 4]
    assert balances["lcrd_alice_beans"].tolist() == [1800] * 5
    assert out.with_name("timeline.deliveries.csv").exists()


def test_parquet_keeps_the_dtypes(demo_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "timeline.parquet"
    assert _run(demo_path, _write(tmp_path, EVENTS), out, "--no-progress") == 0
    frame = pd.read_parquet(out)
    assert str(frame["op"].dtype) == "category"
    assert str(frame["status"].dtype) == "Int64"
    assert str(frame["time"].dtype).startswith("datetime64") and str(frame["time"].dt.tz) == "UTC"
    assert frame["best_tier"].iloc[0] == "promo_brew_bundle"
    assert pd.read_parquet(tmp_path / "timeline.balances.parquet").index.size == 5


def test_a_bad_line_stops_with_its_number(demo_path: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    events = _write(tmp_path, [EVENTS[0], EVENTS[1], '{"op": "delete_reward", "args": {"reward": "x"}}', EVENTS[3]])
    out = tmp_path / "t.csv"
    assert _run(demo_path, events, out, "--no-progress") == 1
    err = capsys.readouterr().err
    assert f"{events}:3: unknown_argument" in err and "nothing written" in err
    assert list(tmp_path.iterdir()) == [events]  # exit 1 writes no timeline, not even a partial one


def test_skip_goes_on(demo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = _write(tmp_path, [EVENTS[0], "{not json", EVENTS[3]])
    out = tmp_path / "t.csv"
    assert _run(demo_path, events, out, "--no-progress", "--on-error", "skip") == 0
    assert list(pd.read_csv(out)["outcome"]) == ["ok", "invalid_json", "ok"]
    assert "1 skipped" in capsys.readouterr().out


def test_progress_bar_goes_to_stderr(demo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(demo_path, _write(tmp_path, EVENTS), tmp_path / "t.csv") == 0
    captured = capsys.readouterr()
    assert "replay:" in captured.err and "/4" in captured.err  # tqdm: "replay: ...| 0/4 [...]"
    assert "replay:" not in captured.out


def test_unreadable_inputs(demo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(demo_path, tmp_path / "missing.jsonl", tmp_path / "t.csv") == 2
    assert "not found" in capsys.readouterr().err
    assert _run(demo_path, _write(tmp_path, EVENTS), tmp_path / "t.xlsx") == 2
    assert ".csv or .parquet" in capsys.readouterr().err
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert _run(demo_path, binary, tmp_path / "t.csv") == 2
    assert "UTF-8" in capsys.readouterr().err


DAY = Path(__file__).resolve().parents[2] / "data" / "events" / "demo_day.jsonl"


def _day(demo_path: Path, tmp_path: Path, *extra: str, scenario: Path | None = None) -> tuple[int, Path]:
    out = tmp_path / "day.csv"
    code = main(["replay", "--scenario", str(scenario or demo_path), "--events", str(DAY), "--out", str(out),
                 "--no-progress", *extra])
    return code, out


def test_unreceived_webhooks_are_explained(demo_path: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _day(demo_path, tmp_path)
    assert code == 0
    printed = capsys.readouterr().out
    deliveries = pd.read_csv(out.with_name("day.deliveries.csv"))
    errors = int((deliveries["outcome"] == "error").sum())
    assert errors and deliveries["error"].str.startswith("no receiver registered").all()
    assert f"webhook attempts: error {errors} (no receiver registered under 'crm', 'notebook')" in printed
    assert "hint:" in printed and "--receiver" in printed
    assert not out.with_name("day.webhooks.jsonl").exists()


@pytest.mark.parametrize("receivers, outcomes", [
    (["*"], {"wh_notebook": {"delivered"}, "wh_crm": {"delivered"}}),
    (["notebook"], {"wh_notebook": {"delivered"}, "wh_crm": {"error"}}),
    (["*", "crm=503"], {"wh_notebook": {"delivered"}, "wh_crm": {"failed"}}),
])
def test_receivers_answer_and_record(receivers: list[str], outcomes: dict[str, set[str]], demo_path: Path,
                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    extra = [arg for name in receivers for arg in ("--receiver", name)]
    code, out = _day(demo_path, tmp_path, *extra)
    assert code == 0
    printed = capsys.readouterr().out
    deliveries = pd.read_csv(out.with_name("day.deliveries.csv"))
    assert {k: set(g["outcome"]) for k, g in deliveries.groupby("webhook_id")} == outcomes
    received = [json.loads(x) for x in out.with_name("day.webhooks.jsonl").read_text(encoding="utf-8").splitlines()]
    answered = deliveries[deliveries["outcome"] != "error"]  # every attempt a receiver answered
    assert [r["receiver"] for r in received] == [t.removeprefix("receiver://") for t in answered["target"]]
    assert [r["headers"]["x-voucherify-signature"] for r in received] == answered["signature"].tolist()
    assert all(r["body"]["type"] == "customer.voucher.gift.balance_added" for r in received)
    assert f"({len(received)} deliveries)" in printed
    assert ("hint:" in printed) == ("error" in set().union(*outcomes.values()))


@pytest.mark.parametrize("spec, message", [
    ("crn", "no webhook of the scenario delivers to it (receivers: crm, notebook)"),
    ("crm=ok", "STATUS must be an HTTP status"),
    ("crm=99", "STATUS must be an HTTP status"),
])
def test_bad_receiver_exits_2(spec: str, message: str, demo_path: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _day(demo_path, tmp_path, "--receiver", spec)
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not out.exists()


@pytest.mark.parametrize("currency, issued, topped_up", [
    (None, "GIFT-DUHBZU77 to cust_dave ($25.00)", "GIFT-ALICE-50 +$25.00"),
    ("EUR", "GIFT-DUHBZU77 to cust_dave (€25.00)", "GIFT-ALICE-50 +€25.00"),
])
def test_a_gift_card_issued_is_not_a_negative_move(currency: str | None, issued: str, topped_up: str,
                                                   demo_path: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    scenario = None
    if currency:
        document = yaml.safe_load(demo_path.read_text(encoding="utf-8"))
        document["project"]["currency"] = currency
        scenario = tmp_path / "scenario.yaml"
        scenario.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    code, out = _day(demo_path, tmp_path, scenario=scenario)
    assert code == 0
    printed = capsys.readouterr().out
    # the data keeps the record: the card came from the pool with 5000 and was issued with 2500
    balances = pd.read_csv(out.with_name("day.balances.csv"))
    assert balances["GIFT-DUHBZU77"].tolist()[0] == 5000 and balances["GIFT-DUHBZU77"].tolist()[-1] == 2500
    assert f"issued: {issued}" in printed
    moves = next(x for x in printed.splitlines() if x.startswith("largest balance moves:"))
    assert topped_up in moves and "GIFT-DUHBZU77" not in moves and " -" not in moves  # no negative move
    assert "lcrd_alice_beans +101 points" in moves


#: (the bad line's `at` as JSON text, what the one line on stderr says after `file:N: `)
BAD_TIMES: list[tuple[str, str]] = [
    ('"yesterday"', "invalid_time: at 'yesterday': not an ISO 8601 instant"),
    ('"2026-02-30T00:00:00Z"', "invalid_time: at '2026-02-30T00:00:00Z': not an ISO 8601 instant"),
    ('"2026-03-06T12:00:00"', "invalid_time: at '2026-03-06T12:00:00': instant '2026-03-06T12:00:00' has no timezone"),
    ('"9999-12-31T23:59:59-05:00"', "invalid_time: at '9999-12-31T23:59:59-05:00': out of range"),
    ('"0001-01-01T00:00:00+01:00"', "invalid_time: at '0001-01-01T00:00:00+01:00': out of range"),
    ('"10000-01-01T00:00:00Z"', "invalid_time: at '10000-01-01T00:00:00Z': not an ISO 8601 instant"),
    ("1741255200", "invalid_time: at must be an ISO 8601 string (got a number)"),
    ("{}", "invalid_time: at must be an ISO 8601 string (got an object)"),
]


@pytest.mark.parametrize("on_error", ["stop", "skip"])
@pytest.mark.parametrize(("at", "said"), BAD_TIMES, ids=[case[0] for case in BAD_TIMES])
def test_a_time_that_cannot_be_held_is_refused_before_anything_runs(
    at: str, said: str, on_error: str, demo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Exit 2 and one line naming the line and the field, whatever --on-error
    says, and before line 1 runs: line 1 is one the replay itself would stop at
    (exit 1) and line 2 is blank, so the number is the file's, not the events'."""
    bad = '{"at": ' + at + ', "op": "delete_reward", "args": {"reward_id": "lrew_retired"}}'
    events = _write(tmp_path, ['{"op": "delete_reward", "args": {"reward": "x"}}', "", EVENTS[0], bad, EVENTS[3]])
    out = tmp_path / "t.csv"
    assert _run(demo_path, events, out, "--no-progress", "--on-error", on_error) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no summary: nothing ran
    assert captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith(f"promolab replay: {events}:4: {said}"), captured.err
    assert captured.err.rstrip().endswith("(nothing run, nothing written)")
    assert list(tmp_path.iterdir()) == [events]


#: Lines whose `at` reads but that the replay refuses on its turn (docs/replay.md: exit 1, stopped at the line)
TURN_REFUSALS: list[tuple[str, str]] = [
    (line("delete_reward", {"reward_id": "lrew_retired"}, at="2020-01-01T00:00:00Z"), "time_in_past"),
    ('{"at": "2026-03-06T10:00:00Z", "op": "delete_reward", "args": {"reward": "x"}}', "unknown_argument"),
    ('{"at": "not a time", "op": ', "invalid_json"),
]


@pytest.mark.parametrize(("bad", "key"), TURN_REFUSALS, ids=[case[1] for case in TURN_REFUSALS])
def test_a_line_refused_on_its_turn_still_stops_with_1(
    bad: str, key: str, demo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    events = _write(tmp_path, [EVENTS[0], bad])
    assert _run(demo_path, events, tmp_path / "t.csv", "--no-progress") == 1
    err = capsys.readouterr().err
    assert f"{events}:2: {key}" in err and "nothing written" in err, err
    assert list(tmp_path.iterdir()) == [events]
