"""The journal: every accepted write, one JSON line each, in replay format.

A line is `{"at": <simulated ISO time>, "op": <operation>, "args": {...}}`,
exactly what `promolab.replay` reads, so recording a session and replaying it
on a fresh simulator reproduces the state. With `fsync=True` each line is on
disk before the operation returns (and so before an HTTP answer is sent):
a crash loses nothing that was acknowledged.

A served simulator's journal (`promolab serve --journal`, `resume_journal`)
starts with a header line, itself a line of the replay format (the read-only
operation `journal`), naming the format version, the fingerprint of the
scenario as loaded and the seed: a restart refuses a journal written for
another scenario instead of replaying it into a state no client was ever
answered from. At start, a damaged or incomplete LAST line is cut from the
file before anything is appended (it was never acknowledged: its answer
follows its fsync); damage anywhere else refuses to start (`JournalError`).

A journal file is locked (`flock`, exclusive, non-blocking) for as long as
it is open, from before a start reads it until `record_to(None)` or the end
of the process (the kernel drops the lock of a killed process): a second
server on the same file is refused (`JournalError`) before it reads, cuts
or appends anything, so two servers never interleave their lines.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .clock import format_instant
from .operations import REGISTRY, operation
from .refusals import SimError

if sys.platform != "win32":
    import fcntl

__all__ = [
    "HEADER_OP",
    "JOURNAL_FORMAT",
    "Cut",
    "Journal",
    "JournalError",
    "JournalMismatch",
    "JournalScan",
    "Resumed",
    "apply_entry",
    "encode_line",
    "header_line",
    "header_problem",
    "lock_journal",
    "parse_line",
    "replay_journal",
    "resume_journal",
    "scan_journal",
]

#: The journal format this promolab writes. Version 1 is the same lines
#: without a header (written before headers existed); it is still replayed.
JOURNAL_FORMAT = "promolab.journal/2"
#: The header's operation: a read-only check, so the header is a valid replay line.
HEADER_OP = "journal"


class JournalError(ValueError):
    """A journal a simulator must not be started from; nothing was changed.

    `.path`, `.line` (1-based; None when the whole file is at fault) and
    `.reason`. A `ValueError`, as a damaged line always raised."""

    def __init__(self, path: str | Path, line: int | None, reason: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}")
        self.path = Path(path)
        self.line = line
        self.reason = reason


class JournalMismatch(SimError):
    """A journal header that does not fit the simulator replaying it."""

    status = 409
    key = "journal_mismatch"
    message = "Journal does not fit this simulator"


def encode_line(at: str, op: str, args: dict[str, Any]) -> str:
    return json.dumps({"at": at, "op": op, "args": args}, separators=(",", ":"), ensure_ascii=False)


class Journal:
    """Appends journal lines to a file (or a list, for `record`).

    A file is written through its descriptor, unbuffered: `os.write` of the
    whole line, then `fsync`, so nothing of a line is left in a userspace
    buffer that a later flush (at exit, say) could still write after the
    line was reported failed. A line is acknowledged only once `write`
    returned; a line cut short by a crash never was, and the next start cuts
    it (`resume_journal`).

    A file is locked while the journal is open (`lock_journal`): a journal
    on a file another `Journal` holds, in this process or another, raises
    `JournalError` and opens nothing. `close` releases it."""

    def __init__(
        self,
        target: str | Path | list[str],
        *,
        fsync: bool = True,
        header: str | None = None,
        locked_fd: int | None = None,
    ) -> None:
        """`locked_fd`: the file already open and locked (`lock_journal`) by a
        caller that read it first (`resume_journal`); the journal takes it over,
        so the lock is never let go between reading the file and appending."""
        #: The simulated instant of the last line written (None before the
        #: first): an advance that ran while other lines were journaled
        #: (a receiver writing, or advancing, from inside it) starts its own
        #: line there, so no line seems to start before the one above it.
        self.last_at: datetime | None = None
        self._lines: list[str] | None = target if isinstance(target, list) else None
        self._fd: int | None = None
        self._fsync = fsync
        if isinstance(target, list):
            self.path: Path | None = None
        else:
            self.path = Path(target)
            self._fd = locked_fd if locked_fd is not None else lock_journal(self.path, fsync=fsync)
        if header is not None:
            try:
                self.write(header, None)
            except BaseException:
                self.close()
                raise

    def record(self, at: datetime, op: str, args: dict[str, Any]) -> None:
        self.write(encode_line(format_instant(at), op, args), at)

    def write(self, line: str, at: datetime | None) -> None:
        """Append one encoded line, durably (with `fsync`) before returning;
        `at` becomes `last_at` (None keeps it)."""
        if self._lines is not None:
            self._lines.append(line)
        else:
            if self._fd is None:  # a ValueError, as writing to a closed file always was
                raise ValueError("the journal is closed")
            data = (line + "\n").encode("utf-8")
            while data:
                written = os.write(self._fd, data)
                data = data[written:]
            if self._fsync:
                os.fsync(self._fd)
        if at is not None:
            self.last_at = at

    def close(self) -> None:
        """Close the file, which releases its lock."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        # a journal dropped without `close` (its simulator let go of) must
        # not keep its file locked for the rest of the process
        if getattr(self, "_fd", None) is not None:
            self.close()


