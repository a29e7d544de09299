"""A cassette is input: every hostile one is refused, naming its line.

`promolab shadow --cassette` re-runs a recorded run offline. It trusted the
file: deep nesting was a RecursionError traceback, an unknown operation a
KeyError, `seconds: 1e308` or an advance of a million years an
OverflowError, and a line whose operation was edited to `reset` was skipped
without a word ("0 differ") (issue 34, item 5). Each case below edits one
line of a cassette recorded by a real run (in-process, a simulator standing
in for the service) and must give exit status 2, one line on stderr naming
that line of the cassette, and no report; the near misses must still
re-diff, and the untouched cassette gives the run's own report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from promolab.cli import main
from promolab.shadow import MAX_DEPTH, Pace, ShadowInputError, rediff, shadow
from shadow_support import stand_in

#: The script of the recorded run; cassette line = script line + 1 (line 1 is the header).
SCRIPT = [
    {"at": "2026-03-06T10:00:00.000Z", "op": "validate",
     "args": {"request": {"customer": {"source_id": "alice"},
                          "order": {"items": [{"product_id": "prod_mug", "quantity": 2}]}}}},
    {"op": "get_incentive", "args": {"incentive_id": "linc_0a11ce01"}},
    {"op": "advance", "args": {"seconds": 60}},
    {"op": "publish", "args": {"request": {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}}}},
    {"at": "2026-03-06T12:00:00.000Z", "op": "advance", "args": {}},
    {"op": "get_incentive", "args": {"incentive_id": "linc_0a11ce02"}},
]
VALIDATE, INCENTIVE, ADVANCE, PUBLISH, ADVANCE_TO, LAST = range(2, 8)  # their cassette lines


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, demo_path: Path) -> list[dict[str, Any]]:
    """The lines of a cassette written by a run against a stand-in service."""
    folder = tmp_path_factory.mktemp("cassette")
    script, cassette = folder / "script.jsonl", folder / "run.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in SCRIPT), encoding="utf-8")
    shadow(script, target=stand_in(demo_path), scenario=demo_path, cassette=cassette, allow_writes=True, progress=False,
           pace=Pace(10_000, 1.0))  # a stand-in: no need to space the calls out
    return [json.loads(line) for line in cassette.read_text(encoding="utf-8").splitlines()]


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _edit(line: int, change: Callable[[dict[str, Any]], None]) -> Callable[[list[dict[str, Any]]], list[str]]:
    def edited(lines: list[dict[str, Any]]) -> list[str]:
        out = json.loads(json.dumps(lines))
        change(out[line - 1])
        return [json.dumps(entry) for entry in out]
    return edited


def _set(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda entry: entry.update(fields)


def _args(**args: Any) -> Callable[[dict[str, Any]], None]:
    return lambda entry: entry.update(args={**entry["args"], **args})


def _raw(line: int, text: str) -> Callable[[list[dict[str, Any]]], list[str]]:
    def edited(lines: list[dict[str, Any]]) -> list[str]:
        out = [json.dumps(entry) for entry in lines]
        out[line - 1] = text
        return out
    return edited


def _twice(line: int) -> Callable[[list[dict[str, Any]]], list[str]]:
    def edited(lines: list[dict[str, Any]]) -> list[str]:
        out = [json.dumps(entry) for entry in lines]
        return out[:line] + [out[line - 1]] + out[line:]
    return edited


def _nested_body(depth: int) -> Callable[[dict[str, Any]], None]:
    return lambda entry: entry["real"].update(body=_nested(depth))


MILLION_YEARS = 1_000_000 * 365.25 * 86_400

#: (label, the edit, the cassette line named, what the message says)
HOSTILE: list[tuple[str, Callable[[list[dict[str, Any]]], list[str]], int, str]] = [
    ("nested 100,000 levels", _raw(INCENTIVE, "[" * 100_000 + "]" * 100_000), INCENTIVE,
     f"nested deeper than {MAX_DEPTH} levels"),
    (f"nested {MAX_DEPTH + 1} levels in an answer", _edit(INCENTIVE, _nested_body(MAX_DEPTH)), INCENTIVE,
     f"nested deeper than {MAX_DEPTH} levels"),
    ("nested 900 levels in the arguments", _edit(PUBLISH, _args(request=_nested(900))), PUBLISH,
     f"nested deeper than {MAX_DEPTH} levels"),
    ("an unknown operation", _edit(INCENTIVE, _set(op="teleport")), INCENTIVE, "unknown operation 'teleport'"),
    ("an operation edited to reset", _edit(INCENTIVE, _set(op="reset", args={})), INCENTIVE,
     "simulator's own control operations"),
    ("an operation edited to restore", _edit(PUBLISH, _set(op="restore", args={"snapshot": {}})), PUBLISH,
     "simulator's own control operations"),
    ("a call edited to an advance", _edit(INCENTIVE, _set(op="advance", args={"seconds": 5})), INCENTIVE,
     "not a call of the service, yet it holds an answer"),
    ("a call edited to the journal header",
     _edit(INCENTIVE, _set(op="journal", args={"version": "promolab.journal/2", "scenario": "sha256:0", "seed": 7})),
     INCENTIVE,
     "not a call of the service, yet it holds an answer"),
    ("a call whose real answer is skipped", _edit(PUBLISH, lambda e: e.update(real={"skipped": "x"})), PUBLISH,
     "a call without the real side's answer"),
    ("seconds 1e308", _edit(ADVANCE, _args(seconds=1e308)), ADVANCE, "an advance is at most 100 years"),
    ("an advance of a million years", _edit(ADVANCE, _args(seconds=MILLION_YEARS)), ADVANCE,
     "an advance is at most 100 years"),
    ("a million years back from an at", _edit(ADVANCE_TO, _args(seconds=MILLION_YEARS)), ADVANCE_TO,
     "an advance is at most 100 years"),
    ("an advance starting before the calendar",
     _edit(ADVANCE_TO, _set(at="0001-06-01T00:00:00.000Z", args={"seconds": 10 * 365 * 86_400})), ADVANCE_TO,
     "an advance of -3.1536e+08 s from 0001-06-01T00:00:00+00:00 leaves the calendar (years 1 to 9999)"),
    ("a move to the calendar's last day, refused by the simulator",
     _edit(INCENTIVE, _set(op="advance", at="9999-12-31T00:00:00.000Z", args={}, real={"skipped": "clock"})),
     INCENTIVE, "the sim side's clock cannot be driven (the control API answered 400: Property .seconds: "),
    ("seconds NaN", _raw(ADVANCE, '{"line": 3, "op": "advance", "args": {"seconds": NaN}, "real": {"skipped": "x"}, '
                                  '"sim": {"skipped": "x"}}'), ADVANCE, "seconds"),
    ("seconds as text", _edit(ADVANCE, _args(seconds="1e308")), ADVANCE, "seconds"),
    ("an argument missing", _edit(INCENTIVE, _set(args={})), INCENTIVE, "incentive_id"),
    ("an argument of the wrong type", _edit(INCENTIVE, _args(incentive_id=5)), INCENTIVE, "incentive_id"),
    ("an unknown argument", _edit(INCENTIVE, _args(colour="red")), INCENTIVE, "colour"),
    ("at without a timezone", _edit(VALIDATE, _set(at="2026-03-06T10:00:00")), VALIDATE, "no timezone"),
    ("at not an instant", _edit(VALIDATE, _set(at="tomorrow")), VALIDATE, "not an ISO 8601 instant"),
    ("at past the calendar in UTC", _edit(VALIDATE, _set(at="9999-12-31T23:59:59-05:00")), VALIDATE,
     "out of range"),
    ("a note that is not text", _edit(INCENTIVE, _set(note=["x"])), INCENTIVE, "note must be a string"),
    ("a line recorded twice", _twice(INCENTIVE), INCENTIVE + 1, "comes after script line"),
    ("lines out of order", _edit(LAST, _set(line=1)), LAST, "comes after script line"),
]


def _write(tmp_path: Path, lines: list[str]) -> Path:
    cassette = tmp_path / "edited.jsonl"
    cassette.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return cassette


@pytest.mark.parametrize(("label", "edit", "line", "message"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_hostile_cassette_exits_2_naming_its_line(
    recorded: list[dict[str, Any]], demo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    label: str, edit: Callable[[list[dict[str, Any]]], list[str]], line: int, message: str,
) -> None:
    cassette = _write(tmp_path, edit(recorded))
    status = main(["shadow", "--cassette", str(cassette), "--scenario", str(demo_path), "--no-progress"])
    captured = capsys.readouterr()
    assert status == 2, captured
    assert captured.out == ""  # no report
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert captured.err.startswith(f"promolab shadow: cassette line {line}: "), captured.err
    assert message in captured.err, captured.err
    with pytest.raises(ShadowInputError, match=f"^cassette line {line}: "):
        rediff(cassette, scenario=demo_path)


#: Edits a re-diff takes: (label, the edit, how many lines then differ)
NEAR_MISSES: list[tuple[str, Callable[[list[dict[str, Any]]], list[str]], int]] = [
    ("untouched", lambda lines: [json.dumps(entry) for entry in lines], 0),
    (f"an answer nested {MAX_DEPTH - 4} levels", _edit(INCENTIVE, _nested_body(MAX_DEPTH - 4)), 1),
    ("an advance in minutes", _edit(ADVANCE, _set(args={"minutes": 1})), 0),
    ("a note", _edit(INCENTIVE, _set(note="checked by hand")), 0),
]


@pytest.mark.parametrize(("label", "edit", "differ"), NEAR_MISSES, ids=[case[0] for case in NEAR_MISSES])
def test_near_misses_re_diff(recorded: list[dict[str, Any]], demo_path: Path, tmp_path: Path, label: str,
                             edit: Callable[[list[dict[str, Any]]], list[str]], differ: int) -> None:
    run = rediff(_write(tmp_path, edit(recorded)), scenario=demo_path)
    assert len(run.exchanges) == len(SCRIPT)
    drifting = run.report.lines[run.report.lines["differences"] > 0]
    assert len(drifting) == differ, run.report.text()
    clocks = {e.line: e.clock for e in run.exchanges}
    assert clocks[ADVANCE - 1] == "2026-03-06T10:01:00.000Z"  # the advance moved the clock exactly a minute


def test_without_a_scenario_the_re_diff_runs_the_bundled_demo_from_any_folder(
    recorded: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default scenario is the packaged demo, not a path relative to where the re-diff is started."""
    cassette = _write(tmp_path, [json.dumps(entry) for entry in recorded])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    run = rediff(cassette)
    assert len(run.exchanges) == len(SCRIPT)
    assert (run.report.lines["differences"] == 0).all(), run.report.text()
