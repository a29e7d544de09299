"""Calendar periods of a forecast's report: days, weeks and months in the project's time zone.

One definition for every frame that reports per period (`ForecastResult.
periods`, `budget_left`): a period starts at a local midnight, steps by wall
clock (a day across a DST change is 23 or 25 hours), and is named by the
same keys the budgets count in (`engine.period_keys`: weeks from the
project's first day of the week).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

__all__ = ["FREQS", "Freq", "period_ends", "period_range", "period_start"]

#: A report's period: a calendar day, week or month.
Freq = Literal["day", "week", "month"]
FREQS: tuple[Freq, ...] = ("day", "week", "month")
#: One period's length on the wall clock.
_STEP = {"day": pd.DateOffset(days=1), "week": pd.DateOffset(weeks=1), "month": pd.DateOffset(months=1)}
#: date(1970, 1, 1).toordinal()
_EPOCH_ORDINAL = 719_163


def period_start(keys: tuple[np.ndarray, np.ndarray, np.ndarray], freq: str, timezone: str) -> pd.Series:
    """The local midnight starting each order's day, week or month, from the
    period keys the budgets counted in (one rule for both)."""
    day, week, month = keys
    if freq == "month":
        wall = pd.to_datetime({"year": month // 12, "month": month % 12 + 1, "day": 1})
    else:
        ordinal = day if freq == "day" else week
        wall = pd.Series((ordinal - _EPOCH_ORDINAL).astype("timedelta64[D]") + np.datetime64("1970-01-01", "ns"))
    return wall.dt.tz_localize(timezone, ambiguous=False, nonexistent="shift_forward")


def period_range(first: pd.Timestamp, last: pd.Timestamp, freq: str) -> pd.DatetimeIndex:
    """Every period start from the first to the last (wall-clock steps, then the zone)."""
    wall = pd.date_range(first.tz_localize(None), last.tz_localize(None), freq=_STEP[freq])
    return wall.tz_localize(first.tz, ambiguous=False, nonexistent="shift_forward")


def period_ends(starts: pd.DatetimeIndex, freq: str) -> np.ndarray:
    """Each period's end (the next one's start), as UTC nanoseconds."""
    wall = starts.tz_localize(None) + _STEP[freq]
    local = wall.tz_localize(starts.tz, ambiguous=False, nonexistent="shift_forward")
    return np.asarray(local.tz_convert("UTC").as_unit("ns").asi8, dtype=np.int64)
