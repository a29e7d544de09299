"""Starting a served simulator from its journal: check, replay, cut, resume."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..operations.journal_header import header_line, header_problem
from ..refusals import SimError
from .entries import apply_entry
from .file import Journal, JournalError, lock_journal
from .scan import Cut, JournalScan, scan_journal

__all__ = ["Resumed", "replay_journal", "resume_journal"]


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
        journal = Journal(path, fsync=fsync, locked_fd=fd, header=header_line(sim, note=note) if created else None,
                          next_seq=scan.next_seq)
    except OSError as exc:
        raise JournalError(path, None, f"cannot write the journal ({exc.strerror or exc})") from None
    sim.record_to(journal)
    return Resumed(path, replayed, scan.header is not None, created, scan.cut)


def _truncate(fd: int, size: int, *, fsync: bool) -> None:
    """Cut the file open (and locked) as `fd` to `size` bytes."""
    os.ftruncate(fd, size)
    if fsync:
        os.fsync(fd)
