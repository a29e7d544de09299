"""The journal file: accepted writes appended one line each, fsynced, locked.

See the package's docstring for the format and the guarantees.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from ..clock import format_instant

if sys.platform != "win32":
    import fcntl

__all__ = ["Journal", "JournalError", "encode_line", "lock_journal"]


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


def encode_line(at: str, op: str, args: dict[str, Any], seq: int | None = None) -> str:
    """One journal line; `seq`, when given, first (format 3 numbers its lines)."""
    entry: dict[str, Any] = {"at": at, "op": op, "args": args} if seq is None else {
        "seq": seq, "at": at, "op": op, "args": args}
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


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
        next_seq: int | None = None,
    ) -> None:
        """`locked_fd`: the file already open and locked (`lock_journal`) by a
        caller that read it first (`resume_journal`); the journal takes it over,
        so the lock is never let go between reading the file and appending.

        `next_seq`: the sequence number of the next line, for a journal that
        goes on with a numbered one (`resume_journal`). A journal with a
        `header` (format 3) numbers every line after it from 1, so that a
        line written twice, lost or moved is refused at start; one without
        (a list, `record_to(path)`: format 1) or going on with an earlier
        format writes lines without numbers, as that format did."""
        self.next_seq = next_seq if next_seq is not None else (1 if header is not None else None)
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
                self._append(header)
            except BaseException:
                self.close()
                raise

    def record(self, at: datetime, op: str, args: dict[str, Any]) -> str:
        """Encode and `write` one line; returns it (the simulator's write log keeps it too)."""
        line = self.encode(format_instant(at), op, args)
        self.write(line, at)
        return line

    def encode(self, at: str, op: str, args: dict[str, Any]) -> str:
        """The next line, numbered (`write` it next: the number is taken by
        the write, so a line encoded and not written takes none)."""
        return encode_line(at, op, args, self.next_seq)

    def write(self, line: str, at: datetime | None) -> None:
        """Append one line from `encode`, durably (with `fsync`) before
        returning; `at` becomes `last_at` (None keeps it)."""
        self._append(line)
        if self.next_seq is not None:
            self.next_seq += 1
        if at is not None:
            self.last_at = at

    def _append(self, line: str) -> None:
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
