"""Query-string parameters of the interface.

`filters` arrives the way the real SDKs send it, bracketed
(`filters[promotion_id][conditions][$is]=camp_1`), or as one JSON object;
both become the same nested mapping.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..sim.errors import InvalidQueryParams

__all__ = ["query_bool", "query_filters"]

_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


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


def query_filters(query: list[tuple[str, str]]) -> dict[str, Any] | None:
    result: dict[str, Any] = {}
    for key, value in query:
        if key == "filters":
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                raise InvalidQueryParams("Query parameter filters should be a JSON object or bracketed") from None
            if not isinstance(parsed, dict):
                raise InvalidQueryParams("Query parameter filters should be an object")
            result.update(parsed)
        elif key.startswith("filters["):
            parts = _BRACKETS.findall(key[len("filters"):])
            if not parts or "".join(f"[{p}]" for p in parts) != key[len("filters"):]:
                raise InvalidQueryParams(f"Malformed filter parameter {key!r}")
            node = result
            for part in parts[:-1]:
                child = node.setdefault(part, {})
                if not isinstance(child, dict):
                    raise InvalidQueryParams(f"Conflicting filter parameter {key!r}")
                node = child
            leaf = parts[-1]
            if leaf in ("$in", "$not_in"):
                node.setdefault(leaf, []).extend(value.split(","))
            else:
                node[leaf] = value
    return result or None
