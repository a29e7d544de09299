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
from pathlib import Path
from typing import Any, TextIO

__all__ = ["Journal", "encode_line"]


def encode_line(at: str, op: str, args: dict[str, Any]) -> str:
    return json.dumps({"at": at, "op": op, "args": args}, separators=(",", ":"), ensure_ascii=False)


class Journal:
    def __init__(self, target: str | Path | list[str], *, fsync: bool = True) -> None:
        self._lines: list[str] | None = target if isinstance(target, list) else None
        self._file: TextIO | None = None
        self._fsync = fsync
        if self._lines is None:
            self.path: Path | None = Path(target)  # type: ignore[arg-type]
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        else:
            self.path = None

    def record(self, at: str, op: str, args: dict[str, Any]) -> None:
        line = encode_line(at, op, args)
        if self._lines is not None:
            self._lines.append(line)
            return
        assert self._file is not None
        self._file.write(line + "\n")
        self._file.flush()
        if self._fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
