"""The pages a pull has read, kept beside its output so that `--resume` goes on.

Each answer the target gave is one JSON line (`{"key": ..., "body": ...}`),
appended and flushed as soon as it is read, so a pull stopped at any moment
(Ctrl-C, a crash, a 429 storm past `--max-wait`) has lost at most the page
it was reading, and synced to the disk at least once a second, so a machine
that stops loses at most a second of pages (a sync per page would cost more
than reading it); a torn last line is ignored when the file is read back. A resumed pull answers each page it already has from the file and
asks the target only for the rest, so it ends with the same scenario as an
uninterrupted one. An export is kept the same way (`exports.py`: its id
once created, its CSV once downloaded), so a resumed pull makes none twice.
The file is removed once the scenario is written.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import IO, Any

__all__ = ["StateFile", "state_path"]

#: Seconds between two fsyncs of the file (each page is flushed to the OS at once).
_SYNC_EVERY = 1.0
#: Marks the file as a pull's, so that `--resume` refuses anything else.
_FORMAT = "promolab-pull-state/1"


def state_path(out: Path) -> Path:
    """Where the pull writing `out` keeps its pages: `<out>.pull-state.jsonl` beside it."""
    return out.with_name(out.name + ".pull-state.jsonl")


class StateFile:
    """Read pages by key; record each new one durably."""

    def __init__(self, path: Path, *, resume: bool) -> None:
        self.path = path
        #: The pages an interrupted pull kept (read back on `resume`).
        self.pages: dict[str, dict[str, Any]] = {}
        #: The keys of the pages this pull recorded.
        self.written: set[str] = set()
        #: Bytes of the file up to its last whole line (appends go after it).
        self._good = 0
        if resume:
            self._read()
        elif path.exists():
            raise ValueError(f"{path} is an interrupted pull's: --resume to go on with it, or remove it")
        self._out: IO[str] | None = None
        self._synced = 0.0

    def _read(self) -> None:
        if not self.path.exists():
            raise ValueError(f"--resume: {self.path} does not exist (no interrupted pull of this --out)")
        with self.path.open("rb") as lines:
            header = lines.readline()
            if header.strip() != json.dumps({"format": _FORMAT}).encode():
                raise ValueError(f"--resume: {self.path} is not a pull's state file")
            self._good = len(header)
            for line in lines:
                try:
                    entry = json.loads(line) if line.endswith(b"\n") else None
                except ValueError:
                    entry = None
                if not (isinstance(entry, dict) and isinstance(entry.get("key"), str)
                        and isinstance(entry.get("body"), dict)):
                    break  # the line being written when the pull stopped: it and what follows are dropped
                self.pages[entry["key"]] = entry["body"]
                self._good += len(line)

    def get(self, key: str) -> dict[str, Any] | None:
        return self.pages.get(key)

    def has(self, key: str) -> bool:
        return key in self.pages or key in self.written

    def put(self, key: str, body: dict[str, Any]) -> None:
        if self._out is None:
            if self._good:
                os.truncate(self.path, self._good)  # a torn last line goes before new ones follow
                self._out = self.path.open("a", encoding="utf-8")
            else:
                self._out = self.path.open("w", encoding="utf-8")
                self._out.write(json.dumps({"format": _FORMAT}) + "\n")
        self._out.write(json.dumps({"key": key, "body": body}, separators=(",", ":")) + "\n")
        self._out.flush()  # in the OS's hands: a killed pull keeps it
        now = time.monotonic()
        if now - self._synced >= _SYNC_EVERY:  # on the disk at least once a second: a machine that stops
            os.fsync(self._out.fileno())       # loses a second of pages, which --resume reads again
            self._synced = now
        self.written.add(key)  # the body itself is not kept: only a resumed pull reads pages back

    def close(self) -> None:
        if self._out is not None:
            os.fsync(self._out.fileno())
            self._out.close()
            self._out = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
