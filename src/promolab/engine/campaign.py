"""Campaign checks at one instant: active flag, dates, timeframe, day of week.

- `active: false` -> `promotion_inactive`.
- Before `start_date` (inclusive start) or after `expiration_date` (inclusive
  end), outside `validity_timeframe`, or on a day not in
  `validity_day_of_week` -> `promotion_not_active_now`, with a message saying
  which.
- `validity_timeframe = {"interval": "P2D", "duration": "PT1H"}`: windows of
  `duration` open every `interval`, counted from `start_date`, or from
  1970-01-01T00:00Z when the campaign has no start date. Year and month
  intervals step on the calendar (day clamped to the month's end).
- `validity_day_of_week`: 0 = Sunday … 6 = Saturday, read in the timezone of
  the instant given (the simulator's clock is UTC).

`CampaignCheck.span` also tells for how long a verdict holds (until the next
start, expiry, midnight or timeframe window edge), so that a validation request
need not re-run the checks of every campaign at every instant (`schedule.py`).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import MAXYEAR, UTC, datetime, timedelta, timezone, tzinfo

from .rule_evaluation import RuleFailure
from .tier_spec import CampaignInfo

__all__ = ["CampaignCheck", "Duration", "Span", "compile_campaign", "parse_duration"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: The resolution of datetimes: `now <= t` is `now < t + _TICK`.
_TICK = timedelta(microseconds=1)
_DAY = timedelta(days=1)

#: (verdict, lo, hi): `evaluate` gives `verdict` at every instant `t` with
#: `lo <= t < hi` (None: unbounded) in the timezone of the instant asked about.
Span = tuple[RuleFailure | None, datetime | None, datetime | None]
_DURATION = re.compile(
    r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$"
)


@dataclass(frozen=True, slots=True)
class Duration:
    months: int
    delta: timedelta

    def times(self, start: datetime, k: int) -> datetime | None:
        """`start + k * self`; None when that is past the last instant a
        datetime holds (year 9999): a window that would begin or end there
        never does, which a span reads as no bound."""
        moment = start
        if self.months:
            total = moment.month - 1 + self.months * k
            year, month = moment.year + total // 12, total % 12 + 1
            if year > MAXYEAR:
                return None
            day = min(moment.day, calendar.monthrange(year, month)[1])
            moment = moment.replace(year=year, month=month, day=day)
        try:
            return moment + self.delta * k
        except OverflowError:
            return None


def parse_duration(text: str) -> Duration:
    match = _DURATION.match(text or "")
    if match is None or text in ("P", "PT") or text.endswith("T"):
        raise ValueError(f"not an ISO 8601 duration: {text!r}")
    y, mo, w, d, h, mi, s = (int(g) if g else 0 for g in match.groups())
    duration = Duration(y * 12 + mo, timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s))
    if duration.months == 0 and duration.delta <= timedelta(0):
        raise ValueError(f"duration must be positive: {text!r}")
    return duration


def _window_index(anchor: datetime, interval: Duration, now: datetime) -> int:
    """The largest k >= 0 with `anchor + k * interval` not after `now`."""
    if interval.months == 0:
        return (now - anchor) // interval.delta
    # Estimate with calendar months, then correct by stepping.
    months = (now.year - anchor.year) * 12 + (now.month - anchor.month)
    k = max(months // interval.months - 1, 0)
    while (following := interval.times(anchor, k + 1)) is not None and following <= now:
        k += 1
    while k > 0 and ((moment := interval.times(anchor, k)) is None or moment > now):
        k -= 1
    return k


def _window_start(anchor: datetime, interval: Duration, now: datetime) -> datetime:
    """The latest `anchor + k * interval` not after `now` (k >= 0)."""
    start = interval.times(anchor, _window_index(anchor, interval, now))
    assert start is not None  # not after `now`, so not past the last instant
    return start


_INACTIVE = RuleFailure("promotion_inactive", "promotion is disabled")
_Memo = tuple[tzinfo | None, datetime | None, datetime | None, RuleFailure | None]


@dataclass(frozen=True, slots=True)
class CampaignCheck:
    campaign: CampaignInfo
    interval: Duration | None
    duration: Duration | None
    days: frozenset[int] | None
    #: `verdict_at`'s last span: (timezone, lo, hi, verdict), in a one-slot
    #: list because the dataclass itself is frozen.
    _memo: list[_Memo | None] = field(default_factory=lambda: [None], repr=False, compare=False)

    def evaluate(self, now: datetime) -> RuleFailure | None:
        c = self.campaign
        if not c.active:
            return _INACTIVE
        if c.start_date is not None and now < c.start_date:
            return RuleFailure("promotion_not_active_now", "campaign has not started yet")
        if c.expiration_date is not None and now > c.expiration_date:
            return RuleFailure("promotion_not_active_now", "campaign has expired")
        if self.days is not None and (now.weekday() + 1) % 7 not in self.days:
            return RuleFailure(
                "promotion_not_active_now", "campaign is not valid on this day of the week"
            )
        if self.interval is not None and self.duration is not None:
            anchor = c.start_date or _EPOCH
            if now < anchor:
                return RuleFailure("promotion_not_active_now", "campaign has not started yet")
            start = _window_start(anchor, self.interval, now)
            closes = self.duration.times(start, 1)
            if closes is not None and now >= closes:
                return RuleFailure(
                    "promotion_not_active_now", "outside the campaign's validity timeframe"
                )
        return None

    def verdict_at(self, now: datetime) -> Span:
        """`span(now)`, remembered: an instant in the same timezone within the
        last span gets the same answer without re-running the checks."""
        memo = self._memo[0]
        if memo is not None:
            tz, lo, hi, verdict = memo
            if now.tzinfo is tz and (lo is None or lo <= now) and (hi is None or now < hi):
                return verdict, lo, hi
        verdict, lo, hi = self.span(now)
        empty = lo is not None and lo == hi
        self._memo[0] = None if empty else (now.tzinfo, lo, hi, verdict)
        return verdict, lo, hi

    def span(self, now: datetime) -> Span:
        """`evaluate(now)` with the instants between which it holds.

        The checks run in `evaluate`'s order; each one's answer holds over an
        interval around `now` (before/after a date, the calendar day, the
        timeframe window), and the verdict holds where all the answers seen
        do: their intersection. The day of the week is read in `now`'s
        timezone, so a day bound is only given for a fixed-offset timezone
        (UTC, ±hh:mm) and is to be reused only for instants in the same one;
        for any other timezone the span is empty (lo == hi: ask again).
        """
        c = self.campaign
        if not c.active:
            return _INACTIVE, None, None
        lo: datetime | None = None
        hi: datetime | None = None
        start, expiry = c.start_date, c.expiration_date
        if start is not None:
            if now < start:
                return self.evaluate(now), None, start
            lo = start
        if expiry is not None:
            after = _plus(expiry, _TICK)  # None: it expires at the last instant, so never before it
            if after is not None and now >= after:
                return self.evaluate(now), _later(lo, after), None
            hi = after
        if self.days is not None:
            if type(now.tzinfo) is not timezone:  # a zone with DST: no day arithmetic
                return self.evaluate(now), now, now
            midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
            lo, hi = _later(lo, midnight), _earlier(hi, _plus(midnight, _DAY))
            if (now.weekday() + 1) % 7 not in self.days:
                return self.evaluate(now), lo, hi
        if self.interval is not None and self.duration is not None:
            anchor = start or _EPOCH
            if now < anchor:
                return self.evaluate(now), lo, _earlier(hi, anchor)
            k = _window_index(anchor, self.interval, now)
            window = self.interval.times(anchor, k)
            assert window is not None  # not after `now`, so not past the last instant
            following = self.interval.times(anchor, k + 1)
            closes = self.duration.times(window, 1)
            if closes is not None and now >= closes:
                return self.evaluate(now), _later(lo, closes), _earlier(hi, following)
            lo, hi = _later(lo, window), _earlier(_earlier(hi, closes), following)
        return None, lo, hi


def _plus(moment: datetime, delta: timedelta) -> datetime | None:
    """`moment + delta`, None past the last instant a datetime holds: every
    bound computed here is an instant a span may end at, and one past year
    9999 is no bound at all (the clock never gets there)."""
    try:
        return moment + delta
    except OverflowError:
        return None


def _later(a: datetime | None, b: datetime) -> datetime:
    return b if a is None or b > a else a


def _earlier(a: datetime | None, b: datetime | None) -> datetime | None:
    """The earlier of two upper bounds, None being none."""
    if b is None:
        return a
    return b if a is None or b < a else a


def compile_campaign(campaign: CampaignInfo) -> CampaignCheck:
    """Parse the timeframe once; raises ValueError on a malformed one."""
    for name in ("start_date", "expiration_date"):
        value = getattr(campaign, name)
        if value is not None and value.tzinfo is None:
            raise ValueError(f"campaign {name} must be timezone-aware")
    interval = duration = None
    frame = campaign.validity_timeframe
    if frame:
        if not isinstance(frame, Mapping) or "interval" not in frame or "duration" not in frame:
            raise ValueError("validity_timeframe needs 'interval' and 'duration'")
        interval = parse_duration(frame["interval"])
        duration = parse_duration(frame["duration"])
    days = None
    if campaign.validity_day_of_week is not None:
        days = frozenset(campaign.validity_day_of_week)
        if not days <= set(range(7)):
            raise ValueError("validity_day_of_week holds 0 (Sunday) .. 6 (Saturday)")
    return CampaignCheck(campaign, interval, duration, days)
