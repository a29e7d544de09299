"""The bookkeeping every part of a scenario's build shares.

The build (`loader`) flattens a validated document into a `State` section by
section (`catalogue`, `campaigns`, `loyalty`, each a mixin of `Builder`).
What they share lives here: the state being built, the path that errors
name, the `entity` block that records an entity's first problem and lets
the build go on (so a file's every problem is reported at once), the
entities refused so far (a reference to one is not reported twice), and
ids, explicit or generated.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from ..ids import IdGenerator
from ..state import State
from .issues import ScenarioError, ScenarioIssue, validation_issues

__all__ = ["Builder"]


class _Skip(Exception):
    """An entity names one that was refused: that error is already reported,
    so this one is skipped without a second, misleading `unknown ...`."""


class Builder:
    """What a scenario's build keeps while it runs, and its helpers.

    Every entity is built in its own `entity` block: a problem refuses that
    entity (and what it contains), is recorded, and the build goes on with
    the next one, so that `build` reports every problem of the file at once.
    """

    def __init__(self, origin: str, ids: IdGenerator, now: datetime, *, reported: frozenset[str] = frozenset()) -> None:
        self.origin = origin
        self.ids = ids
        self.now = now
        self.state = State()
        self._path = ""
        #: Every code so far: a code pool of 100k must not rescan all vouchers.
        self._codes: set[str] = set()
        #: source_id -> id of the customers built so far (source ids are unique):
        #: 10,000 holders among 20,000 customers must not scan them all each.
        self._customer_by_source: dict[str, str] = {}
        #: Code terms compiled already (ids of their discount, rules and scope
        #: objects, which the state holds): a pool's codes share them.
        self._compiled_terms: set[tuple[int, int, int]] = set()
        #: Every problem found so far, in build order.
        self.issues: list[ScenarioIssue] = []
        #: (kind, id or source_id) of refused entities: references to them are skipped.
        self._refused: set[tuple[str, str]] = set()
        #: Ids the reference check (`references`) already reported as dangling:
        #: a reference to one ends its entity without a second message.
        self._reported = reported

    @contextmanager
    def at(self, path: str) -> Iterator[None]:
        """Name `path` in the errors raised inside (wire-model and engine
        errors included), which still end the enclosing entity."""
        previous = self._path
        self._path = path
        try:
            yield
        except ValidationError as exc:
            raise ScenarioError.of(self.origin, validation_issues(exc, path)) from None
        except (ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, ScenarioError):
                raise
            raise ScenarioError(self.origin, path, str(exc)) from None
        finally:
            self._path = previous

    @contextmanager
    def entity(self, path: str, kind: str = "", *refs: str | None) -> Iterator[None]:
        """Build one entity at `path`: its first problem is recorded and ends
        the block (so what it contains is not built either); the build goes
        on. `refs` (its explicit id, source_id) are then refused as `kind`."""
        try:
            with self.at(path):
                yield
        except ScenarioError as exc:
            self.issues.extend(exc.issues)
            self._refused.update((kind, ref) for ref in refs if ref is not None)
        except _Skip:
            self._refused.update((kind, ref) for ref in refs if ref is not None)

    def fail(self, problem: str, field: str | None = None) -> ScenarioError:
        path = f"{self._path}.{field}" if field else self._path
        return ScenarioError(self.origin, path, problem)

    def missing(self, kind: str, ref: str, field: str, problem: str | None = None) -> Exception:
        """The error for a reference to an unknown `kind`: `_Skip` when that
        entity was refused (already reported), else `unknown <kind> 'ref'`."""
        if (kind, ref) in self._refused or ref in self._reported:
            return _Skip()
        return self.fail(problem or f"unknown {kind} {ref!r}", field)

    def new_id(self, kind: str, explicit: str | None, table: Mapping[str, Any], field: str = "id") -> str:
        if explicit is not None:
            if explicit in table:
                raise self.fail(f"duplicate id {explicit!r}", field)
            return explicit
        while True:
            candidate = self.ids.next(kind)
            if candidate not in table:
                return candidate

    def resolve(self, kind: str, table: Mapping[str, Any], ref: str, field: str) -> str:
        if ref in table:
            return ref
        if kind == "customer" and ref in self._customer_by_source:
            return self._customer_by_source[ref]
        raise self.missing(kind, ref, field)
