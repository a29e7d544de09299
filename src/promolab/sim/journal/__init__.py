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

from ..operations.journal_header import (
    HEADER_OP,
    JOURNAL_FORMAT,
    JournalMismatch,
    header_line,
    header_problem,
)
from .entries import apply_entry, parse_line
from .file import Journal, JournalError, encode_line, lock_journal
from .resume import Resumed, replay_journal, resume_journal
from .scan import Cut, JournalScan, scan_journal

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
