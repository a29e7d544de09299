"""The journal's header line: a read-only operation naming the scenario and seed.

A served simulator's journal starts with a line of the replay format whose
operation is `journal`: the format version, the fingerprint of the scenario
as loaded and the seed. Replayed, it changes nothing and refuses (409
`journal_mismatch`) a journal written for another scenario or seed, so a
journal is never replayed into a state no client was ever answered from.
"""

from __future__ import annotations

import json
from typing import Any

from ..operation import Operation
from ..refusals import SimError

__all__ = ["CHECK_HEADER", "HEADER_OP", "JOURNAL_FORMAT", "READ_FORMATS", "JournalMismatch", "header_line",
           "header_problem"]

#: The journal format this promolab writes: 3 numbers every line after the
#: header (`seq`, from 1), so that a line written twice, lost or moved is
#: refused at start. Version 2 (the same, without numbers) and version 1 (no
#: header either, written before headers existed) are still replayed, and
#: a journal of theirs is continued in its own format.
JOURNAL_FORMAT = "promolab.journal/3"
#: Formats read, and whether their lines carry sequence numbers.
READ_FORMATS: dict[str, bool] = {"promolab.journal/2": False, JOURNAL_FORMAT: True}
#: The header's operation: a read-only check, so the header is a valid replay line.
HEADER_OP = "journal"


class JournalMismatch(SimError):
    """A journal header that does not fit the simulator replaying it."""

    status = 409
    key = "journal_mismatch"
    message = "Journal does not fit this simulator"


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
    if version not in READ_FORMATS:
        return (f"journal format {version!r} is not one this promolab reads ({', '.join(READ_FORMATS)}, "
                "or no header)")
    if not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(scenario, str):
        return "the header's seed must be an integer and its scenario a fingerprint string"
    if seed != sim.seed:
        return f"the journal was written with seed {seed}, this simulator has seed {sim.seed}"
    mine = sim.initial_fingerprint()
    if scenario != mine:
        return (f"the journal was written for another scenario (fingerprint {scenario}); "
                f"this simulator's scenario, as loaded, has {mine}")
    return None


def check_header(sim: Any, version: str, scenario: str, seed: int) -> None:
    """A journal's header line, replayed (`promolab replay` reads served
    journals too): changes nothing, refuses (409 `journal_mismatch`) when the
    journal was written for another scenario or seed, or in a format this
    promolab does not read."""
    problem = header_problem(sim, version, scenario, seed)
    if problem is not None:
        raise JournalMismatch(problem)


CHECK_HEADER = Operation(HEADER_OP, check_header, write=False)
