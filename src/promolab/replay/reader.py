"""Reading and checking event sequences (the journal format, docs/replay.md).

One JSON object a line: `{"at": <ISO 8601>, "op": <operation>, "args": {...}}`
with an optional `"note"`. Every line is checked here, *before* anything is
applied: valid JSON, known keys, a known operation (friendly aliases are
normalised to the registry's names), argument names the operation accepts,
argument types its signature declares, and a parseable, timezone-aware `at`.
What cannot be checked without the simulator (that `at` is not before its
clock) is checked by the runner, still before the line is applied.

A line that fails is a `BadLine` carrying its line number and an error key;
`read_events` raises it as `EventFormatError`, `iter_events` yields it so a
replay with `on_error="skip"` can record it and go on.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, cast

from pydantic_core import from_json

from ..sim import parse_instant
from .arguments import (
    ADVANCE,
    ALIASES,
    canonical_advance,
    canonical_op,
    check_args,
    json_type,
    known_operations,
    unknown_operation,
)

__all__ = [
    "ADVANCE",
    "ALIASES",
    "FORMAT_KEYS",
    "BadLine",
    "Event",
    "EventFormatError",
    "EventSource",
    "Fields",
    "canonical_op",
    "check_entry",
    "check_events",
    "check_item",
    "entry_fields",
    "first_bad_time",
    "instant",
    "item_fields",
    "iter_events",
    "known_operations",
    "loads",
    "read_at",
    "read_events",
    "read_lines",
]

#: Error keys of malformed lines (refusals carry the simulator's own keys).
FORMAT_KEYS = (
    "invalid_json",
    "invalid_line",
    "unknown_operation",
    "unknown_argument",
    "missing_argument",
    "invalid_argument",
    "invalid_time",
    "time_in_past",
)

#: `seq` is a served journal's line number (format 3): a replay reads the
#: line as it is, the journal's own start checks the numbers.
_LINE_KEYS = frozenset({"seq", "at", "op", "args", "note"})


@dataclass(frozen=True, slots=True)
class Event:
    """One checked line: a canonical operation with its arguments."""

    line: int
    op: str
    args: dict[str, Any]
    #: When the operation happens (aware UTC); None = at the current clock.
    at: datetime | None = None
    note: str | None = None

    def to_json(self) -> str:
        """The canonical line (journal form) for this event."""
        from ..sim import format_instant

        entry: dict[str, Any] = {}
        if self.at is not None:
            entry["at"] = format_instant(self.at)
        entry["op"] = self.op
        entry["args"] = self.args
        if self.note is not None:
            entry["note"] = self.note
        return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that cannot become an operation call; nothing of it is applied."""

    line: int
    key: str
    message: str
    #: What could be read of the line (for the timeline), when anything.
    op: str | None = None
    at: datetime | None = None
    note: str | None = None

    def error(self) -> EventFormatError:
        return EventFormatError(self.line, self.key, self.message)


#: What `replay`/`read_events` accept: a path, JSON Lines text (a str starting
#: with "{"), an open text file, or an iterable of lines / dicts / `Event`s.
EventSource = str | Path | IO[str] | Iterable[str | dict[str, Any] | Event]


