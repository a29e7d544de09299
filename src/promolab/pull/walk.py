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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ..models.endpoint import Endpoint, Param
from .errors import PullError
from .reader import Reader, Sent

__all__ = ["list_key", "walk"]


def list_key(model: type[BaseModel]) -> str:
    """The key a list answer holds its page under: what its `data_ref` names."""
    default = model.model_fields["data_ref"].default
    if not isinstance(default, str):
        raise TypeError(f"{model.__name__} has no data_ref")
    return default


def _param(endpoint: Endpoint[Any], arg: str) -> Param | None:
    return next((param for param in endpoint.query if param.arg == arg), None)


def walk(reader: Reader, endpoint: Endpoint[Any], path_args: Mapping[str, str] | None = None,
         query: Sequence[tuple[str, str]] = (), *, progress: Callable[[int, int], None] | None = None) -> list[Any]:
    """Every object of the list `endpoint` answers, in the target's order.
    `progress(read, total)` is told after each page."""
    model = endpoint.response
    if model is None:
        raise TypeError(f"{endpoint.name} answers nothing to walk")
    key = list_key(model)
    path = endpoint.url_path(**dict(path_args or {}))
    limit_param, page_param = _param(endpoint, "limit"), _param(endpoint, "page")
    limit = (limit_param.maximum or 100) if limit_param is not None else None
    last_page = (page_param.maximum or 1) if page_param is not None else 1
    order = _param(endpoint, "order")
    if order is not None and order.enum is not None and "created_at" in order.enum and not any(
            name == order.name for name, _ in query):
        query = (*query, (order.name, "created_at"))  # oldest first: the order the project made them in
    seen: set[str] = set()
    items: list[Any] = []
    total: int | None = None
    for page in range(1, last_page + 1):
        asked = list(query)
        if limit_param is not None:
            asked.append((limit_param.name, str(limit)))
        if page_param is not None:
            asked.append((page_param.name, str(page)))
        sent = Sent(endpoint, path, tuple(asked))
        answer = reader.parsed(sent, model)
        data: list[Any] = getattr(answer, key)
        total = answer.total if total is None else total
        if limit is not None and len(data) > limit:
            raise PullError(f"{endpoint.name} {sent.key}: {len(data)} objects on a page of {limit}")
        fresh = [obj for obj in data if obj.id not in seen]
        if data and not fresh:
            raise PullError(f"{endpoint.name} {sent.key}: the page repeats objects already read (a loop)")
        for obj in fresh:
            seen.add(obj.id)
        items += fresh
        if len(items) > total:
            raise PullError(f"{endpoint.name}: more objects than the {total:,} its first page declared")
        if progress is not None:
            progress(len(items), total)
        more = getattr(answer, "has_more", None)
        if limit is None or not data or len(data) < limit or more is False or (more is None and len(items) >= total):
            return items
    raise PullError(f"{endpoint.name}: {total:,} objects, more than its pages reach "
                    f"({last_page} pages of {limit}); read {len(items):,}")
