"""The simulated clock.

Time in the simulator moves only when someone says so (`advance`, a scenario's
start, a replay line), never with the wall clock, so that the same calls give
the same bytes and notebooks are re-runnable under nbval.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from ..engine import wire_instant

__all__ = ["LATEST", "Clock", "TimeOutOfRange", "format_instant", "later", "later_or_end", "parse_instant",
           "seconds_delta"]

#: The last instant a timestamp can hold: the wire format (RFC 3339, as
#: `/openapi.json` declares every `date-time`) has four-digit years, and so
#: has `datetime`. Every time computation of the simulator stays at or before
#: it (`later`), so none of them can raise `OverflowError` half way through.
LATEST = datetime.max.replace(tzinfo=UTC)


class TimeOutOfRange(ValueError):
    """A time computation that would pass `LATEST` (or a duration no clock
    can hold), refused before anything changed. `field` names the input at
    fault (`seconds`, `session.ttl`), which the HTTP face puts in its 400."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


def seconds_delta(seconds: float, *, field: str = "seconds") -> timedelta:
    """`timedelta(seconds=...)` for a finite number of seconds a clock can
    hold; `TimeOutOfRange` otherwise (never `OverflowError`). The sign is the
    caller's to check (a clock refuses to go back with its own message)."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise TimeOutOfRange(field, f"must be a number of seconds, not {seconds!r}")
    if isinstance(seconds, float) and not math.isfinite(seconds):
        raise TimeOutOfRange(field, f"must be a finite number of seconds, not {seconds!r}")
    try:
        return timedelta(seconds=seconds)
    except OverflowError:
        raise TimeOutOfRange(field, f"{seconds!r} seconds is longer than any clock can run "
                                    f"(the last instant is {format_instant(LATEST)})") from None


def later(moment: datetime, delta: timedelta, *, field: str) -> datetime:
    """`moment + delta`, or `TimeOutOfRange` naming `field` when that is past
    `LATEST` (checked without computing it, so it never overflows)."""
    if delta > LATEST - moment:
        raise TimeOutOfRange(field, f"{format_instant(moment)} + {delta} is past the last instant a "
                                    f"timestamp can hold ({format_instant(LATEST)})")
    return moment + delta


def later_or_end(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta`, at most `LATEST`: when work the simulator schedules
    itself (a retry, a purchase's processing) would fall due after the last
    instant, it falls due at it, which a clock can reach."""
    return LATEST if delta > LATEST - moment else moment + delta


def parse_instant(value: str | datetime) -> datetime:
    """Accept ISO 8601 text or a datetime; always return an aware UTC datetime.

    Naive inputs are refused rather than guessed: a silent local-time
    assumption would make a scenario mean different things on different
    machines.
    """
    if isinstance(value, datetime):
        moment = value
    else:
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"instant {value!r} has no timezone; write it with Z or an offset")
    return moment.astimezone(UTC)


def format_instant(moment: datetime) -> str:
    """The wire format of every timestamp (UTC, milliseconds, `Z`, four digits
    of year): the engine's `wire_instant`, the one writer of instants."""
    return wire_instant(moment)


class Clock:
    """A monotonic simulated clock; `advance` is the only way forward."""

    __slots__ = ("_now",)

    def __init__(self, start: str | datetime) -> None:
        self._now = parse_instant(start)

    @property
    def now(self) -> datetime:
        return self._now

    def iso(self) -> str:
        return format_instant(self._now)

    def advance(self, by: float | timedelta) -> datetime:
        delta = by if isinstance(by, timedelta) else seconds_delta(by)
        if delta < timedelta(0):
            raise ValueError("the simulated clock only moves forward")
        self._now = later(self._now, delta, field="seconds")
        return self._now

    def set(self, moment: str | datetime) -> None:
        # The simulator moves the clock to instants it computed from it (aware
        # UTC already) at every step: only other values need `parse_instant`.
        target = moment if type(moment) is datetime and moment.tzinfo is UTC else parse_instant(moment)
        if target < self._now:
            raise ValueError(f"cannot move the clock back from {self.iso()} to {format_instant(target)}")
        self._now = target
