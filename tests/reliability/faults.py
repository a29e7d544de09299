"""Bugs planted in writes, for the tests of tests/reliability/test_write_undo.py.

A fault fires ONCE, in the write it is armed for, after that write changed
the state (a real bug strikes one request; the writes a rebuild replays
succeeded before and must again):

- `after`: the operation's function runs whole, then raises;
- `id:K`: the K-th id the write draws raises (the K-1 drawn before it, and
  everything they were used for, are in the state);
- `set:K`: the K-th assignment to a record's attribute is made, then raises.

Run as a script, it is `promolab` with a trigger file (the served test):
`python faults.py TRIGGER serve ...` starts `promolab serve ...` in which a
write whose operation is named in TRIGGER (one line: `<operation> <fault>`)
gets that fault, once, and the file is removed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from promolab import Simulator
from promolab.sim.ids import IdGenerator
from promolab.sim.operation import Operation
from promolab.sim.operations import OPERATIONS
from promolab.sim.records._base import Record

__all__ = ["WRITES", "InjectedBug", "count_effects", "planted"]

#: Every write operation of the catalogue.
WRITES: tuple[Operation[..., Any], ...] = tuple(op for op in OPERATIONS if op.write)


class InjectedBug(ZeroDivisionError):
    """The planted bug (an exception no operation raises on purpose)."""


class _CountingIds(IdGenerator):
    """Counts the ids drawn; raises at the `fail_at`-th (0: never)."""

    __slots__ = ("drawn", "fail_at")

    def __init__(self, ids: IdGenerator, fail_at: int) -> None:
        super().__init__(ids.seed, ids.state())
        self.drawn = 0
        self.fail_at = fail_at

    def next(self, kind: str, *, length: int = 24) -> str:
        self.drawn += 1
        if self.drawn == self.fail_at:
            raise InjectedBug(f"planted: id {self.drawn} ({kind})")
        return super().next(kind, length=length)


@contextmanager
def _counting_sets(fail_at: int) -> Iterator[list[int]]:
    """Counts record attribute assignments; the `fail_at`-th (0: never) is made, then raises."""
    count = [0]
    original = Record.__setattr__

    def counting(self: Record, name: str, value: Any) -> None:
        original(self, name, value)
        count[0] += 1
        if count[0] == fail_at:
            raise InjectedBug(f"planted: after assignment {count[0]} ({type(self).__name__}.{name})")

    Record.__setattr__ = counting  # type: ignore[method-assign]  # the planted bug itself
    try:
        yield count
    finally:
        Record.__setattr__ = original  # type: ignore[method-assign]  # put back


@contextmanager
def _after(op: Operation[..., Any]) -> Iterator[None]:
    real = op.run

    def failing(*args: Any, **kwargs: Any) -> Any:
        object.__setattr__(op, "run", real)  # once: the rebuild replays the real function
        real(*args, **kwargs)
        raise InjectedBug(f"planted: after {op.name} ran")

    object.__setattr__(op, "run", failing)  # Operation is a frozen dataclass
    try:
        yield
    finally:
        object.__setattr__(op, "run", real)


@contextmanager
def planted(sim: Simulator, op: Operation[..., Any], fault: str) -> Iterator[None]:
    """`fault` armed for the next write of `op` on `sim` (see the module doc)."""
    kind, _, number = fault.partition(":")
    if kind == "after":
        with _after(op):
            yield
    elif kind == "id":
        ids = _CountingIds(sim.ids, int(number))
        sim.ids = ids
        try:
            yield
        finally:
            if sim.ids is ids:  # not replaced by an undo: stop counting
                sim.ids = IdGenerator(ids.seed, ids.state())
    elif kind == "set":
        with _counting_sets(int(number)):
            yield
    else:  # pragma: no cover - a typo in a test
        raise ValueError(f"unknown fault {fault!r}")


def count_effects(sim: Simulator, write: Callable[[], Any]) -> tuple[int, int]:
    """(ids drawn, record assignments made) by `write` on `sim` (which it changes)."""
    ids = _CountingIds(sim.ids, 0)
    sim.ids = ids
    with _counting_sets(0) as sets:
        write()
    sim.ids = IdGenerator(ids.seed, ids.state())
    return ids.drawn, sets[0]


def _serve_with_trigger(trigger: Path, argv: list[str]) -> int:
    """`promolab ARGV`, every write operation wrapped to read `trigger` first."""
    from promolab.cli import main

    for op in WRITES:
        _wrap_for_trigger(op, trigger)
    return main(argv)


def _wrap_for_trigger(op: Operation[..., Any], trigger: Path) -> None:
    real = op.run

    def maybe_failing(sim: Simulator, /, *args: Any, **kwargs: Any) -> Any:
        try:
            name, fault = trigger.read_text(encoding="utf-8").split()
        except FileNotFoundError:
            return real(sim, *args, **kwargs)
        if name != op.name:
            return real(sim, *args, **kwargs)
        trigger.unlink()
        object.__setattr__(op, "run", real)
        try:
            with planted(sim, op, fault):
                return op.run(sim, *args, **kwargs)
        finally:
            object.__setattr__(op, "run", maybe_failing)

    object.__setattr__(op, "run", maybe_failing)


if __name__ == "__main__":
    raise SystemExit(_serve_with_trigger(Path(sys.argv[1]), sys.argv[2:]))
