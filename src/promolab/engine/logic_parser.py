"""A tiny, safe parser for rule logic strings such as `"1 and (2 or 3)"`.

Grammar (keywords case-insensitive, `and` binds tighter than `or`)::

    expr   := term ("or" term)*
    term   := factor ("and" factor)*
    factor := "not" factor | "(" expr ")" | RULE_ID

RULE_ID is a run of letters, digits, `_`, `-` or `.`. The result is a closure
tree evaluated with short-circuiting, so a rule is computed only when its
value is needed. No `eval`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import TypeVar

__all__ = ["LogicError", "compile_logic", "referenced_ids"]

E = TypeVar("E")
Pred = Callable[[E], bool]

_TOKEN = re.compile(r"\s*(?:(\()|(\))|([A-Za-z0-9_.\-]+))")


class LogicError(ValueError):
    pass


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise LogicError(f"unexpected character {text[pos:].strip()[:1]!r} in logic {text!r}")
        tokens.append(match.group(0).strip())
        pos = match.end()
    return tokens


def referenced_ids(text: str) -> list[str]:
    """Rule ids a logic string names, in order of appearance."""
    return [
        t for t in _tokenize(text) if t not in ("(", ")") and t.lower() not in ("and", "or", "not")
    ]


def compile_logic(text: str, rules: dict[str, Pred[E]]) -> Pred[E]:
    """Turn `text` into one predicate combining `rules` (by id)."""
    tokens = _tokenize(text)
    if not tokens:
        raise LogicError("empty logic")
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise LogicError(f"logic {text!r} ends too early")
        token = tokens[pos]
        pos += 1
        return token

    def expr() -> Pred[E]:
        parts = [term()]
        while (t := peek()) is not None and t.lower() == "or":
            take()
            parts.append(term())
        return _any(parts)

    def term() -> Pred[E]:
        parts = [factor()]
        while (t := peek()) is not None and t.lower() == "and":
            take()
            parts.append(factor())
        return _all(parts)

    def factor() -> Pred[E]:
        token = take()
        low = token.lower()
        if low == "not":
            inner = factor()
            return lambda env: not inner(env)
        if token == "(":
            inner = expr()
            if take() != ")":
                raise LogicError(f"missing ')' in logic {text!r}")
            return inner
        if token == ")" or low in ("and", "or"):
            raise LogicError(f"unexpected {token!r} in logic {text!r}")
        if token not in rules:
            raise LogicError(f"logic {text!r} names rule {token!r}, which is not defined")
        return rules[token]

    result = expr()
    if pos != len(tokens):
        raise LogicError(f"unexpected {tokens[pos]!r} in logic {text!r}")
    return result


def _all(parts: list[Pred[E]]) -> Pred[E]:
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        a, b = parts
        return lambda env: a(env) and b(env)

    def every(env: E) -> bool:
        for p in parts:  # a loop, not all(genexpr): no generator per evaluation
            if not p(env):
                return False
        return True

    return every


def _any(parts: list[Pred[E]]) -> Pred[E]:
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        a, b = parts
        return lambda env: a(env) or b(env)

    def some(env: E) -> bool:
        for p in parts:  # a loop, not any(genexpr): no generator per evaluation
            if p(env):
                return True
        return False

    return some


def and_all(ids: Collection[str]) -> str:
    """The default logic when a rule set has none: every rule, AND-ed."""
    return " and ".join(ids)
