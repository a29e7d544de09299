"""The snapshot a simulator keeps of the state it was created or restored
with, packed.

A simulator goes back to that state on `reset`, names it in a journal's
header (`initial_fingerprint`) and starts its write log from it. Kept as the
snapshot's dicts, it was the largest thing a loaded simulator held: about
1.1 KB per code of a pulled project of 100,000 codes, more than the records
themselves (`benchmarks/bench_scenario_load.py`). Packed it is ~35 B per
code: `marshal` (the snapshot is JSON-ready data, which marshal writes
exactly: big integers, infinities and text that is not valid Unicode
included, several times faster than pickle) compressed by zlib at its
fastest level. It is only ever read back by this process, so marshal's
format, private to the Python version, is no concern; it is unpacked on
the rare calls that need it, each getting its own copy.
"""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["KeptSnapshot"]


@dataclass(frozen=True, slots=True)
class KeptSnapshot:
    """A snapshot (`Simulator.snapshot()`) packed; `snapshot()` unpacks a fresh copy."""

    packed: bytes

    @classmethod
    def of(cls, snapshot: Mapping[str, Any]) -> KeptSnapshot:
        return cls(zlib.compress(marshal.dumps(dict(snapshot)), 1))

    def snapshot(self) -> dict[str, Any]:
        unpacked: dict[str, Any] = marshal.loads(zlib.decompress(self.packed))
        return unpacked
