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
    assert f"{events}:3: unknown_argument" in err
    assert list(pd.read_csv(out)["line"]) == [1, 2, 3]  # the partial timeline is written


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
