"""Journal and replay lines: parsed, checked against their operation, applied."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..operation import Operation
from ..operations import BY_NAME

__all__ = ["apply_entry", "parse_line"]


def parse_line(line: str, number: int) -> dict[str, Any]:
    """One journal/replay line -> {"at", "op", "args"}; `ValueError` names the line
    (whatever is wrong with it, a wrong type included: callers catch that one)."""
    try:
        return _parse_entry(line)
    except ValueError as exc:
        raise ValueError(f"line {number}: {exc}") from None


def _parse_entry(text: str) -> dict[str, Any]:
    """`parse_line` without the line number: the `ValueError` says what is wrong."""
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not a journal line (nested too deeply)") from None
    if not isinstance(entry, dict):
        raise ValueError("expected an object with at, op, args")  # noqa: TRY004
    unknown = set(entry) - {"seq", "at", "op", "args", "note"}
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}")
    seq = entry.get("seq")
    if "seq" in entry and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
        raise ValueError(f"seq must be an integer >= 1, not {seq!r}")
    if not isinstance(entry.get("op"), str):
        raise ValueError("missing op")  # noqa: TRY004
    if "args" in entry and not isinstance(entry["args"], dict):
        raise ValueError("args must be an object")
    if "at" in entry and not isinstance(entry["at"], str):
        raise ValueError("at must be an ISO 8601 string")
    entry.setdefault("args", {})
    return entry


def _instant(text: str | datetime) -> datetime:
    from ..clock import parse_instant

    try:
        return parse_instant(text)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"at {text!r} is not an ISO 8601 instant with a timezone ({exc})") from None


#: An operation's function -> its signature: arguments are bound before a
#: line runs, so a line naming arguments its operation does not take is
#: reported as such, not as whatever `TypeError` came out of the call.
_SIGNATURES: dict[Callable[..., Any], Any] = {}


def _check_arguments(sim: Any, op: Operation[..., Any], args: dict[str, Any]) -> None:
    import inspect

    func = op.run
    signature = _SIGNATURES.get(func)
    if signature is None:
        signature = _SIGNATURES[func] = inspect.signature(func)
    try:
        signature.bind(sim, **args)
    except TypeError as exc:
        raise ValueError(f"args do not fit {op.name}: {exc}") from None


def apply_entry(sim: Any, entry: dict[str, Any]) -> Any:
    """Apply one entry: move the clock to its `at` (running due work on the
    way, as the original session did), then run the operation. `at` is a
    line's ISO text, or the datetime itself (a simulator's write log, which
    keeps instants to the microsecond).

    An entry that cannot run (an unknown operation, an `at` that is not an
    instant, arguments its operation does not take, a bad advance) raises
    `ValueError` before anything of it is applied; the simulator's refusals
    (`SimError`) pass through."""
    from datetime import timedelta

    from ..clock import later, seconds_delta

    op = entry["op"]
    args = entry["args"]
    operation = BY_NAME.get(op)
    if op == "advance":
        seconds = args.get("seconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not 0 <= seconds < float("inf"):
            raise ValueError("advance needs args.seconds >= 0")
    elif operation is not None:
        _check_arguments(sim, operation, args)
    else:
        raise ValueError(f"unknown operation {op!r}")
    at = _instant(entry["at"]) if "at" in entry else None
    if at is not None and at > sim.now:
        sim.advance(at - sim.now)
    if op == "advance":
        # The clock may already stand at this line's `at` (which is after the
        # advance); only the remainder is still to go. Advance even by zero:
        # an `advance(0)` runs work due now (a purchase with no delay), and a
        # restart from the journal must run it too.
        # past year 9999: `TimeOutOfRange`, a ValueError naming args.seconds
        target = at if at is not None else later(sim.now, seconds_delta(seconds, field="args.seconds"),
                                                 field="args.seconds")
        sim.advance(max(target - sim.now, timedelta(0)))
        return None
    assert operation is not None
    return sim.apply(operation, **args)
