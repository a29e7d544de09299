"""The simulated clock.

Time in the simulator moves only when someone says so (`advance`, a scenario's
start, a replay line), never with the wall clock, so that the same calls give
the same bytes and notebooks are re-runnable under nbval.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["Clock", "format_instant", "parse_instant"]


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
    """The wire format of every timestamp: UTC, milliseconds, `Z`."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


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
        delta = by if isinstance(by, timedelta) else timedelta(seconds=by)
        if delta < timedelta(0):
            raise ValueError("the simulated clock only moves forward")
        self._now += delta
        return self._now

    def set(self, moment: str | datetime) -> None:
        # The simulator moves the clock to instants it computed from it (aware
        # UTC already) at every step: only other values need `parse_instant`.
        target = moment if type(moment) is datetime and moment.tzinfo is UTC else parse_instant(moment)
        if target < self._now:
            raise ValueError(f"cannot move the clock back from {self.iso()} to {format_instant(target)}")
        self._now = target
