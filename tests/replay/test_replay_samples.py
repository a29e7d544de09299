"""The sample event sequences in data/events/: they replay on the demo
scenario with no malformed line, every refusal is the one the file announces
(`note: "expect <key>: ..."`), and the generator reproduces them byte for byte."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from replay_support import require_ops

from promolab import Simulator
from promolab.replay import check_events, replay
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "data" / "events").glob("*.jsonl"))
EXPECT = re.compile(r"^expect (\w+)")
Fresh = Callable[..., Simulator]


def _generator() -> ModuleType:
    return load_script("make_event_samples")


def test_there_are_samples() -> None:
    assert {p.name for p in SAMPLES} >= {"demo_day.jsonl", "demo_week.jsonl"}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_replays_cleanly_on_the_demo(fresh: Fresh, path: Path) -> None:
    require_ops("publish", "track_event", "purchase_reward", "add_gift_balance")
    assert check_events(path) == []
    result = replay(fresh(), path, on_error="stop")
    assert result.skipped == 0
    tl = result.timeline
    expected = tl["note"].fillna("").map(lambda note: (m.group(1) if (m := EXPECT.match(note)) else "ok"))
    mismatches = tl[tl["outcome"].astype(str) != expected][["line", "op", "outcome", "note"]]
    assert mismatches.empty, mismatches.to_string()
    assert result.refused == int((expected != "ok").sum())
    assert tl["pending_purchases"].iloc[-1] == 0  # every purchase settled by the end


def test_the_day_uses_every_operation_of_the_format(fresh: Fresh) -> None:
    require_ops("publish", "track_event", "purchase_reward", "add_gift_balance")
    result = replay(fresh(), ROOT / "data" / "events" / "demo_day.jsonl")
    ops = set(result.timeline["op"].astype(str))
    assert ops >= {"publish", "validate", "track_event", "purchase_reward", "add_gift_balance", "delete_reward",
                   "delete_webhook", "advance"}
    assert result.timeline["conversions"].iloc[-1] == 1
    assert len(result.deliveries) > 0 and result.deliveries["attempt"].max() > 1


def test_the_generator_reproduces_the_files() -> None:
    require_ops("publish", "track_event", "purchase_reward", "add_gift_balance")
    generator = _generator()
    for name, entries in generator.samples().items():
        expected = (ROOT / "data" / "events" / name).read_text(encoding="utf-8")
        assert "".join(generator.encode(e) + "\n" for e in entries) == expected, name
