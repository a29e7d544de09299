"""Query-string parameters of the interface.

`filters` arrives the way the real SDKs send it, bracketed
(`filters[promotion_id][conditions][$is]=camp_1`), or as one JSON object;
both become the same nested mapping, nested at most `MAX_JSON_DEPTH` deep
either way (the JSON is read by the same strict reader as bodies).

A query string longer than `MAX_QUERY_BYTES` is refused before it is split:
what a request may make the simulator hold and walk stays bounded on every
way in (a server bounds the request line too, the in-process transports do
not).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from ..sim import InvalidQueryParams
from .messages import MAX_JSON_DEPTH, JsonError, decode_json

__all__ = [
    "MAX_QUERY_BYTES", "MAX_QUERY_STRING", "parse_query", "query_bool", "query_filters", "query_string", "query_strings",
]

#: Longest query string read (what common servers allow for a request line).
MAX_QUERY_BYTES = 8192

_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


def parse_query(query_string: str) -> list[tuple[str, str]]:
    """The (name, value) pairs of a query string, blank values kept;
    400 `invalid_query_params` past `MAX_QUERY_BYTES`."""
    if len(query_string) > MAX_QUERY_BYTES:
        raise InvalidQueryParams(f"The query string is longer than {MAX_QUERY_BYTES} characters")
    return parse_qsl(query_string, keep_blank_values=True)


def query_bool(query: list[tuple[str, str]], name: str) -> bool:
    values = [v for k, v in query if k == name]
    if not values:
        return False
    # `true`/`false` (any case) or `1`/`0`, as the served document says; an
    # empty value (`?join_once=`) is refused like `maybe`, not read as false.
    value = values[-1].strip().lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise InvalidQueryParams(f"Query parameter {name} should be boolean (true or false), got {values[-1]!r}")


#: The longest string query parameter read (a reason, a tracking id).
MAX_QUERY_STRING = 1000


def query_string(query: list[tuple[str, str]], name: str) -> str | None:
    """The last value of a string parameter (None when absent); 400
    `invalid_query_params` past `MAX_QUERY_STRING` characters."""
    values = [v for k, v in query if k == name]
    if not values:
        return None
    if len(values[-1]) > MAX_QUERY_STRING:
        raise InvalidQueryParams(f"Query parameter {name} is longer than {MAX_QUERY_STRING} characters")
    return values[-1]


def query_strings(query: list[tuple[str, str]], name: str) -> list[str] | None:
    """Every value of a repeated parameter (`ids=a&ids=b`), in order (None when absent); each
    bounded like a string parameter's."""
    values = [v for k, v in query if k == name]
    if not values:
        return None
    if any(len(value) > MAX_QUERY_STRING for value in values):
        raise InvalidQueryParams(f"Query parameter {name} has a value longer than {MAX_QUERY_STRING} characters")
    return values


def query_filters(query: list[tuple[str, str]], name: str = "filters") -> dict[str, Any] | None:
    """A deep-object parameter (`filters`, a campaign list's `access_settings`), JSON or bracketed."""
    result: dict[str, Any] = {}
    for key, value in query:
        if key == name:
            try:
                parsed = decode_json(value)
            except JsonError as exc:
                raise InvalidQueryParams(
                    f"Query parameter {name} should be a JSON object or bracketed: {exc}"
                ) from None
            if not isinstance(parsed, dict):
                raise InvalidQueryParams(f"Query parameter {name} should be an object")
            result.update(parsed)
        elif key.startswith(name + "["):
            parts = _BRACKETS.findall(key[len(name):])
            if not parts or "".join(f"[{p}]" for p in parts) != key[len(name):]:
                raise InvalidQueryParams(f"Malformed filter parameter {key[:60]!r}")
            if len(parts) >= MAX_JSON_DEPTH:  # one object per bracket, plus the list of an `$in`
                raise InvalidQueryParams(f"Filter parameter nested deeper than {MAX_JSON_DEPTH} levels")
            node = result
            for part in parts[:-1]:
                child = node.setdefault(part, {})
                if not isinstance(child, dict):
                    raise InvalidQueryParams(f"Conflicting filter parameter {key[:60]!r}")
                node = child
            leaf = parts[-1]
            if leaf in ("$in", "$not_in"):
                node.setdefault(leaf, []).extend(value.split(","))
            else:
                node[leaf] = value
    return result or None