# -- the lock: one writer per journal file --------------------------------------------------------


def lock_journal(path: str | Path, *, fsync: bool = True) -> int:
    """Open `path` for appending (creating it) and lock it: an exclusive
    `flock`, not waited for. Returns the descriptor, which holds the lock
    until it is closed (or its process ends: a SIGKILL frees it too).

    Raises `JournalError` when another open journal holds the file (another
    `promolab serve --journal` on it, or another `Journal` of this process:
    a `flock` belongs to the open file, not to the process) or the lock
    cannot be taken, `OSError` when the file cannot be opened; the file's
    content is not touched. Without `flock` (Windows) the file is opened
    unlocked."""
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    if sys.platform != "win32":
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalError(path, None, "in use: another promolab serve (or another open journal) holds its "
                                           "lock; run one server per journal file; nothing was changed") from None
        except OSError as exc:
            os.close(fd)
            raise JournalError(path, None, f"cannot lock the journal ({exc.strerror or exc}); "
                                           "nothing was changed") from None
    if created and fsync:
        _fsync_directory(path)
    return fd


def _fsync_directory(path: Path) -> None:
    """Make a new file's directory entry durable (a crash of the machine
    could otherwise lose the whole new journal). Best effort: not every
    platform opens directories."""
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def parse_line(line: str, number: int) -> dict[str, Any]:
    """One journal/replay line -> {"at", "op", "args"}; `ValueError` names the line
    (whatever is wrong with it, a wrong type included: callers catch that one)."""
    try:
        return _parse_entry(line)
    except ValueError as exc:
        raise ValueError(f"line {number}: {exc}") from None


def _parse_entry(text: str) -> dict[str, Any]:
    """`parse_line` without the line number: the `ValueError` says what is wrong."""
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not a journal line (nested too deeply)") from None
    if not isinstance(entry, dict):
        raise ValueError("expected an object with at, op, args")  # noqa: TRY004
    unknown = set(entry) - {"at", "op", "args", "note"}
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}")
    if not isinstance(entry.get("op"), str):
        raise ValueError("missing op")  # noqa: TRY004
    if "args" in entry and not isinstance(entry["args"], dict):
        raise ValueError("args must be an object")
    if "at" in entry and not isinstance(entry["at"], str):
        raise ValueError("at must be an ISO 8601 string")
    entry.setdefault("args", {})
    return entry


def _instant(text: str) -> datetime:
    from .clock import parse_instant

    try:
        return parse_instant(text)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"at {text!r} is not an ISO 8601 instant with a timezone ({exc})") from None


#: An operation's function -> its signature: arguments are bound before a
#: line runs, so a line naming arguments its operation does not take is
#: reported as such, not as whatever `TypeError` came out of the call.
_SIGNATURES: dict[Callable[..., Any], Any] = {}


def _check_arguments(sim: Any, op: str, args: dict[str, Any]) -> None:
    import inspect

    func = REGISTRY[op].func
    signature = _SIGNATURES.get(func)
    if signature is None:
        signature = _SIGNATURES[func] = inspect.signature(func)
    try:
        signature.bind(sim, **args)
    except TypeError as exc:
        raise ValueError(f"args do not fit {op}: {exc}") from None