class EventFormatError(ValueError):
    """A malformed line: `.line` (1-based), `.key` (one of `FORMAT_KEYS`), `.message`."""

    def __init__(self, line: int, key: str, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.key = key
        self.message = message


# -- one line ----------------------------------------------------------------


#: A checked line as the runner takes it: the fields of an `Event`
#: `(line, op, args, at, note)` in a plain tuple (a frozen dataclass costs
#: a microsecond or so to build, a tuple a tenth of it; a replay builds one a line).
Fields = tuple[int, str, dict[str, Any], datetime | None, str | None]


def check_entry(entry: Any, line: int) -> Event | BadLine:
    """Check one parsed line (a dict) and return the `Event` or the `BadLine`."""
    fields = entry_fields(entry, line)
    return fields if isinstance(fields, BadLine) else Event(*fields)


def entry_fields(entry: Any, line: int) -> Fields | BadLine:
    """`check_entry`, giving the `Event`'s fields as a tuple (see `Fields`)."""
    if not isinstance(entry, dict):
        return BadLine(line, "invalid_line", f"expected an object with at, op, args (got {json_type(entry)})")
    note = entry.get("note")
    bad_note = note is not None and not isinstance(note, str)
    if bad_note:
        note = None
    if not entry.keys() <= _LINE_KEYS:
        unknown = entry.keys() - _LINE_KEYS
        return BadLine(line, "invalid_line",
                       f"unknown keys {sorted(map(str, unknown))}; a line has at, op, args, note (and a journal's seq)",
                       note=note)
    if bad_note:
        return BadLine(line, "invalid_line", "note must be a string")
    raw_op = entry.get("op")
    op = canonical_op(raw_op) if isinstance(raw_op, str) and raw_op else None
    at: datetime | None = None
    raw_at = entry.get("at")
    if raw_at is not None:
        read = read_at(raw_at)
        if isinstance(read, str):
            return BadLine(line, "invalid_time", read, op=op, note=note)
        at = read
    if op is None:
        if not isinstance(raw_op, str) or not raw_op:
            return BadLine(line, "invalid_line", "missing op (the operation's name)", at=at, note=note)
        return BadLine(line, "unknown_operation",
                       unknown_operation(raw_op), at=at, note=note)
    args = entry.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return BadLine(line, "invalid_line", f"args must be an object (got {json_type(args)})",
                       op=op, at=at, note=note)
    problem = check_args(op, args)
    if problem is not None:
        key, message = problem
        return BadLine(line, key, f"{op}: {message}", op=op, at=at, note=note)
    if op == ADVANCE:
        args = canonical_advance(args)
        if at is None and "seconds" not in args:
            return BadLine(line, "missing_argument",
                           "advance: give args.seconds (or minutes/hours/days), or an `at` to move the clock to",
                           op=op, note=note)
    return line, op, args, at, note


def read_at(raw_at: Any) -> datetime | str:
    """A line's `at` as an aware UTC instant, or why it is not one (the
    message of the line's `invalid_time`, naming the field).

    One rule for every reader of a line's time: the runner's check of each
    line and `first_bad_time`, the command's look at every line before the
    first runs, give the same answer for the same value."""
    if not isinstance(raw_at, str):
        return f"at must be an ISO 8601 string (got {json_type(raw_at)})"
    try:
        return instant(raw_at)
    except ValueError as exc:
        reason = str(exc) if "timezone" in str(exc) else "not an ISO 8601 instant"
        return f"at {raw_at!r}: {reason}"
    except OverflowError:  # e.g. 9999-12-31T23:59:59-05:00 is past datetime.max in UTC
        return f"at {raw_at!r}: out of range"


def first_bad_time(source: EventSource) -> BadLine | None:
    """The first line whose `at` is not an instant the simulator can hold
    (unparsable, naive, or outside years 1..9999 once in UTC), as its
    `invalid_time` `BadLine`; None when every `at` reads.

    Why apart from the line-by-line check: a time that cannot be read is
    input the command refuses before anything runs (exit 2), whereas a line
    refused on its turn stops a replay that has applied the lines before it.
    Only `at` is looked at: a line that is not JSON, or whose other fields are
    wrong, is the runner's to report on its turn, as before."""
    for number, item in _numbered(source):
        if isinstance(item, Event):
            continue  # its `at` is a datetime already
        entry = item
        if isinstance(item, str):
            if not item or item.isspace():
                continue
            try:
                entry = loads(item)
            except (ValueError, RecursionError):
                continue
        if isinstance(entry, dict) and entry.get("at") is not None:
            read = read_at(entry["at"])
            if isinstance(read, str):
                return BadLine(number, "invalid_time", read)
    return None


#: The form the journal writes `at` in (UTC, `Z`, to the millisecond), and
#: any other plain UTC instant with a `Z`: read by `datetime.fromisoformat`
#: directly (see `instant`).
#: ASCII digits only: `fromisoformat` reads no other (anything else goes
#: through `parse_instant`, as before), and the ASCII pattern matches faster.
_plain_utc = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z", re.ASCII).fullmatch


def instant(text: str) -> datetime:
    """`parse_instant(text)`, faster for the journal's own form.

    Lines of a journal each carry a different `at`, so a cache does not help;
    `parse_instant` strips, rewrites the `Z` and converts to UTC, which a
    plain `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` does not need: `fromisoformat`
    reads it as the same aware UTC datetime (tzinfo `datetime.UTC`).
    Anything else, and any value `fromisoformat` refuses, goes through
    `parse_instant` (its errors are the ones reported).

    The journal's exact form (`YYYY-MM-DDTHH:MM:SS.mmmZ`) is recognised by
    its length and separators, quicker than the pattern: `fromisoformat`
    then accepts it only if every other character is an ASCII digit, that
    is only if the pattern matches too.
    """
    if len(text) == 24 and text[4:20:3] == "--T::." and text[23] == "Z" and text.isascii():
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return parse_instant(text)
    if _plain_utc(text) is not None:
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            pass
    return parse_instant(text)


def loads(text: str) -> Any:
    """`json.loads(text)`, parsed by pydantic-core's JSON reader when it can.

    `pydantic_core.from_json` reads a journal line about twice as fast as
    `json.loads` and gives the same value for any document it accepts (it
    accepts no document `json.loads` refuses: tests/replay/test_replay_fast_paths.py).
    What it refuses (bad JSON, but also lone surrogate escapes or very deep
    nesting, which `json.loads` takes) goes through `json.loads`, whose value
    or `JSONDecodeError` (message and column) is the answer."""
    try:
        return from_json(text)
    except ValueError:
        return json.loads(text)


# -- sources -------------------------------------------------------------------


def _numbered(source: EventSource) -> Iterator[tuple[int, Any]]:
    """(line number, raw line or object) for every item of the source.

    Not a generator itself: a list of lines is numbered by `enumerate`
    directly (no generator frame resumed per line)."""
    if isinstance(source, str) and source.lstrip().startswith("{"):
        source = io.StringIO(source)
    if isinstance(source, str | Path):
        return _numbered_file(source)
    if isinstance(source, io.IOBase) or hasattr(source, "readline"):
        # A file: of the sources `EventSource` admits, the `IO[str]`, whose
        # items are lines (mypy folds IO[str] into the union's Iterable, whose
        # items may also be dicts and events).
        return _numbered_text(cast(IO[str], source))
    return enumerate(source, start=1)


def _numbered_file(path: str | Path) -> Iterator[tuple[int, str]]:
    # utf-8-sig: a byte-order mark some editors write is not part of line 1
    with open(path, encoding="utf-8-sig", newline="") as handle:
        yield from _numbered_text(handle)


def _numbered_text(handle: Iterable[str]) -> Iterator[tuple[int, str]]:
    # Lines end at "\n" only: U+2028 and friends may sit raw inside JSON strings.
    for number, text in enumerate(handle, start=1):
        yield number, text.rstrip("\r\n")


def iter_events(source: EventSource) -> Iterator[Event | BadLine]:
    """Check the source line by line, yielding an `Event` or a `BadLine` for
    each non-blank line (blank lines are ignored; line numbers still count
    them, as an editor does)."""
    for number, item in _numbered(source):
        checked = check_item(number, item)
        if checked is not None:
            yield checked


def read_lines(source: EventSource) -> list[tuple[int, Any]]:
    """Every (line number, raw item) of the source, read now and checked later.

    The runner reads the whole source before applying anything (a file that
    is not UTF-8 fails before the first line is applied, as it always did),
    but checks each line only when it comes to it: the parsed lines then die
    young instead of all living until the end of the replay, which keeps the
    collector's full passes, that walk every live object, rare."""
    return list(_numbered(source))


def check_item(number: int, item: Any) -> Event | BadLine | None:
    """One raw item of a source checked: None for a blank text line."""
    if isinstance(item, Event):
        return _recheck(item)
    fields = item_fields(number, item)
    return fields if fields is None or isinstance(fields, BadLine) else Event(*fields)


def item_fields(number: int, item: Any) -> Fields | BadLine | None:
    """`check_item`, giving a checked line's fields as a tuple (see `Fields`):
    what the runner takes, with the same checks and the same `BadLine`s."""
    if isinstance(item, str):
        if not item or item.isspace():
            return None
        try:
            entry = loads(item)
        except json.JSONDecodeError as exc:
            return BadLine(number, "invalid_json", f"not valid JSON ({exc.msg} at column {exc.colno})")
        return entry_fields(entry, number)
    if isinstance(item, Event):
        checked = _recheck(item)
        if isinstance(checked, BadLine):
            return checked
        return checked.line, checked.op, checked.args, checked.at, checked.note
    return entry_fields(item, number)


def _recheck(event: Event) -> Event | BadLine:
    """An `Event` built by hand gets the checks a parsed line gets."""
    op = canonical_op(event.op)
    if op is None:
        return BadLine(event.line, "unknown_operation", unknown_operation(event.op), at=event.at,
                       note=event.note)
    if not isinstance(event.args, dict):
        return BadLine(event.line, "invalid_line", "args must be an object", op=op, at=event.at, note=event.note)
    problem = check_args(op, event.args)
    if problem is None and op == ADVANCE:
        args = canonical_advance(event.args)
        if event.at is None and "seconds" not in args:
            problem = ("missing_argument", "give args.seconds, or an `at` to move the clock to")
        elif args is not event.args or op != event.op:
            return Event(event.line, op, args, event.at, event.note)
    if problem is not None:
        return BadLine(event.line, problem[0], f"{op}: {problem[1]}", op=op, at=event.at, note=event.note)
    if op != event.op:
        return Event(event.line, op, event.args, event.at, event.note)
    return event


def read_events(source: EventSource) -> list[Event]:
    """Every event of the source, checked; raises `EventFormatError` (with
    `.line`) at the first malformed line."""
    events = []
    for item in iter_events(source):
        if isinstance(item, BadLine):
            raise item.error()
        events.append(item)
    return events


def check_events(source: EventSource) -> list[BadLine]:
    """Every malformed line of the source (empty when the file is clean).
    Static checks only: `at` against the simulator's clock is the runner's."""
    return [item for item in iter_events(source) if isinstance(item, BadLine)]
