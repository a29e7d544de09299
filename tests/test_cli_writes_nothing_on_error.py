"""Every `promolab` command that writes files writes all of them or none: exit
nonzero on an error, and the output folder holds nothing new, neither a finished
file, nor a half-written one, nor a temporary one (`promolab.output_files`).

Table-driven over the commands, each in two ways: an error the command finds
before writing (bad input, a replay stopped at a line) and a disk that fills up
on the last file it writes (every file before it already complete).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from promolab.cli import main
from promolab.output_files import write_all

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
DAY = DATA / "events" / "demo_day.jsonl"


def _orders(folder: Path, *, dated: bool = True) -> Path:
    """The first 40 line items of the sample orders, placed a minute apart on 6 March 2026."""
    frame = pd.read_csv(DATA / "orders" / "sample_orders.csv", nrows=40, dtype={"product_id": "string",
                                                                               "sku_id": "string"})
    if dated:
        order_number = frame["order_id"].str.removeprefix("ord_").astype(int)
        frame["placed_at"] = (pd.Timestamp("2026-03-06T09:00:00Z")
                              + pd.to_timedelta(order_number, unit="min")).dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    path = folder / "orders.csv"
    frame.to_csv(path, index=False)
    return path


def _events(folder: Path, *lines: str) -> Path:
    path = folder / "events.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _cassette(folder: Path) -> Path:
    """A shadow run's cassette of the demo day, against an in-process stand-in (notebook 08)."""
    from promolab.shadow import Pace, shadow
    from shadow_support import stand_in

    cassette = folder / "run.jsonl"
    shadow(DAY, target=stand_in(DATA / "scenarios" / "demo.yaml"), scenario=DATA / "scenarios" / "demo.yaml", cassette=cassette, allow_writes=True,
           pace=Pace(1000, 1.0), progress=False)
    return cassette


@dataclass(frozen=True)
class Case:
    """A command line run with its inputs in `inputs` and its outputs in `out`."""

    argv: Callable[[Path, Path], list[str]]  # (inputs, out) -> argv
    status: int
    message: str


BAD_LINE = '{"op": "delete_reward", "args": {"reward": "x"}}'

BEFORE_WRITING = {
    "replay-unknown-operation": Case(
        lambda i, o: ["replay", "--events", str(_events(i, '{"op": "purchase_rewrd", "args": {}}')),
                      "--out", str(o / "t.csv"), "--no-progress"],
        1, "did you mean 'purchase_reward'?"),
    "replay-stopped-at-a-line": Case(
        lambda i, o: ["replay", "--events", str(_events(i, '{"op": "advance", "args": {"seconds": 1}}', BAD_LINE)),
                      "--out", str(o / "t.parquet"), "--receiver", "*", "--no-progress"],
        1, ":2: unknown_argument"),
    "replay-bad-receiver": Case(
        lambda i, o: ["replay", "--events", str(DAY), "--out", str(o / "t.csv"), "--receiver", "crn"], 2,
        "no webhook of the scenario delivers to it"),
    "sweep-bad-instant": Case(
        lambda i, o: ["sweep", "--orders", str(_orders(i)), "--out", str(o / "s.csv"), "--at", "tuesday",
                      "--no-progress"], 2, "--at 'tuesday'"),
    "sweep-orders-missing": Case(
        lambda i, o: ["sweep", "--orders", str(i / "none.csv"), "--out", str(o / "s.parquet"), "--no-progress"],
        2, "none.csv"),
    "forecast-orders-undated": Case(
        lambda i, o: ["forecast", "--orders", str(_orders(i, dated=False)), "--out", str(o / "f.csv"),
                      "--no-progress"], 2, "placed_at"),
    "shadow-cassette-unreadable": Case(
        lambda i, o: ["shadow", "--cassette", str(_events(i, "{}")), "--report", str(o / "r.html"),
                      "--out", str(o / "d.csv"), "--no-progress"], 2, "not a shadow cassette"),
}


def _outputs(out: Path) -> list[str]:
    return sorted(p.name for p in out.rglob("*"))


@pytest.mark.parametrize("case", list(BEFORE_WRITING.values()), ids=list(BEFORE_WRITING))
def test_an_error_before_writing_writes_nothing(case: Case, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    inputs, out = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    out.mkdir()
    assert main(case.argv(inputs, out)) == case.status
    err = capsys.readouterr().err
    assert case.message in err, err
    assert _outputs(out) == []


#: command -> (argv, the module attribute that writes its LAST file, which call of it that is)
FULL_DISK: dict[str, tuple[Callable[[Path, Path], list[str]], str, int]] = {
    "replay": (lambda i, o: ["replay", "--events", str(DAY), "--out", str(o / "t.csv"), "--receiver", "*",
                             "--no-progress"], "promolab.replay.cli._write_received", 1),  # after 3 frames
    "sweep": (lambda i, o: ["sweep", "--orders", str(_orders(i)), "--out", str(o / "s.parquet"),
                            "--no-progress"], "promolab.analysis.cli.write_frame", 1),
    "forecast": (lambda i, o: ["forecast", "--orders", str(_orders(i)), "--out", str(o / "f.json"),
                               "--no-progress"], "promolab.analysis.forecast.cli._write", 4),  # orders, periods, budgets, budget_left
    "shadow": (lambda i, o: ["shadow", "--cassette", str(_cassette(i)), "--report", str(o / "r.html"),
                             "--out", str(o / "d.csv"), "--no-progress"], "promolab.replay.cli.write_frame", 1),  # after the report
}


@pytest.mark.parametrize("command", list(FULL_DISK))
def test_a_disk_full_at_the_last_file_leaves_nothing(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The command's last writer writes half its file and fails (ENOSPC): the files
    already complete are not left behind either, and the error is one line."""
    argv, target, failing_call = FULL_DISK[command]
    inputs, out = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    out.mkdir()
    module_name, _, name = target.rpartition(".")
    module = __import__(module_name, fromlist=[name])
    real = getattr(module, name)
    calls: list[Path] = []

    def fills_the_disk(*args: Any, **kwargs: Any) -> None:
        path = next(a for a in args if isinstance(a, Path))
        calls.append(path)
        if len(calls) < failing_call:
            real(*args, **kwargs)
            return
        path.write_bytes(b"half a file")
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(module, name, fills_the_disk)
    assert main(argv(inputs, out)) == 2
    err = capsys.readouterr().err.strip()
    assert "No space left on device" in err and len(err.splitlines()) == 1, err
    assert calls, "the writer was not reached"
    assert _outputs(out) == []


def test_write_all_keeps_the_old_files_when_one_fails(tmp_path: Path) -> None:
    """A failure part way leaves the targets as they were (old content, no new file)
    and no temporary file; a success replaces them all."""
    old = tmp_path / "a.txt"
    old.write_text("old", encoding="utf-8")
    new = tmp_path / "b.txt"

    def fails(path: Path) -> None:
        path.write_text("partial", encoding="utf-8")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_all({old: lambda p: p.write_text("new", encoding="utf-8"), new: fails})
    assert _outputs(tmp_path) == ["a.txt"] and old.read_text(encoding="utf-8") == "old"
    write_all({old: lambda p: p.write_text("new", encoding="utf-8"),
               tmp_path / "sub" / "b.txt": lambda p: p.write_text("b", encoding="utf-8")})
    assert _outputs(tmp_path) == ["a.txt", "b.txt", "sub"] and old.read_text(encoding="utf-8") == "new"
