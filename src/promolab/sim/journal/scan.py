"""A journal's bytes read back and checked, line by line, before anything runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..operations.journal_header import HEADER_OP, READ_FORMATS
from .entries import _parse_entry
from .file import JournalError

__all__ = ["Cut", "JournalScan", "scan_journal"]


@dataclass(frozen=True, slots=True)
class Cut:
    """Bytes cut from the end of a journal at start: from byte `offset` (the
    file's new size) to the end, `size` bytes, starting at line `line`."""

    offset: int
    size: int
    line: int
    reason: str


@dataclass(slots=True)
class JournalScan:
    """A journal file read and checked line by line, nothing applied yet."""

    #: (line number, entry) of every line to replay, the header excluded.
    entries: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: The header entry, None for a journal written before headers existed.
    header: dict[str, Any] | None = None
    #: The header's line number (blank lines may come before it).
    header_at: int | None = None
    #: What a start cuts from the end (None: the file ends with a whole line).
    cut: Cut | None = None
    #: The sequence number the next line takes (None: the journal's format
    #: numbers no lines, and is continued without numbers).
    next_seq: int | None = 1


def scan_journal(data: bytes, path: str | Path = "journal") -> JournalScan:
    """Read a journal's bytes: every line must be a journal line, except the
    LAST one, which may be damaged (not UTF-8, not JSON, not a journal line)
    or incomplete (no end of line: the process died writing it, and its
    answer, which follows the line's fsync, was never sent). That line is
    reported as `cut`; a damaged line anywhere else raises `JournalError`
    (cutting it would silently drop acknowledged work after it)."""
    segments = data.split(b"\n")
    last = max((i for i, raw in enumerate(segments) if raw.strip()), default=-1)
    scan = JournalScan()
    offset = 0
    for index, raw in enumerate(segments[: last + 1]):
        number, start = index + 1, offset
        offset += len(raw) + 1
        if not raw.strip():
            continue
        incomplete = index == len(segments) - 1
        try:
            entry = _parse_entry(_text(raw, number))
        except ValueError as exc:
            if index == last:
                what = "incomplete last line (no end of line)" if incomplete else "damaged last line"
                scan.cut = Cut(start, len(data) - start, number, f"{what}: {exc}")
                return scan
            raise JournalError(path, number, f"{exc}; only a damaged LAST line is cut at start (it cannot have "
                                             "been acknowledged), damage before it needs a person: nothing "
                                             "was changed") from None
        if incomplete:
            scan.cut = Cut(start, len(data) - start, number,
                           "incomplete last line (no end of line: its answer was never sent)")
            return scan
        if entry["op"] == HEADER_OP:
            if scan.entries or scan.header is not None:
                raise JournalError(path, number, "a journal header after the first line (two journals joined?)")
            scan.header, scan.header_at = entry, number
            scan.next_seq = 1 if READ_FORMATS.get(entry["args"].get("version"), True) else None
            continue
        if not scan.entries and scan.header is None and "seq" not in entry:
            scan.next_seq = None  # format 1: no header, no numbers
        _check_seq(scan, entry, path, number)
        scan.entries.append((number, entry))
    end = data.rfind(b"\n") + 1
    if end < len(data):  # blanks after the last end of line: harmless, cut so the next line starts clean
        scan.cut = Cut(end, len(data) - end, len(segments), "blank bytes after the last end of line")
    return scan


def _check_seq(scan: JournalScan, entry: dict[str, Any], path: str | Path, number: int) -> None:
    """A whole line must carry the next sequence number (in a format that
    numbers its lines): a line written twice, one missing or two swapped
    would otherwise be replayed into a state no client was answered from.
    Unlike a torn last line this is never cut: no crash writes a whole line
    with the wrong number, so it needs a person."""
    seq, expected = entry.get("seq"), scan.next_seq
    if expected is None:
        if seq is not None:
            raise JournalError(path, number, f"a line numbered {seq} in a journal whose format numbers no lines "
                               "(lines of two formats joined?); nothing was changed")
        return
    if seq != expected:
        if seq is None:
            what = "has no sequence number"
        elif seq < expected:
            what = f"is numbered {seq}: a line written twice or out of order"
        else:
            what = f"is numbered {seq}: {'a line is' if seq == expected + 1 else 'lines are'} missing before it"
        raise JournalError(path, number, f"this line {what} (expected {expected}); a journal whose lines are "
                           "duplicated, missing or reordered is not replayed: nothing was changed")
    scan.next_seq = expected + 1


def _text(raw: bytes, number: int) -> str:
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a byte-order mark, as the replay reader allows
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
