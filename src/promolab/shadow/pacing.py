"""Pacing requests to the real service, and waiting out its 429 answers.

The sandbox of the real service allows 100 calls an hour; a shadow run of a
day's script must not burn a team's quota in a minute, or be cut off half
way. `Pacer` spaces the target's requests evenly (`Pace.calls` per
`Pace.per` seconds: the default, 100 an hour, is one call every 36 s), holds
back when the service's headers say its window is spent
(`X-Rate-Limit-Remaining: 0` until `X-Rate-Limit-Retry`, unix seconds), and
after a 429 waits what `Retry-After` says (else until `X-Rate-Limit-Retry`)
before sending again, at most `Pace.retries` times; a wait longer than
`Pace.max_wait` stops the run instead (`RateLimited`): its cassette resumes
it later.

Evenly spaced rather than a bucket that allows a burst and then an hour of
silence (what a rate-limiting library such as pyrate-limiter implements): a
run's progress bar then moves at the pace it will keep. The clocks and the
sleep are injectable, so tests check every wait without waiting.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .errors import RateLimited

__all__ = ["SANDBOX", "Pace", "Pacer"]


@dataclass(frozen=True, slots=True)
class Pace:
    """How fast a run may call the target, and how patient it is with 429s."""

    calls: int = 100
    per: float = 3600.0
    retries: int = 5
    max_wait: float = 3600.0

    def __post_init__(self) -> None:
        if self.calls <= 0 or self.per < 0 or self.retries < 0 or self.max_wait < 0:
            raise ValueError("a pace needs calls > 0 and per, retries, max_wait >= 0")

    @property
    def interval(self) -> float:
        """Seconds between two calls."""
        return self.per / self.calls


#: The sandbox's documented limit: 100 calls an hour.
SANDBOX = Pace()


@dataclass
class Pacer:
    """Decides how long to wait before each request to the target."""

    pace: Pace = SANDBOX
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    #: Every wait, in seconds, with why: ("pace" | "window" | "429", seconds).
    waits: list[tuple[str, float]] = field(default_factory=list)
    _next: float | None = None
    _hold_until_wall: float | None = None

    def before_request(self) -> None:
        """Wait for the next slot of the pace and for a spent window to reset."""
        if self._next is not None:
            self._wait("pace", self._next - self.clock())
        if self._hold_until_wall is not None:
            hold = self._hold_until_wall - self.wall()
            self._hold_until_wall = None
            if hold > self.pace.max_wait:
                raise RateLimited(f"the target's window is spent for {math.ceil(hold)} s, longer than the "
                                  f"{self.pace.max_wait:g} s allowed")
            self._wait("window", hold)
        self._next = self.clock() + self.pace.interval

    def after_answer(self, status: int, headers: Mapping[str, str], attempt: int) -> bool:
        """Read an answer's rate-limit headers; True when the request must be
        sent again (a 429 waited out). Raises `RateLimited` past the retries
        or for a wait longer than `max_wait`."""
        remaining = _number(headers.get("x-rate-limit-remaining"))
        reset = _number(headers.get("x-rate-limit-retry"))
        if status != 429:
            if remaining is not None and remaining <= 0 and reset is not None:
                self._hold_until_wall = reset
            return False
        if attempt >= self.pace.retries:
            raise RateLimited(f"still 429 after {attempt} retries")
        retry_after = _number(headers.get("retry-after"))
        if retry_after is not None:
            wait = retry_after
        elif reset is not None:
            wait = reset - self.wall()
        else:
            wait = self.pace.interval
        if wait > self.pace.max_wait:
            raise RateLimited(f"the target asks to wait {math.ceil(wait)} s, longer than the "
                              f"{self.pace.max_wait:g} s allowed")
        self._wait("429", wait)
        self._next = None  # the retry goes out now: the wait was longer than a slot
        return True

    def waited(self, reason: str | None = None) -> float:
        """Seconds waited in all (or for one reason)."""
        return sum(s for r, s in self.waits if reason is None or r == reason)

    def _wait(self, reason: str, seconds: float) -> None:
        if seconds > 0:
            self.waits.append((reason, seconds))
            self.sleep(seconds)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
