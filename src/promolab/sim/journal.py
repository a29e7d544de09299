"""The journal: every accepted write, one JSON line each, in replay format.

A line is `{"at": <simulated ISO time>, "op": <operation>, "args": {...}}`,
exactly what `promolab.replay` reads, so recording a session and replaying it
on a fresh simulator reproduces the state. With `fsync=True` each line is on
disk before the operation returns (and so before an HTTP answer is sent):
a crash loses nothing that was acknowledged.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from .clock import format_instant

__all__ = ["Journal", "apply_entry", "encode_line", "parse_line", "replay_journal"]


def encode_line(at: str, op: str, args: dict[str, Any]) -> str:
    return json.dumps({"at": at, "op": op, "args": args}, separators=(",", ":"), ensure_ascii=False)


class Journal:
    def __init__(self, target: str | Path | list[str], *, fsync: bool = True) -> None:
        #: The simulated instant of the last line written (None before the
        #: first): an advance that ran while other lines were journaled
        #: (a receiver writing, or advancing, from inside it) starts its own
        #: line there, so no line seems to start before the one above it.
        self.last_at: datetime | None = None
        self._lines: list[str] | None = target if isinstance(target, list) else None
        self._file: TextIO | None = None
        self._fsync = fsync
        if self._lines is None:
            self.path: Path | None = Path(target)  # type: ignore[arg-type]
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        else:
            self.path = None

    def record(self, at: datetime, op: str, args: dict[str, Any]) -> None:
        line = encode_line(format_instant(at), op, args)
        if self._lines is not None:
            self._lines.append(line)
        else:
            assert self._file is not None
            self._file.write(line + "\n")
            self._file.flush()
            if self._fsync:
                os.fsync(self._file.fileno())
        self.last_at = at

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def parse_line(line: str, number: int) -> dict[str, Any]:
    """One journal/replay line -> {"at", "op", "args"}; `ValueError` names the line
    (whatever is wrong with it, a wrong type included: callers catch that one)."""
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {number}: not valid JSON ({exc.msg})") from None
    if not isinstance(entry, dict):
        raise ValueError(f"line {number}: expected an object with at, op, args")  # noqa: TRY004
    unknown = set(entry) - {"at", "op", "args", "note"}
    if unknown:
        raise ValueError(f"line {number}: unknown keys {sorted(unknown)}")
    if not isinstance(entry.get("op"), str):
        raise ValueError(f"line {number}: missing op")  # noqa: TRY004
    if "args" in entry and not isinstance(entry["args"], dict):
        raise ValueError(f"line {number}: args must be an object")
    if "at" in entry and not isinstance(entry["at"], str):
        raise ValueError(f"line {number}: at must be an ISO 8601 string")
    entry.setdefault("args", {})
    return entry


def apply_entry(sim: Any, entry: dict[str, Any]) -> Any:
    """Apply one entry: move the clock to its `at` (running due work on the
    way, as the original session did), then run the operation."""
    from datetime import timedelta

    from .clock import parse_instant

    if "at" in entry:
        at = parse_instant(entry["at"])
        if at > sim.now:
            sim.advance(at - sim.now)
    if entry["op"] == "advance":
        seconds = entry["args"].get("seconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
            raise ValueError("advance needs args.seconds >= 0")
        # The clock may already stand at this line's `at` (which is after the
        # advance); only the remainder is still to go. Advance even by zero:
        # an `advance(0)` runs work due now (a purchase with no delay), and a
        # restart from the journal must run it too.
        target = parse_instant(entry["at"]) if "at" in entry else sim.now + timedelta(seconds=seconds)
        sim.advance(max(target - sim.now, timedelta(0)))
        return None
    return sim.apply(entry["op"], **entry["args"])


def replay_journal(sim: Any, path: str | Path) -> int:
    """Re-apply a journal written by `Journal` (server restart after a crash).

    A torn last line (the process died mid-write, before the answer was sent)
    is dropped: it was never acknowledged. Any other bad line stops the
    restart, because silently skipping acknowledged work is worse than not
    starting.
    """
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    count = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = parse_line(line, number)
        except ValueError:
            if number == len(lines) or all(not rest.strip() for rest in lines[number:]):
                break
            raise
        apply_entry(sim, entry)
        count += 1
    return count
