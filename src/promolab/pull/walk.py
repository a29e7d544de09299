"""Walking a list endpoint page by page, as its declaration allows, and no further.

The page size is the endpoint's largest `limit`, the pages run from 1 to its
largest `page` (`models.list_params`: 100, or 99 for customers and
redemptions), and the walk stops at the first page that is short, empty, or
says no more follow (`has_more`, else the `total` reached). Each stop a
hostile target could dodge is bounded instead: a page that brings back only
objects already read (a cursor loop) is an error, so is a list that keeps
promising more past its last page, or holds more than its `total` said, or a
page longer than the `limit` asked for. A list that can be ordered is read
oldest first, so the scenario holds its objects in the order the project
made them; one met twice (a list that shifted under the walk) is kept once.

Two ways past those stops, for the history a pull brings: `until` ends a
list read newest first at the first object older than a date (the orders
list has no date filter), and a `Window` reads a list longer than its pages
reach on from the instant of the last object read (the redemptions list's
`created_at[after]`), which holds unless one instant has more objects than
the pages reach.

And one way around them, for the lists a scenario holds whole (customers,
codes): `beyond` reads a list whose first page declares more objects than
the pages reach another way (an export, `pull/exports.py`) instead of
walking on; a list that fits its pages stays on them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from ..models.endpoint import Endpoint, Param
from ..sim import format_instant
from .errors import PastReach, PullError
from .reader import Reader, Sent

__all__ = ["Window", "list_key", "walk"]


def list_key(model: type[BaseModel]) -> str:
    """The key a list answer holds its page under: what its `data_ref` names."""
    default = model.model_fields["data_ref"].default
    if not isinstance(default, str):
        raise TypeError(f"{model.__name__} has no data_ref")
    return default


def _param(endpoint: Endpoint[Any], arg: str) -> Param | None:
    return next((param for param in endpoint.query if param.arg == arg), None)


@dataclass(frozen=True, slots=True)
class Window:
    """How a list longer than its pages reach is read on: restart at page 1
    with `param` (an "at or after" filter, e.g. `created_at[after]`) set to the
    instant of the last object read (`instant_of`), objects already read
    skipped. The list must be walked oldest first for this to hold."""

    param: str
    instant_of: Callable[[Any], datetime]


def walk(reader: Reader, endpoint: Endpoint[Any], path_args: Mapping[str, str] | None = None,
         query: Sequence[tuple[str, str]] = (), *, until: Callable[[Any], bool] | None = None,
         window: Window | None = None, progress: Callable[[int, int], None] | None = None,
         beyond: Callable[[int], list[Any]] | None = None) -> list[Any]:
    """Every object of the list `endpoint` answers, in the target's order.
    `until(obj)`: the first object it holds for ends the walk (a list read
    newest first, down to a date), itself left out. `window`: read on past
    the last page. `progress(read, total)` is told after each page.
    `beyond(total)`: what the list holds when its first page's `total` is
    more than the pages reach (the first page is then all the walk reads)."""
    model = endpoint.response
    if model is None:
        raise TypeError(f"{endpoint.name} answers nothing to walk")
    order = _param(endpoint, "order")
    if order is not None and order.enum is not None and "created_at" in order.enum and not any(
            name == order.name for name, _ in query):
        query = (*query, (order.name, "created_at"))  # oldest first: the order the project made them in
    pages = _Pages(reader, endpoint, endpoint.url_path(**dict(path_args or {})), list_key(model), progress)
    pages.window = window
    pages.beyond = beyond is not None
    while True:
        start = pages.start
        asked = list(query) if start is None or window is None else [
            *(pair for pair in query if pair[0] != window.param), (window.param, format_instant(start))]
        if pages.walk(asked, until):
            return pages.items
        if beyond is not None and pages.past_reach:
            try:
                return beyond(pages.total or 0)
            except PullError as exc:
                raise PullError(f"{endpoint.name} ({pages.total:,} objects, past its pages' {pages.reach:,}): "
                                f"{exc}") from None
        if window is None:
            raise PastReach(f"{endpoint.name}: {pages.total or 0:,} objects, more than its pages reach "
                            f"({pages.last_page} pages of {pages.limit}); read {len(pages.items):,}")
        last = window.instant_of(pages.items[-1])
        if start is not None and last <= start:
            raise pages.crowded(last)
        pages.start = last



class _Pages:
    """One walk's pages: what has been read, and the checks each page passes."""

    def __init__(self, reader: Reader, endpoint: Endpoint[Any], path: str, key: str,
                 progress: Callable[[int, int], None] | None) -> None:
        self.reader, self.endpoint, self.path, self.key, self.progress = reader, endpoint, path, key, progress
        self.limit_param, self.page_param = _param(endpoint, "limit"), _param(endpoint, "page")
        self.limit = (self.limit_param.maximum or 100) if self.limit_param is not None else None
        self.last_page = (self.page_param.maximum or 1) if self.page_param is not None else 1
        if reader.limits.max_pages is not None:
            self.last_page = min(self.last_page, reader.limits.max_pages)
        self.reach = self.last_page * (self.limit or 1)
        self.seen: set[str] = set()
        self.items: list[Any] = []
        self.total: int | None = None
        #: The window being read on, and the instant the current pass restarted from (None: the first pass).
        self.window: Window | None = None
        self.start: datetime | None = None
        #: Whether a list longer than the pages reach is read another way, and whether this one is.
        self.beyond = False
        self.past_reach = False

    def walk(self, query: list[tuple[str, str]], until: Callable[[Any], bool] | None) -> bool:
        """Pages 1, 2, ... of `query`; True when the list ended, False when its pages ran out first."""
        endpoint, limit = self.endpoint, self.limit
        for page in range(1, self.last_page + 1):
            asked = list(query)
            if self.limit_param is not None:
                asked.append((self.limit_param.name, str(limit)))
            if self.page_param is not None:
                asked.append((self.page_param.name, str(page)))
            sent = Sent(endpoint, self.path, tuple(asked))
            answer = self.reader.parsed(sent, endpoint.response or BaseModel)
            data: list[Any] = getattr(answer, self.key)
            if self.total is None:
                self.total = answer.total
                if self.beyond and self.total > self.reach:
                    self.past_reach = True
                    return False
            if limit is not None and len(data) > limit:
                raise PullError(f"{endpoint.name} {sent.key}: {len(data)} objects on a page of {limit}")
            fresh = [obj for obj in data if obj.id not in self.seen]
            if data and not fresh and page > 1:
                raise self._repeated(sent, data)
            ended = until is not None and any(until(obj) for obj in fresh)
            if ended:
                fresh = fresh[:next(n for n, obj in enumerate(fresh) if until is not None and until(obj))]
            self.seen.update(obj.id for obj in fresh)
            self.items += fresh
            self._count(sent)
            more = getattr(answer, "has_more", None)
            if ended or limit is None or not data or len(data) < limit or more is False or (
                    more is None and len(self.items) >= self.total):
                return True
        return False

    def _repeated(self, sent: Sent, data: list[Any]) -> PullError:
        """A page of objects already read: a loop, unless a window read on from an instant
        finds that instant holds more objects than the pages reach (every one met again)."""
        if self.window is not None and self.start is not None and all(
                self.window.instant_of(obj) == self.start for obj in data):
            return self.crowded(self.start)
        return PullError(f"{self.endpoint.name} {sent.key}: the page repeats objects already read (a loop)")

    def crowded(self, instant: datetime) -> PullError:
        """One instant holds more objects than the pages reach: a window cannot read past it."""
        return PullError(f"{self.endpoint.name}: more than {self.reach:,} objects at {format_instant(instant)}, "
                         "more than its pages reach from one instant")

    def _count(self, sent: Sent) -> None:
        total = self.total or 0
        if len(self.items) > total:
            raise PullError(f"{self.endpoint.name}: more objects than the {total:,} its first page declared")
        if self.progress is not None:
            self.progress(len(self.items), total)
