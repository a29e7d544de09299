"""The service's lists, carried out once: query checks, filters, ordering, pages, cursors.

Every list endpoint declares its query in `models.endpoints` (`limit` and
`page` with their bounds and defaults, `order` with the fields it sorts by,
its filters and cursor); a list operation declares a `Listing`: which
object field each `order` value and each filter reads, and the key its
answer holds the page under. `Listing.answer` does the rest, the same way
for every list, so no operation pages, sorts or filters by itself.

Why here and not in the HTTP face: `sim.apply(LIST_PRODUCTS, limit=0)` must
be refused exactly like the same call over HTTP (400
`invalid_query_params` naming the parameter), and the bounds the refusal
checks are the ones `/openapi.json` states, read from the same `Param`.
Query values arrive as the HTTP face passes them (text) or as a Python
caller does (an `int` for a page); both are read here.

Ordering is stable and total: objects that tie on the field keep the order
the state holds them in (the scenario's), and a descending order is the
exact reverse of the ascending one, so a walk over the pages of one order
meets every object once (docs/decisions.md, "Lists").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from ..models.endpoints import Endpoint, Param
from .clock import parse_instant
from .refusals import InvalidQueryParams

__all__ = ["Listing", "Match", "Page", "at_or_after", "at_or_before", "checked_query", "equals", "later_than"]

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)

#: The query arguments every list reads itself, not through a filter.
PAGING = frozenset({"limit", "page", "order"})
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
#: RFC 3339's date-time (what `format: date-time` means in the document),
#: and the offset without its colon (`+0000`), which the official SDK sends.
_DATE_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})")


def _refuse(param: Param, what: str, value: object) -> InvalidQueryParams:
    return InvalidQueryParams(f"Query parameter {param.name} should be {what} (got {value!r})")


def _checked(param: Param, value: object) -> object:
    """`value` as the parameter declares it, or 400 `invalid_query_params` naming it."""
    if param.type == "integer":
        if isinstance(value, str) and _INTEGER.fullmatch(value):
            number = int(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            raise _refuse(param, "an integer", value)
        if param.minimum is not None and number < param.minimum:
            raise _refuse(param, f"at least {param.minimum}", value)
        if param.maximum is not None and number > param.maximum:
            raise _refuse(param, f"at most {param.maximum}", value)
        return number
    if param.type == "array":
        if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
            raise _refuse(param, "a list of strings", value)
        return list(value)
    if param.type == "boolean":
        # A Python bool, or text as the HTTP face reads a flag: true/false (any case) or 1/0.
        if isinstance(value, bool):
            return value
        text = value.strip().lower() if isinstance(value, str) else None
        if text in ("true", "1", "false", "0"):
            return text in ("true", "1")
        raise _refuse(param, "boolean (true or false)", value)
    if not isinstance(value, str):
        raise _refuse(param, "a string", value)
    if param.enum is not None and value not in param.enum:
        raise _refuse(param, "one of " + ", ".join(param.enum), value)
    if param.format == "date-time":
        if not _DATE_TIME.fullmatch(value.upper()):
            raise _refuse(param, "a date-time such as 2026-03-06T10:00:00Z", value)
        try:
            return parse_instant(value.upper())
        except ValueError:
            raise _refuse(param, "a date-time such as 2026-03-06T10:00:00Z", value) from None
    return value


def checked_query(endpoint: Endpoint[Any], given: Mapping[str, object]) -> dict[str, Any]:
    """Each query argument of `endpoint`, checked and converted, absent ones
    at their declared default (None when it has none). An argument the
    endpoint does not declare is a caller's mistake, refused like a wrong
    keyword of any function (TypeError)."""
    declared = {param.arg: param for param in endpoint.query}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise TypeError(f"{endpoint.name}() got unexpected keyword arguments {unknown}; known: {sorted(declared)}")
    values: dict[str, Any] = {}
    for arg, param in declared.items():
        value = given.get(arg)
        values[arg] = param.default if value is None else _checked(param, value)
    return values


@dataclass(frozen=True, slots=True)
class Match(Generic[T_contra]):
    """A filter: keep an object when `test(value_of(object), given)` holds
    (contravariant: a filter of any dated record filters products)."""

    value_of: Callable[[T_contra], Any]
    test: Callable[[Any, Any], bool]


def equals(value_of: Callable[[T], Any]) -> Match[T]:
    return Match(value_of, lambda value, given: value == given)


def at_or_after(value_of: Callable[[T], datetime | None]) -> Match[T]:
    """`start_date`, `created_at[after]`: an object without the instant never matches."""
    return Match(value_of, lambda value, given: value is not None and value >= given)


def at_or_before(value_of: Callable[[T], datetime | None]) -> Match[T]:
    return Match(value_of, lambda value, given: value is not None and value <= given)


def later_than(value_of: Callable[[T], datetime | None]) -> Match[T]:
    """`starting_after`: the cursor, strictly after the instant given."""
    return Match(value_of, lambda value, given: value is not None and value > given)


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list: its objects, how many match in all, and whether more follow."""

    items: list[T]
    total: int
    has_more: bool


