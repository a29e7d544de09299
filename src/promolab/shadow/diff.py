"""Comparing the two answers of one line, field by field.

The real answer is what is expected, the simulator's what we got. Every
difference is a `Difference` at a field path (`field_paths`), of a kind:

- `status`: the two statuses differ (the bodies are then not compared: a
  refusal and a success have nothing field by field in common);
- `missing`: the real answer has the field, the simulator's does not;
- `extra`: the simulator's answer has a field the real one does not;
- `type`: both have it, as different JSON types (null, boolean, number,
  string, array, object);
- `value`: same type, different value.

Before comparing, ids are paired (`IdMap.learn`) walking the two answers with
lists by position: creation order within the request. The comparison then
matches list items by an identifying key where every item has a distinct one
(`id`, `source_id`, `code`, `product_id`: a tier missing from one side is one
`missing` row, not a shift of every tier after it), else by position, and
reads the simulator's strings with its paired ids written as the real ones.
Masked fields (`masking`) are compared for presence and type only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..replay.arguments import json_type
from .field_paths import child, item, shape
from .ids import IdMap, is_id_key
from .masking import Masking

__all__ = ["KINDS", "Difference", "compare_answers", "learn_ids"]

Kind = Literal["status", "missing", "extra", "type", "value"]
#: The kinds of difference, in the order a report lists them.
KINDS: tuple[Kind, ...] = ("status", "missing", "extra", "type", "value")
#: List keys that identify an item, tried in this order.
_ITEM_KEYS = ("id", "source_id", "code", "product_id")


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT = _Absent()


@dataclass(frozen=True, slots=True)
class Difference:
    """One field of one line where the simulator differs from the real service."""

    path: str
    kind: Kind
    #: The real side's value (None when `missing` is on its side: `extra`).
    expected: Any
    #: The simulator's value (None for `missing`).
    got: Any
    #: The field is an amount of money (the response model types it `Money`).
    money: bool = False


def learn_ids(op: str, real: Any, sim: Any, ids: IdMap, masking: Masking, path: str = "",
              id_field: bool = False) -> None:
    """Pair the ids both answers hold at the same place, lists by position."""
    if path and masking.mask_for(op, path) is not None:
        return
    if isinstance(real, dict) and isinstance(sim, dict):
        for key, value in real.items():
            if key in sim:
                at = child(path, key)
                learn_ids(op, value, sim[key], ids, masking, at, is_id_key(key, at))
    elif isinstance(real, list) and isinstance(sim, list):
        for index, (r, s) in enumerate(zip(real, sim, strict=False)):
            learn_ids(op, r, s, ids, masking, item(path, str(index)), id_field)
    elif id_field and isinstance(real, str) and isinstance(sim, str):
        ids.learn(real, sim)


def compare_answers(op: str, real: Any, sim: Any, ids: IdMap, masking: Masking,
                    money: frozenset[str] = frozenset()) -> list[Difference]:
    """Every difference between two bodies (`learn_ids` first)."""
    out: list[Difference] = []
    _Comparison(op, ids, masking, money, out).compare("", real, sim)
    return out


@dataclass
class _Comparison:
    op: str
    ids: IdMap
    masking: Masking
    money: frozenset[str]
    out: list[Difference]

    def add(self, path: str, kind: Kind, expected: Any, got: Any) -> None:
        self.out.append(Difference(path, kind, expected, got, shape(path) in self.money))

    def compare(self, path: str, real: Any, sim: Any) -> None:
        if sim is _ABSENT:
            self.add(path, "missing", real, None)
            return
        if real is _ABSENT:
            self.add(path, "extra", None, sim)
            return
        if json_type(real) != json_type(sim):  # JSON's types: an int and a float are both numbers
            self.add(path, "type", real, sim)
            return
        if path and self.masking.mask_for(self.op, path) is not None:
            return
        if isinstance(real, dict):
            # keys may be ids too (an order's `redemptions` by redemption id): the simulator's as the real ones
            sim = {self.ids.as_real(k): v for k, v in sim.items()}
            for key in [*real, *(k for k in sim if k not in real)]:
                self.compare(child(path, key), real.get(key, _ABSENT), sim.get(key, _ABSENT))
        elif isinstance(real, list):
            for label, r, s in self._aligned(real, sim):
                self.compare(item(path, label), r, s)
        elif isinstance(real, str):
            if self.ids.as_real(sim) != real:
                self.add(path, "value", real, sim)
        elif real != sim:
            self.add(path, "value", real, sim)

    def _aligned(self, real: list[Any], sim: list[Any]) -> list[tuple[str, Any, Any]]:
        key = _item_key(real, sim)
        if key is None:
            return [(str(i), real[i] if i < len(real) else _ABSENT, sim[i] if i < len(sim) else _ABSENT)
                    for i in range(max(len(real), len(sim)))]
        by_key = {self.ids.as_real(s[key]): s for s in sim}
        pairs = [(f"{key}={r[key]}", r, by_key.pop(r[key], _ABSENT)) for r in real]
        pairs.extend((f"{key}={k}", _ABSENT, s) for k, s in by_key.items())
        return pairs


def _item_key(real: list[Any], sim: list[Any]) -> str | None:
    """The first key every item of both lists has, a distinct string in each."""
    items = [*real, *sim]
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    for key in _ITEM_KEYS:
        if all(isinstance(i.get(key), str) for i in items) and all(
            len({i[key] for i in side}) == len(side) for side in (real, sim)
        ):
            return key
    return None
