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
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .rulebase import RuleFailure
from .types import CampaignInfo

__all__ = ["CampaignCheck", "Duration", "compile_campaign", "parse_duration"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DURATION = re.compile(
    r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$"
)


@dataclass(frozen=True, slots=True)
class Duration:
    months: int
    delta: timedelta

    def times(self, start: datetime, k: int) -> datetime:
        """`start + k * self`."""
        moment = start
        if self.months:
            total = moment.month - 1 + self.months * k
            year, month = moment.year + total // 12, total % 12 + 1
            day = min(moment.day, calendar.monthrange(year, month)[1])
            moment = moment.replace(year=year, month=month, day=day)
        return moment + self.delta * k


def parse_duration(text: str) -> Duration:
    match = _DURATION.match(text or "")
    if match is None or text in ("P", "PT") or text.endswith("T"):
        raise ValueError(f"not an ISO 8601 duration: {text!r}")
    y, mo, w, d, h, mi, s = (int(g) if g else 0 for g in match.groups())
    duration = Duration(y * 12 + mo, timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s))
    if duration.months == 0 and duration.delta <= timedelta(0):
        raise ValueError(f"duration must be positive: {text!r}")
    return duration


def _window_start(anchor: datetime, interval: Duration, now: datetime) -> datetime:
    """The latest `anchor + k * interval` not after `now` (k >= 0)."""
    if interval.months == 0:
        k = (now - anchor) // interval.delta
        return anchor + interval.delta * k
    # Estimate with calendar months, then correct by stepping.
    months = (now.year - anchor.year) * 12 + (now.month - anchor.month)
    k = max(months // interval.months - 1, 0)
    while interval.times(anchor, k + 1) <= now:
        k += 1
    while k > 0 and interval.times(anchor, k) > now:
        k -= 1
    return interval.times(anchor, k)


_INACTIVE = RuleFailure("promotion_inactive", "promotion is disabled")


@dataclass(frozen=True, slots=True)
class CampaignCheck:
    campaign: CampaignInfo
    interval: Duration | None
    duration: Duration | None
    days: frozenset[int] | None

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
            if now >= self.duration.times(start, 1):
                return RuleFailure(
                    "promotion_not_active_now", "outside the campaign's validity timeframe"
                )
        return None


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
