"""What each budget had left at the end of every day, week or month of a forecast.

A budget rule reads everyone's running total (redemptions, discount or
order amounts of a tier or of its campaign, ever or in the current
calendar period) and refuses once it reaches its bound; `budget_left` says,
per budget and per period of the report (`freq`), the total the rule read
at the end of that period and what was left under the bound. A code's
stock is reported alike (its uses against its redemption quantity).

Exact by construction: the walk's ledger holds every total at the end of
the forecast, per key of the budget's own period (`UsageLedger.
totals_by_period`, what the simulator had spent before included); the
forecast's own part of each is the redemptions of `ForecastResult.
redemptions` that the rule counts (an order's amount once per order, as
the ledger counts it). The total at an instant is the end total of the
budget period holding it, less what the orders after the instant added to
that period. Per-customer limits have no everyone's total and are left out.

A total past its bound says why: `used` is split into what the budget's own
tier redeemed in the forecast (`used_by_tier`), what the campaign's other
tiers did (`used_by_other_tiers`: a campaign budget counts every tier of the
campaign, so a weekly cap of 300 read by one tier can end a week at 7,955
when tiers without that budget keep redeeming) and what the simulator had
spent before the forecast (`used_before`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from ...engine import Period, period_key_arrays, period_slot
from ..figures import with_currency
from .calendar_periods import Freq, period_ends

if TYPE_CHECKING:
    from .result import ForecastResult

__all__ = ["BUDGET_LEFT_COLUMNS", "BudgetTrack", "budget_left"]

#: `measure`: what `limit`, `used` and `left` are in: "count" (redemptions), or cents
#: ("discount", "order_amount"). `used` = `used_by_tier` + `used_by_other_tiers` + `used_before`.
BUDGET_LEFT_COLUMNS = ("tier_id", "campaign_id", "rule", "measure", "period", "period_start", "limit", "used",
                       "used_by_tier", "used_by_other_tiers", "used_before", "left")
_FIGURES = ("limit", "used", "used_by_tier", "used_by_other_tiers", "used_before", "left")


@dataclass(frozen=True)
class BudgetTrack:
    """A budget of everyone's total, as the report follows it."""

    tier_id: str
    campaign_id: str
    rule: str
    #: which redemptions it counts: those of the tier (`tier_id`) or of the campaign (`campaign_id`)
    counts: Literal["tier_id", "campaign_id"]
    measure: Literal["count", "discount", "order_amount"]
    #: the budget's own period (None: ever)
    period: Period | None
    limit: int | None
    #: its totals at the end of the forecast, per key of its period (None: ever)
    totals: dict[int | None, int]


def budget_left(result: ForecastResult, freq: Freq) -> pd.DataFrame:
    """Per budget (in `result.budgets` order) and period of `freq`
    (`ForecastResult.period_starts`): `used` at the period's end and `left`
    (`limit - used`; below 0 when the redemption that crossed the bound went
    through, as it does)."""
    starts = result.period_starts(freq)  # refuses a bad freq
    orders = result.orders
    if orders.empty or not result.budget_tracks:
        return with_currency(_frame(pd.DataFrame({c: [] for c in BUDGET_LEFT_COLUMNS}), result.timezone), result.currency)
    placed = np.asarray(pd.DatetimeIndex(orders["placed_at"]).as_unit("ns").asi8, dtype=np.int64)
    ends = period_ends(starts, freq)
    at = np.searchsorted(placed, ends, side="left")  # orders placed before each end
    end_keys = period_key_arrays(ends - 1, result.timezone, result.week_start)
    rows: list[pd.DataFrame] = []
    for track in result.budget_tracks:
        added, own = _added(result, track)
        cumulative = np.concatenate(([0], np.cumsum(added)))
        own_cumulative = cumulative if own is added else np.concatenate(([0], np.cumsum(own)))
        slot = period_slot(track.period)
        if slot is None:
            key_of_order = np.zeros(len(orders), dtype=np.int64)
            key_at_end = np.zeros(len(ends), dtype=np.int64)
        else:
            key_of_order, key_at_end = result.period_keys[slot], end_keys[slot]
        first = np.searchsorted(key_of_order, key_at_end, side="left")
        last = np.searchsorted(key_of_order, key_at_end, side="right")
        final = np.array([track.totals.get(None if track.period is None else int(k), 0) for k in key_at_end],
                         dtype=np.int64)
        upto = np.clip(at, first, last)
        used = final - (cumulative[last] - cumulative[upto])
        forecast_part = cumulative[upto] - cumulative[first]  # the forecast's own, in the budget's period so far
        by_tier = own_cumulative[upto] - own_cumulative[first]
        rows.append(pd.DataFrame({
            "tier_id": track.tier_id, "campaign_id": track.campaign_id, "rule": track.rule, "measure": track.measure,
            "period": track.period,
            "period_start": starts, "limit": track.limit, "used": used, "used_by_tier": by_tier,
            "used_by_other_tiers": forecast_part - by_tier, "used_before": used - forecast_part,
        }))  # fmt: skip
    out = pd.concat(rows, ignore_index=True)
    out["left"] = out["limit"].astype("Int64") - out["used"]
    return with_currency(_frame(out, result.timezone), result.currency)


def _frame(out: pd.DataFrame, timezone: str) -> pd.DataFrame:
    """The columns in order and typed, rows or none (a file written from an
    empty report reads back with the same types)."""
    out = out.astype({"tier_id": "string", "campaign_id": "string", "rule": "string", "measure": "string",
                      "period": "string", **dict.fromkeys(_FIGURES, "Int64")})
    if out.empty:
        out["period_start"] = pd.DatetimeIndex([], tz=timezone)
    return out[list(BUDGET_LEFT_COLUMNS)]


def _added(result: ForecastResult, track: BudgetTrack) -> tuple[np.ndarray, np.ndarray]:
    """What each order (rows in time order) added to the track's total, and
    the part of it the track's own tier redeemed (all of it for a budget of
    the tier, the same array; of a campaign's, its other tiers' redemptions
    are not)."""
    r = result.redemptions
    mine = (r[track.counts].astype("string") == (track.tier_id if track.counts == "tier_id" else track.campaign_id))
    mine = mine.fillna(False).to_numpy(dtype=bool)
    added = _per_order(result, track, mine)
    if track.counts == "tier_id":
        return added, added
    own = mine & (r["tier_id"].astype("string") == track.tier_id).fillna(False).to_numpy(dtype=bool)
    return added, _per_order(result, track, own)


def _per_order(result: ForecastResult, track: BudgetTrack, counted: np.ndarray) -> np.ndarray:
    """Per order, what its `counted` redemptions add to a total of the track's measure."""
    r = result.redemptions
    rows = r["row"].to_numpy()[counted]
    added = np.zeros(len(result.orders), dtype=np.int64)
    if track.measure == "count":
        np.add.at(added, rows, 1)
    elif track.measure == "discount":
        np.add.at(added, rows, r["discount"].to_numpy(dtype=np.int64)[counted])
    else:  # an order's amount once, however many of its redemptions count
        once = np.unique(rows)
        added[once] = result.orders["amount"].to_numpy(dtype=np.int64)[once]
    return added