def apply_entry(sim: Any, entry: dict[str, Any]) -> Any:
    """Apply one entry: move the clock to its `at` (running due work on the
    way, as the original session did), then run the operation.

    An entry that cannot run (an unknown operation, an `at` that is not an
    instant, arguments its operation does not take, a bad advance) raises
    `ValueError` before anything of it is applied; the simulator's refusals
    (`SimError`) pass through."""
    from datetime import timedelta

    op = entry["op"]
    args = entry["args"]
    if op == "advance":
        seconds = args.get("seconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not 0 <= seconds < float("inf"):
            raise ValueError("advance needs args.seconds >= 0")
    elif op in REGISTRY:
        _check_arguments(sim, op, args)
    else:
        raise ValueError(f"unknown operation {op!r}")
    at = _instant(entry["at"]) if "at" in entry else None
    if at is not None and at > sim.now:
        sim.advance(at - sim.now)
    if op == "advance":
        # The clock may already stand at this line's `at` (which is after the
        # advance); only the remainder is still to go. Advance even by zero:
        # an `advance(0)` runs work due now (a purchase with no delay), and a
        # restart from the journal must run it too.
        target = at if at is not None else sim.now + timedelta(seconds=seconds)
        sim.advance(max(target - sim.now, timedelta(0)))
        return None
    return sim.apply(op, **args)


# -- the header ------------------------------------------------------------------------------------


def header_line(sim: Any, *, note: str | None = None) -> str:
    """The first line of a new served journal: the format version, the
    fingerprint of the simulator's scenario as loaded, and its seed."""
    entry: dict[str, Any] = {
        "op": HEADER_OP,
        "args": {"version": JOURNAL_FORMAT, "scenario": sim.initial_fingerprint(), "seed": sim.seed},
    }
    if note is not None:
        entry["note"] = note
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


def header_problem(sim: Any, version: Any, scenario: Any, seed: Any) -> str | None:
    """Why a journal with this header must not be replayed on `sim` (None: it may)."""
    if version != JOURNAL_FORMAT:
        return f"journal format {version!r} is not one this promolab reads ({JOURNAL_FORMAT}, or no header)"
    if not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(scenario, str):
        return "the header's seed must be an integer and its scenario a fingerprint string"
    if seed != sim.seed:
        return f"the journal was written with seed {seed}, this simulator has seed {sim.seed}"
    mine = sim.initial_fingerprint()
    if scenario != mine:
        return (f"the journal was written for another scenario (fingerprint {scenario}); "
                f"this simulator's scenario, as loaded, has {mine}")
    return None


@operation(HEADER_OP, write=False)
def check_header(sim: Any, version: str, scenario: str, seed: int) -> None:
    """A journal's header line, replayed (`promolab replay` reads served
    journals too): changes nothing, refuses (409 `journal_mismatch`) when the
    journal was written for another scenario or seed, or in a format this
    promolab does not read."""
    problem = header_problem(sim, version, scenario, seed)
    if problem is not None:
        raise JournalMismatch(problem)


# -- reading a journal back ------------------------------------------------------------------------


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
            continue
        scan.entries.append((number, entry))
    end = data.rfind(b"\n") + 1
    if end < len(data):  # blanks after the last end of line: harmless, cut so the next line starts clean
        scan.cut = Cut(end, len(data) - end, len(segments), "blank bytes after the last end of line")
    return scan


def _text(raw: bytes, number: int) -> str:
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a byte-order mark, as the replay reader allows
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None


def _check_scan_header(sim: Any, scan: JournalScan, path: Path) -> None:
    if scan.header is None:
        return
    args = scan.header["args"]
    problem = header_problem(sim, args.get("version"), args.get("scenario"), args.get("seed"))
    if problem is not None:
        written_by = scan.header.get("note")
        suffix = f" (header note: {written_by})" if isinstance(written_by, str) else ""
        raise JournalError(path, scan.header_at, f"{problem}{suffix}; start with the scenario and seed "
                                                 "the journal was written with, or another journal")


def _replay_entries(sim: Any, scan: JournalScan, path: Path) -> int:
    """Apply the scanned entries; a line that fails names itself in a `JournalError`."""
    count = 0
    for number, entry in scan.entries:
        op = entry["op"]
        try:
            apply_entry(sim, entry)
        except SimError as exc:
            raise JournalError(path, number, f"{op} refused on replay ({exc.status} {exc.key}: {exc.details}); "
                                             "it was accepted when it was journaled, so the journal does not "
                                             "belong to this scenario or was edited") from exc
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise JournalError(path, number, str(exc) if isinstance(exc, ValueError) else
                               f"{op} failed on replay ({type(exc).__name__}: {exc})") from exc
        except Exception as exc:  # a bug in an operation: still the line and the reason, never a bare trace
            raise JournalError(path, number, f"{op} failed on replay ({type(exc).__name__}: {exc}); "
                                             "this is a bug in promolab") from exc
        count += 1
    return count


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise JournalError(path, None, f"cannot read the journal ({exc.strerror or exc})") from None


def replay_journal(sim: Any, path: str | Path) -> int:
    """Re-apply a journal written by `Journal` (server restart after a crash);
    returns the number of lines applied.

    A damaged or incomplete last line (the process died mid-write, before
    the answer was sent) is skipped: it was never acknowledged. Any other
    bad line, a header for another scenario or seed, or a line the simulator
    cannot apply raises `JournalError` naming the line, because silently
    skipping acknowledged work is worse than not starting. The file is not
    changed (`resume_journal` also cuts the damaged tail)."""
    path = Path(path)
    scan = scan_journal(_read(path), path)
    _check_scan_header(sim, scan, path)
    return _replay_entries(sim, scan, path)


@dataclass(frozen=True, slots=True)
class Resumed:
    """What `resume_journal` did."""

    path: Path
    #: Lines replayed (the header excluded).
    replayed: int
    #: The journal has a header (False: written before headers; replayed unchecked).
    header: bool
    #: A header was written: the journal was new or empty.
    created: bool
    #: What was cut from the end, if anything.
    cut: Cut | None

    def messages(self) -> list[tuple[str, str]]:
        """(level, text) lines for the operator: "warning" for a cut tail and
        a journal without header, "info" for the rest."""
        out: list[tuple[str, str]] = []
        if self.cut is not None:
            out.append(("warning", (f"journal {self.path}: cut {self.cut.size} bytes at byte offset "
                                    f"{self.cut.offset} (line {self.cut.line}: {self.cut.reason})")))
        if not self.header and not self.created:
            out.append(("warning", (f"journal {self.path} has no header (written by an earlier promolab): "
                                    "replayed without checking it belongs to this scenario and seed")))
        if self.created:
            out.append(("info", f"journal {self.path}: new, header written"))
        else:
            out.append(("info", f"journal {self.path}: replayed {self.replayed} lines"))
        return out


def resume_journal(sim: Any, path: str | Path, *, fsync: bool = True, note: str | None = None) -> Resumed:
    """Start (or restart) journaling a served simulator to `path`.

    In order, nothing of the file changed until the replay succeeded:
    read and check every line (`scan_journal`), check the header against
    `sim` (a journal without one, from an earlier promolab, is accepted),
    replay the lines, cut the damaged or incomplete last line (truncate to
    the end of the last whole line, fsynced) so nothing is ever appended to
    a fragment, write a header when the journal is new or empty, and record
    every further write with `fsync`. Raises `JournalError` (line and
    reason) when the journal must not be started from.

    Before all of it the file is locked (`lock_journal`; a journal that
    does not exist is created empty): a journal another server holds is
    refused before it is read. The locked file passes to the simulator's
    `Journal`, which holds it until `record_to(None)`; a start that fails
    releases it."""
    path = Path(path)
    try:
        fd = lock_journal(path, fsync=fsync)
    except OSError as exc:
        raise JournalError(path, None, f"cannot open the journal ({exc.strerror or exc})") from None
    try:
        scan = scan_journal(_read(path), path)
        _check_scan_header(sim, scan, path)
        replayed = _replay_entries(sim, scan, path)
        created = scan.header is None and not scan.entries
        if scan.cut is not None:
            _truncate(fd, scan.cut.offset, fsync=fsync)
    except OSError as exc:
        os.close(fd)
        raise JournalError(path, None, f"cannot write the journal ({exc.strerror or exc})") from None
    except BaseException:
        os.close(fd)
        raise
    try:  # the journal owns the descriptor from here on, and closes it if the header fails
        journal = Journal(path, fsync=fsync, locked_fd=fd, header=header_line(sim, note=note) if created else None)
    except OSError as exc:
        raise JournalError(path, None, f"cannot write the journal ({exc.strerror or exc})") from None
    sim.record_to(journal)
    return Resumed(path, replayed, scan.header is not None, created, scan.cut)


def _truncate(fd: int, size: int, *, fsync: bool) -> None:
    """Cut the file open (and locked) as `fd` to `size` bytes."""
    os.ftruncate(fd, size)
    if fsync:
        os.fsync(fd)