def _sortable(value: Any) -> tuple[int, Any]:
    # None sorts before any value (an object that never changed has no updated_at).
    return (0, 0) if value is None else (1, value)


@dataclass(frozen=True, slots=True)
class Listing(Generic[T]):
    """How one list endpoint reads its objects; checked against the endpoint
    when declared, so a query parameter without its filter (or an `order`
    value without its field) cannot be served."""

    endpoint: Endpoint[Any]
    #: The key the answer holds the page under (what `data_ref` names).
    key: str
    #: `order` field -> the object's value it sorts by.
    sort: Mapping[str, Callable[[T], Any]] = field(default_factory=dict)
    #: query argument -> the filter it sets.
    filters: Mapping[str, Match[T]] = field(default_factory=dict)
    #: The answer says whether more pages follow (`has_more`): where the document has it.
    has_more: bool = False
    #: Query arguments the operation applies itself, before the listing,
    #: because they read other state (a customer list's `segment_id`).
    prefiltered: frozenset[str] = frozenset()
    #: The query argument of a cursor in the order itself (`starting_after_id`): the page holds
    #: only objects strictly after it in the order asked (by the sort key's value, so an id that
    #: names no object of the list still places the cursor).
    cursor: str | None = None

    def __post_init__(self) -> None:
        args = {param.arg for param in self.endpoint.query}
        unread = args - PAGING - set(self.filters) - self.prefiltered - {self.cursor}
        if unread or not set(self.filters) <= args:
            raise ValueError(f"{self.endpoint.name}: filters {sorted(self.filters)} against query {sorted(args)}")
        for param in self.endpoint.query:
            if param.arg == "order" and param.enum is not None:
                missing = {value.lstrip("-") for value in param.enum} - set(self.sort)
                if missing:
                    raise ValueError(f"{self.endpoint.name}: no sort key for order {sorted(missing)}")

    def page(self, objects: Iterable[T], given: Mapping[str, object]) -> Page[T]:
        """The page `given` asks for (checked first: a bad query changes nothing and reads nothing)."""
        query = checked_query(self.endpoint, given)
        matching = list(objects)
        for arg, match in self.filters.items():
            wanted = query[arg]
            if wanted is not None:
                value_of, test = match.value_of, match.test
                matching = [obj for obj in matching if test(value_of(obj), wanted)]
        order = query.get("order")
        if order is not None:
            key = self.sort[order.lstrip("-")]
            descending = order.startswith("-")
            ranked = sorted(enumerate(matching), key=lambda pair: (_sortable(key(pair[1])), pair[0]),
                            reverse=descending)
            matching = [obj for _, obj in ranked]
            after = query.get(self.cursor) if self.cursor is not None else None
            if after is not None:
                mark = _sortable(after)
                matching = [obj for obj in matching
                            if (_sortable(key(obj)) < mark if descending else _sortable(key(obj)) > mark)]
        limit = query.get("limit")
        if limit is None:
            return Page(matching, len(matching), False)
        start = (query.get("page", 1) - 1) * limit
        return Page(matching[start:start + limit], len(matching), start + limit < len(matching))

    def answer(self, objects: Iterable[T], given: Mapping[str, object],
               render: Callable[[T], dict[str, Any]]) -> dict[str, Any]:
        """The list's wire JSON: `object: list`, `data_ref`, the page under its key, `total` (and `has_more`)."""
        page = self.page(objects, given)
        return self.envelope(page, [render(obj) for obj in page.items])

    def envelope(self, page: Page[T], rendered: list[dict[str, Any]]) -> dict[str, Any]:
        """The list's wire JSON around a page already rendered."""
        body: dict[str, Any] = {"object": "list", "data_ref": self.key, self.key: rendered, "total": page.total}
        if self.has_more:
            body["has_more"] = page.has_more
        return body
