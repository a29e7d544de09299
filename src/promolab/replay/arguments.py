"""What an operation accepts: names (with aliases) and argument checks.

The table of operations (`promolab.sim.operations.OPERATIONS`) lists them all;
each operation's signature is the list of its arguments. A line is checked
against both before it is applied: argument names (unknown, missing) and the
JSON types the signature's annotations declare (`str`, `bool`, `int`,
`float`, `dict[...]`, `list[...]`, `None` and unions of them; anything else,
e.g. `Any`, is left to the operation, which refuses a bad value with 400
before changing anything). `advance` is not an operation: the runner moves
the clock itself; its arguments are defined here.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any

from ..sim import BY_NAME

__all__ = [
    "ADVANCE",
    "ADVANCE_UNITS",
    "ALIASES",
    "MAX_ADVANCE_SECONDS",
    "canonical_advance",
    "canonical_op",
    "check_args",
    "json_type",
    "known_operations",
    "unknown_operation",
]

#: The clock is not an operation: the runner moves it itself.
ADVANCE = "advance"

#: Friendly names accepted in files, normalised to the operations' names.
#: Names are also matched case-insensitively, with `-` and spaces read as `_`.
ALIASES: dict[str, str] = {
    "custom_event": "track_event",
    "event": "track_event",
    "track": "track_event",
    "purchase": "purchase_reward",
    "buy_reward": "purchase_reward",
    "add_balance": "add_gift_balance",
    "gift_balance": "add_gift_balance",
    "clock": ADVANCE,
    "wait": ADVANCE,
    "validate_promotions": "validate",
    "validation": "validate",
    "publication": "publish",
}

#: Units an `advance` line may use, in seconds.
ADVANCE_UNITS = {"seconds": 1.0, "minutes": 60.0, "hours": 3600.0, "days": 86400.0}
#: The longest single advance: 100 years (the clock must stay a datetime).
MAX_ADVANCE_SECONDS = 100 * 365.25 * 86400


@dataclass(frozen=True, slots=True)
class _ArgSpec:
    names: frozenset[str]
    required: tuple[str, ...]
    checks: dict[str, tuple[str, Callable[[Any], bool]]] = field(default_factory=dict)
    open: bool = False  # the operation takes **kwargs
    #: `required` as a set and `checks` as (name, label, check) triples: what
    #: `check_args` reads on every line of a replay, in the cheapest form.
    required_set: frozenset[str] = field(init=False)
    check_list: tuple[tuple[str, str, Callable[[Any], bool]], ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "required_set", frozenset(self.required))
        object.__setattr__(self, "check_list", tuple((name, label, check)
                                                     for name, (label, check) in self.checks.items()))


#: op name -> (the operation the spec was read from, its spec): a spec
#: read from an operation that was since replaced is read again.
_SPECS: dict[str, tuple[object, _ArgSpec]] = {}


def known_operations() -> list[str]:
    """Every operation a line may name (canonical names, sorted)."""
    return sorted({*BY_NAME, ADVANCE})


def unknown_operation(name: str) -> str:
    """The message for an operation name that is neither an operation nor an alias:
    the closest names (difflib, over the names and their aliases, folded as
    `canonical_op` folds them), not all of them: a typo is read at a glance."""
    folded = _fold(name)
    candidates = {**{op: op for op in known_operations()}, **ALIASES}
    close = get_close_matches(folded, list(candidates), n=3, cutoff=0.6)
    suggestions = list(dict.fromkeys(candidates[match] for match in close))
    if suggestions:
        return f"unknown operation {name!r}; did you mean {' or '.join(map(repr, suggestions))}?"
    return (f"unknown operation {name!r} (the {len(known_operations())} operations: docs/replay.md, "
            f"or promolab.replay.known_operations())")


def _fold(name: str) -> str:
    """Case and separators ignored: `Redeem-Voucher` reads as `redeem_voucher`."""
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def canonical_op(name: str) -> str | None:
    """The operation name for `name` (or an alias of it), None when unknown."""
    if name in BY_NAME or name == ADVANCE:
        return name
    folded = _fold(name)
    folded = ALIASES.get(folded, folded)
    if folded in BY_NAME or folded == ADVANCE:
        return folded
    return None


def _spec(op: str) -> _ArgSpec:
    entry: object = None if op == ADVANCE else BY_NAME[op]
    cached = _SPECS.get(op)
    if cached is not None and cached[0] is entry:
        return cached[1]
    spec = _ArgSpec(frozenset(ADVANCE_UNITS), ()) if entry is None else _signature_spec(BY_NAME[op].run)
    _SPECS[op] = (entry, spec)
    return spec


def _signature_spec(func: Callable[..., Any]) -> _ArgSpec:
    params = list(inspect.signature(func).parameters.values())[1:]  # drop `sim`
    names, required, checks, is_open = set(), [], {}, False
    for p in params:
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            is_open = True
            continue
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        names.add(p.name)
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        check = _annotation_check(p.annotation)
        if check is not None:
            checks[p.name] = check
    return _ArgSpec(frozenset(names), tuple(required), checks, is_open)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    if not isinstance(v, int | float) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # an int too large for a float
        return False


_BASE_CHECKS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "str": ("a string", lambda v: isinstance(v, str)),
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "int": ("an integer", _is_int),
    "float": ("a number", _is_number),
    "dict": ("an object", lambda v: isinstance(v, dict)),
    "Mapping": ("an object", lambda v: isinstance(v, dict)),
    "list": ("an array", lambda v: isinstance(v, list)),
    "Sequence": ("an array", lambda v: isinstance(v, list)),
    "None": ("null", lambda v: v is None),
}


def _split_union(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _annotation_check(annotation: Any) -> tuple[str, Callable[[Any], bool]] | None:
    """A JSON-level type check derived from an operation's annotation.

    Annotations are strings (`from __future__ import annotations`); only the
    plain shapes are understood (str, bool, int, float, dict[...], list[...],
    None and unions of them). Anything else (`Any`, a model) checks nothing:
    the operation itself refuses a bad value with 400 before changing state.
    """
    if annotation is inspect.Parameter.empty:
        return None
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))
    alternatives = []
    for part in _split_union(text):
        base = part.split("[", 1)[0].strip().rsplit(".", 1)[-1]
        check = _BASE_CHECKS.get(base)
        if check is None:
            return None
        alternatives.append(check)
    if len(alternatives) == 1:
        return alternatives[0]
    label = " or ".join(dict.fromkeys(name for name, _ in alternatives))
    funcs = tuple(f for _, f in alternatives)
    return label, lambda v: any(f(v) for f in funcs)


def json_type(value: Any) -> str:
    """How a value reads in JSON terms, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def check_args(op: str, args: dict[str, Any]) -> tuple[str, str] | None:
    """(error key, message) when `args` do not fit operation `op`, else None."""
    spec = _spec(op)
    if not spec.open and not spec.names.issuperset(args):
        unknown = [name for name in args if name not in spec.names]
        if unknown:
            accepted = ", ".join(sorted(spec.names)) or "none"
            return "unknown_argument", f"unknown argument {', '.join(sorted(unknown))}; accepted: {accepted}"
    if not args.keys() >= spec.required_set:  # a view against a set: no temporary set
        missing = [name for name in spec.required if name not in args]
        return "missing_argument", f"missing argument {', '.join(missing)}"
    if op == ADVANCE:
        for name, value in args.items():
            if not _is_number(value) or value < 0:
                return "invalid_argument", f"args.{name} must be a number >= 0 (got {value!r})"
        if sum(value * ADVANCE_UNITS[name] for name, value in args.items()) > MAX_ADVANCE_SECONDS:
            return "invalid_argument", "an advance is at most 100 years"
        return None
    for name, label, check in spec.check_list:
        if name in args and not check(args[name]):
            return "invalid_argument", f"args.{name} must be {label} (got {json_type(args[name])})"
    return None


def canonical_advance(args: dict[str, Any]) -> dict[str, Any]:
    """`{"hours": 1, "minutes": 30}` -> `{"seconds": 5400}` (checked args)."""
    if not args or list(args) == ["seconds"]:
        return args
    seconds: float = sum(float(value) * ADVANCE_UNITS[name] for name, value in args.items())
    return {"seconds": int(seconds) if seconds.is_integer() else seconds}
