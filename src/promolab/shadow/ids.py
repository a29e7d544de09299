"""Ids created on both sides, paired so a script runs on both.

The real service and the simulator each generate their own ids (a
publication's `pub_...`, a voucher's code, a transaction's `lctx_...`, a
customer created by her first event). A later line that names such an id
(a top-up of the code a publication gave) must name the real one to the real
service and the simulator's to the simulator, and an answer naming it must
compare equal.

`IdMap` pairs them by where they appear: walking the two answers of one line
side by side, lists by position (creation order within the request), an
identifying field (`id`, `code`, `..._id`, `..._ids`: what names an object,
`source_id` included) whose values differ and that neither side has shown
before was created by this request on both sides: the two values are paired.
A value seen before (in an earlier answer, or written in the script) that
now differs is a real difference, reported, not paired.

Script values are taken as the simulator's ids or the real service's: a
value known on one side is rewritten to its partner for the other, so a
script recorded on either (a journal of the simulator, a log of the real
service) runs on both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

__all__ = ["IdMap", "is_id_key", "strings_in"]

#: What an id looks like inside a text (a URL, an error's details).
_TOKEN = re.compile(r"[A-Za-z0-9_\-]+")


def is_id_key(key: str) -> bool:
    """Does a field of this name hold an identifier (or a list of them)?"""
    return key in ("id", "code") or key.endswith(("_id", "_ids", "_code"))


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from strings_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from strings_in(inner)


class IdMap:
    """Pairs of ids, simulator <-> real, and what each side has shown so far."""

    def __init__(self) -> None:
        self.sim_to_real: dict[str, str] = {}
        self.real_to_sim: dict[str, str] = {}
        self._seen_real: set[str] = set()
        self._seen_sim: set[str] = set()

    def __len__(self) -> int:
        return len(self.sim_to_real)

    def pairs(self) -> list[tuple[str, str]]:
        """(simulator id, real id), in the order they were paired."""
        return list(self.sim_to_real.items())

    # -- requests ------------------------------------------------------------------
    def for_real(self, value: Any) -> Any:
        """A script value as the real service must see it."""
        return _rewrite(value, self.sim_to_real)

    def for_sim(self, value: Any) -> Any:
        """A script value as the simulator must see it."""
        return _rewrite(value, self.real_to_sim)

    def note_script(self, args: Any) -> None:
        """Strings written in a line are known on both sides: an answer that
        gives one back differently differs, it is not a new pair."""
        for text in strings_in(args):
            self._seen_real.add(text)
            self._seen_sim.add(text)

    # -- answers -------------------------------------------------------------------
    def learn(self, real: str, sim: str) -> None:
        """An identifying field of the same place in both answers."""
        if real == sim or self.sim_to_real.get(sim) == real:
            return
        if real in self._seen_real or sim in self._seen_sim:
            return
        if sim in self.sim_to_real or real in self.real_to_sim:
            return
        self.sim_to_real[sim] = real
        self.real_to_sim[real] = sim

    def note_answers(self, real: Any, sim: Any) -> None:
        """After a line: everything both answers showed is now known."""
        self._seen_real.update(strings_in(real))
        self._seen_sim.update(strings_in(sim))

    def as_real(self, text: str) -> str:
        """A simulator string with its paired ids written as the real ones
        (the whole value, or ids inside a text: a URL, a message)."""
        whole = self.sim_to_real.get(text)
        if whole is not None:
            return whole
        if not self.sim_to_real:
            return text
        return _TOKEN.sub(lambda m: self.sim_to_real.get(m.group(0), m.group(0)), text)


def _rewrite(value: Any, mapping: dict[str, str]) -> Any:
    if not mapping:
        return value
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {k: _rewrite(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, mapping) for v in value]
    return value
