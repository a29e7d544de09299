"""Rule logic strings (`"1 and (2 or 3)"`) evaluated over boolean masks.

Same grammar as `engine/logic_parser.py` (`and` binds tighter than `or`,
`not`, parentheses). `eval_logic` mirrors the engine's short-circuit: the
right operand of `and` / `or` is evaluated only on the rows where the left
one did not decide, and each row records its first failing leaf, which is
the reason the engine reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

__all__ = ["Node", "eval_logic", "parse_logic"]


class LogicParseError(ValueError):
    pass


_TOKEN = re.compile(r"\s*(?:(\()|(\))|([A-Za-z0-9_.\-]+))")
Node = tuple[Any, ...]


def parse_logic(text: str) -> Node:
    """`("leaf", id) | ("not", n) | ("and", [n...]) | ("or", [n...])` (grammar of engine/logic_parser.py)."""
    tokens: list[str] = []
    pos, text = 0, text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise LogicParseError(f"cannot parse logic {text!r}")
        tokens.append(m.group(0).strip())
        pos = m.end()
    at = 0

    def peek() -> str | None:
        return tokens[at] if at < len(tokens) else None

    def take() -> str:
        nonlocal at
        at += 1
        return tokens[at - 1]

    def expr() -> Node:
        parts = [term()]
        while (t := peek()) is not None and t.lower() == "or":
            take()
            parts.append(term())
        return parts[0] if len(parts) == 1 else ("or", parts)

    def term() -> Node:
        parts = [factor()]
        while (t := peek()) is not None and t.lower() == "and":
            take()
            parts.append(factor())
        return parts[0] if len(parts) == 1 else ("and", parts)

    def factor() -> Node:
        token = take()
        if token.lower() == "not":
            return ("not", factor())
        if token == "(":
            inner = expr()
            take()
            return inner
        return ("leaf", token)

    return expr()


def eval_logic(
    node: Node,
    leaves: Mapping[str, Callable[[], np.ndarray]],
    active: np.ndarray,
    reason: np.ndarray | None,
    codes: Mapping[str, int],
) -> np.ndarray:
    """Mask evaluation mirroring short-circuit `and`/`or`; records each row's
    first failing leaf (among rows where it was evaluated) into `reason`."""
    kind = node[0]
    if kind == "leaf":
        result = leaves[node[1]]()
        if reason is not None:
            fresh = active & ~result & (reason == 0)
            if fresh.any():
                reason[fresh] = codes[node[1]]
        return result
    if kind == "not":
        return ~eval_logic(node[1], leaves, active, reason, codes)
    parts = node[1]
    result = eval_logic(parts[0], leaves, active, reason, codes)
    for part in parts[1:]:
        if kind == "and":
            sub_active = active & result
            if sub_active.any():
                result = result & eval_logic(part, leaves, sub_active, reason, codes)
        else:
            sub_active = active & ~result
            if sub_active.any():
                result = result | eval_logic(part, leaves, sub_active, reason, codes)
    return result
