"""Field paths: how a shadow report names a place in a JSON answer.

A path is the keys from the answer's root joined by dots, with list items in
brackets: `voucher.code`, `promotions[0].discount_amount`, or, where the two
answers' lists are matched by an identifying key rather than by position,
`promotions[id=promo_vip_10pct].discount.percent_off`. The error body of a
refused call is an answer like any other (`details`, `request_id`).

Patterns (the masking table's) are globs over paths: `*` is one key, `[*]`
any list item, `**` any number of keys (none included); a pattern that names
an object covers everything inside it. They are compiled to regular
expressions once, here, so the masking table and the money fields agree on
what a pattern means.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["child", "compile_pattern", "general", "item", "shape"]

_INDEX = re.compile(r"\[\d+\]")
_ANY_ITEM = re.compile(r"\[[^\]]*\]")


def child(path: str, key: str) -> str:
    """The path of `key` inside the object at `path` (the root is "")."""
    return f"{path}.{key}" if path else key


def item(path: str, label: str) -> str:
    """The path of a list item: `label` is its position or `key=value`."""
    return f"{path}[{label}]"


def general(path: str) -> str:
    """The path with every list position read as `[*]`: `items[0].amount` ->
    `items[*].amount` (what a summary groups by, what money fields list)."""
    return _INDEX.sub("[*]", path)


def shape(path: str) -> str:
    """The path with every list item read as `[*]`, however it was matched:
    `promotions[id=promo_x].discount_amount` -> `promotions[*].discount_amount`."""
    return _ANY_ITEM.sub("[*]", path)


@lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A glob over paths as a regular expression matching the path itself and
    everything inside it."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**.", i):
            out.append(r"(?:.*\.)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(r".*")
            i += 2
        elif pattern.startswith("[*]", i):
            out.append(r"\[[^\]]*\]")
            i += 3
        elif pattern[i] == "*":
            out.append(r"[^.\[]*")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"(?:[.\[].*)?", re.DOTALL)
