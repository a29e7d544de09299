"""Condition operators of validation rules: one table, one function per operator.

A rule's `conditions` is `{"$op": [args...], ...}`; every operator listed must
hold (AND). Each operator is `check(value, args, now) -> bool` where `value` is
the rule's subject (a number, a string, a list for multi-value metadata, an ISO
instant, or None when absent) and `now` is the pricing instant.

Conventions (the service documents none of these):
- A missing value (None) fails every operator except `$is_not` / `$not_in`.
- A list value (multi-value metadata, e.g. `payment_mean: ["credit-card"]`)
  passes `$is`/`$in` when ANY element does and passes `$is_not`/`$not_in`
  when NO element is excluded; `$count*` count its elements.
- `$is` with several arguments means "equal to one of them", like `$in`.
- Numbers compare numerically (an int and a numeric string such as "100" are
  equal); strings compare as strings.
- `$after`/`$before` and the `$*_ago`/`$*_future` family read ISO 8601 instants
  (naive ones are taken as UTC); `n` is a number of days.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = [
    "NEGATIVE_OPERATORS",
    "OPERATORS",
    "CheckFn",
    "Predicate",
    "compile_conditions",
    "compile_predicates",
    "describe_conditions",
    "numeric_value",
]

CheckFn = Callable[[Any, Sequence[Any], datetime], bool]


def numeric_value(value: Any) -> Decimal | None:
    """The number a rule value or argument stands for, exactly: an int, a
    float (through its shortest repr) or a numeric string (surrounding space
    ignored) as a Decimal; None for anything else, booleans included. Every
    numeric comparison of the operators goes through it (and so does the
    sweep's vectorized reading of the same conditions)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str):
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            return None
    return None


def _equal(a: Any, b: Any) -> bool:
    if a == b and type(a) is type(b):
        return True
    if isinstance(a, str) and isinstance(b, str):
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    na, nb = numeric_value(a), numeric_value(b)
    if na is not None and nb is not None:
        return na == nb
    return bool(a == b)


def _instant(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _elements(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else (value,)


# -- equality / membership -------------------------------------------------------
def _is(value: Any, args: Sequence[Any], now: datetime) -> bool:
    if value is None:
        return False
    return any(_equal(v, a) for v in _elements(value) for a in args)


def _is_not(value: Any, args: Sequence[Any], now: datetime) -> bool:
    return value is None or not _is(value, args, now)


# -- ordering --------------------------------------------------------------------
def _compare(test: Callable[[Decimal, Decimal], bool]) -> CheckFn:
    def check(value: Any, args: Sequence[Any], now: datetime) -> bool:
        if not args:
            return False
        bound = numeric_value(args[0])
        if bound is None:
            return False
        values = [numeric_value(v) for v in _elements(value)] if value is not None else []
        return any(v is not None and test(v, bound) for v in values)

    return check


# -- strings ---------------------------------------------------------------------
def _strings(test: Callable[[str, str], bool]) -> CheckFn:
    def check(value: Any, args: Sequence[Any], now: datetime) -> bool:
        if value is None:
            return False
        return any(isinstance(v, str) and test(v, str(a)) for v in _elements(value) for a in args)

    return check


def _contains(value: Any, args: Sequence[Any], now: datetime) -> bool:
    if isinstance(value, str):
        return any(str(a) in value for a in args)
    if isinstance(value, list | tuple):
        return any(_equal(v, a) for v in value for a in args)
    return False


# -- counts ----------------------------------------------------------------------
def _count(test: Callable[[int, Decimal], bool]) -> CheckFn:
    def check(value: Any, args: Sequence[Any], now: datetime) -> bool:
        if not isinstance(value, list | tuple) or not args:
            return False
        bound = numeric_value(args[0])
        return bound is not None and test(len(value), bound)

    return check


# -- instants --------------------------------------------------------------------
def _instant_cmp(test: Callable[[datetime, datetime], bool]) -> CheckFn:
    def check(value: Any, args: Sequence[Any], now: datetime) -> bool:
        moment = _instant(value)
        bound = _instant(args[0]) if args else None
        return moment is not None and bound is not None and test(moment, bound)

    return check


def _days(test: Callable[[datetime, datetime, float], bool]) -> CheckFn:
    """A condition on `value` against `now` shifted by `n` days (the tests
    shift with `_shift`, which never overflows)."""
    def check(value: Any, args: Sequence[Any], now: datetime) -> bool:
        moment = _instant(value)
        n = numeric_value(args[0]) if args else None
        if moment is None or n is None:
            return False
        days = float(n)
        if math.isnan(days):
            return False
        return test(moment, now, days)

    return check


def _shift(now: datetime, days: float) -> datetime | None:
    """`now + days`, None past the instants a datetime can hold (a rule of
    10^9 days, or of a few days near year 9999): the tests below decide those
    exactly, by the side the bound is on, never with an `OverflowError`."""
    try:
        return now + timedelta(days=days)
    except OverflowError:
        return None


def _before(v: datetime, now: datetime, days: float) -> bool:
    """`v < now + days`; a bound past the last instant is after every `v`."""
    bound = _shift(now, days)
    return days > 0 if bound is None else v < bound


def _after(v: datetime, now: datetime, days: float) -> bool:
    """`v > now + days`; a bound before the first instant is before every `v`."""
    bound = _shift(now, days)
    return days < 0 if bound is None else v > bound


def _on_day(v: datetime, now: datetime, days: float) -> bool:
    """`v` on the calendar day of `now + days` (none past the calendar's ends)."""
    bound = _shift(now, days)
    return bound is not None and _same_day(v, bound)


def _same_day(a: datetime, b: datetime) -> bool:
    return a.astimezone(UTC).date() == b.astimezone(UTC).date()


OPERATORS: Mapping[str, CheckFn] = {
    "$is": _is,
    "$in": _is,
    "$is_not": _is_not,
    "$not_in": _is_not,
    "$more_than": _compare(lambda v, b: v > b),
    "$more_than_or_equal": _compare(lambda v, b: v >= b),
    "$less_than": _compare(lambda v, b: v < b),
    "$less_than_or_equal": _compare(lambda v, b: v <= b),
    "$starts_with": _strings(str.startswith),
    "$ends_with": _strings(str.endswith),
    "$contains": _contains,
    "$count": _count(lambda n, b: n == b),
    "$count_more": _count(lambda n, b: n > b),
    "$count_less": _count(lambda n, b: n < b),
    "$after": _instant_cmp(lambda v, b: v > b),
    "$before": _instant_cmp(lambda v, b: v < b),
    "$is_days_ago": _days(lambda v, now, d: _on_day(v, now, -d)),
    "$is_days_in_future": _days(lambda v, now, d: _on_day(v, now, d)),
    "$more_than_ago": _days(lambda v, now, d: _before(v, now, -d)),
    "$less_than_ago": _days(lambda v, now, d: _after(v, now, -d) and v <= now),
    "$more_than_future": _days(lambda v, now, d: _after(v, now, d)),
    "$less_than_future": _days(lambda v, now, d: now <= v and _before(v, now, d)),
}

#: Operators that pass on a missing value.
NEGATIVE_OPERATORS = frozenset({"$is_not", "$not_in"})

#: Operators whose answer depends on the pricing instant (`now`); every other
#: operator reads the value and its arguments only.
NOW_OPERATORS = frozenset(
    {"$is_days_ago", "$is_days_in_future", "$more_than_ago", "$less_than_ago",
     "$more_than_future", "$less_than_future"}
)  # fmt: skip

_WORDS = {
    "$is": "equal to",
    "$in": "one of",
    "$is_not": "different from",
    "$not_in": "none of",
    "$more_than": "more than",
    "$more_than_or_equal": "at least",
    "$less_than": "less than",
    "$less_than_or_equal": "at most",
    "$starts_with": "starting with",
    "$ends_with": "ending with",
    "$contains": "containing",
    "$count": "of count",
    "$count_more": "of count more than",
    "$count_less": "of count less than",
    "$after": "after",
    "$before": "before",
    "$is_days_ago": "exactly this many days ago:",
    "$is_days_in_future": "exactly this many days ahead:",
    "$more_than_ago": "more days ago than",
    "$less_than_ago": "fewer days ago than",
    "$more_than_future": "more days ahead than",
    "$less_than_future": "fewer days ahead than",
}


def _args(raw: Any) -> tuple[Any, ...]:
    if isinstance(raw, list | tuple):
        return tuple(raw)
    return (raw,)


def compile_conditions(
    conditions: Mapping[str, Any],
) -> tuple[tuple[CheckFn, tuple[Any, ...]], ...]:
    """Look operators up once; raises KeyError naming an unknown operator."""
    compiled = []
    for op, raw in conditions.items():
        if op not in OPERATORS:
            raise KeyError(op)
        compiled.append((OPERATORS[op], _args(raw)))
    return tuple(compiled)


Predicate = Callable[[Any, datetime], bool]

_ORDERING: Mapping[str, Callable[[Any, Any], bool]] = {
    "$more_than": operator.gt,
    "$more_than_or_equal": operator.ge,
    "$less_than": operator.lt,
    "$less_than_or_equal": operator.le,
}
_MEMBERSHIP: Mapping[str, bool] = {"$is": True, "$in": True, "$is_not": False, "$not_in": False}


def _predicate(op: str, args: tuple[Any, ...]) -> Predicate:
    """`OPERATORS[op]` bound to `args`, with fast paths for the common cases.

    Why: the generic operators convert both sides to Decimal and compare
    through `_equal` on every call, and rules run for every tier of every
    request. The fast paths only take inputs on which they give exactly the
    generic answer; anything else goes to the generic operator:
    - an ordering against a finite whole-number bound, on an `int` value: a
      plain int comparison (what Decimal(value) vs Decimal(bound) decides);
    - $is/$in/$is_not/$not_in with string arguments only, on a `str` value or a
      list of `str`: set membership (`_equal` of two str is `==`).
    """
    generic = OPERATORS[op]
    if op in _ORDERING and args:
        bound = numeric_value(args[0])
        if bound is not None and bound.is_finite() and bound == bound.to_integral_value():
            limit, test = int(bound), _ORDERING[op]

            def ordering(value: Any, now: datetime) -> bool:
                if type(value) is int:  # not bool: type() is exact
                    return test(value, limit)
                return generic(value, args, now)

            return ordering
    if op in _MEMBERSHIP and args and all(type(a) is str for a in args):
        wanted, positive = frozenset(args), _MEMBERSHIP[op]

        def membership(value: Any, now: datetime) -> bool:
            if type(value) is str:
                return (value in wanted) is positive
            if type(value) is list and all(type(v) is str for v in value):
                return wanted.isdisjoint(value) is not positive
            return generic(value, args, now)

        return membership
    return lambda value, now: generic(value, args, now)


def compile_predicates(conditions: Mapping[str, Any]) -> tuple[Predicate, ...]:
    """One `(value, now) -> bool` per operator (all must hold); raises
    KeyError naming an unknown operator, like `compile_conditions`."""
    out = []
    for op, raw in conditions.items():
        if op not in OPERATORS:
            raise KeyError(op)
        out.append(_predicate(op, _args(raw)))
    return tuple(out)


def describe_conditions(conditions: Mapping[str, Any]) -> str:
    """`more than 10000 and less than 50000` for error messages."""
    parts = []
    for op, raw in conditions.items():
        args = _args(raw)
        shown = ", ".join(str(a.get("id", a)) if isinstance(a, Mapping) else str(a) for a in args)
        parts.append(f"{_WORDS.get(op, op)} {shown}")
    return " and ".join(parts)
