"""Running totals of what was redeemed, in the shape budget rules ask for them.

Budget and limit rules (`budget_rules`) compare a total so far: redemptions
of a redeemable or of its campaign, of one customer or of everyone, ever or
in the current calendar period. `UsageLedger` keeps those totals as they
happen, one counter per (subject, customer, period) slot, so a rule reads a
number instead of scanning the redemptions: the simulator (`sim.usage`) and
the forecast (`analysis.forecast`) both count with it, which is what keeps a
forecast equal to sending its orders through the redemption operation.

A period is named by an integer key (`period_keys`): the local day's
ordinal, the ordinal of the week's first day, `year * 12 + month - 1`, in
the project's time zone and first day of the week. `period_key_arrays` gives
the same keys for many instants at once (tested equal).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np

from .budget_rules import WEEKDAY, Period, UsageQuery, WeekStart

__all__ = ["PERIODS", "UsageLedger", "period_key_arrays", "period_keys", "period_slot"]

#: The slots a redemption counts in: ever, then each calendar period.
PERIODS: tuple[Period | None, ...] = (None, "daily", "weekly", "monthly")
_PERIOD_INDEX: dict[Period | None, int] = {p: i for i, p in enumerate(PERIODS)}
#: What a slot's counters hold, in order: redemptions, discount, order amounts.
_MEASURES = ("count", "discount", "order_amount")


def period_slot(period: Period | None) -> int | None:
    """Where a period's key sits in `period_keys`' (day, week, month); None
    for no period (a total of ever)."""
    return None if period is None else _PERIOD_INDEX[period] - 1
#: date(1970, 1, 1).toordinal(): a local day count since the epoch, as an ordinal.
_EPOCH_ORDINAL = 719_163
_DAY_NS = 86_400 * 10**9


def period_keys(now: datetime, timezone: str = "UTC", week_start: WeekStart = "MONDAY") -> tuple[int, int, int]:
    """(day, week, month) keys of the calendar periods holding `now` (aware)."""
    local = now.astimezone(ZoneInfo(timezone)).date()
    day = local.toordinal()
    week = day - (local.weekday() - WEEKDAY[week_start]) % 7
    return day, week, local.year * 12 + local.month - 1


def period_key_arrays(
    utc_ns: np.ndarray, timezone: str = "UTC", week_start: WeekStart = "MONDAY"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`period_keys` of many instants given as int64 UTC nanoseconds, vectorized.

    pandas (for its time zone conversion of arrays) is imported here, by the
    analysis that calls this: the simulator and its server read budgets one
    redemption at a time and start without it."""
    import pandas as pd

    local = pd.DatetimeIndex(np.asarray(utc_ns, dtype="datetime64[ns]"), tz="UTC").tz_convert(timezone)
    wall = local.tz_localize(None)
    days = wall.asi8 // _DAY_NS  # floor: local days since 1970-01-01 (a Thursday)
    day = days + _EPOCH_ORDINAL
    weekday = (days + 3) % 7  # Monday = 0
    week = day - (weekday - WEEKDAY[week_start]) % 7
    month = np.asarray(wall.year, dtype=np.int64) * 12 + np.asarray(wall.month, dtype=np.int64) - 1
    return day.astype(np.int64), week.astype(np.int64), month


class UsageLedger:
    """Counts, discounts and order amounts of redemptions, per slot.

    Customers are any hashable key (the simulator's customer ids; the
    forecast's customer codes). A slot is (scope, subject id, customer or None, period index, period
    key): `record` adds a redemption to every slot it belongs to (its
    redeemable and its campaign; everyone and its customer; ever and its
    day, week and month) and `value` reads the one a `UsageQuery` names.
    `sign=-1` takes a rolled-back redemption out again.

    An order's amount counts once per slot however many of its redemptions
    fall in it (two tiers of one campaign on one order): `order_id` names
    the order; None says every call is a new order (the forecast redeems
    each order once) and saves remembering them.
    """

    __slots__ = ("_orders", "_totals", "_units", "timezone", "week_start")

    def __init__(self, timezone: str = "UTC", week_start: WeekStart = "MONDAY") -> None:
        self.timezone = timezone
        self.week_start: WeekStart = week_start
        #: slot -> [redemptions, discount, order amount]
        self._totals: dict[tuple[object, ...], list[int]] = {}
        #: (slot, order id) -> redemptions of that order counted in the slot
        self._orders: dict[tuple[tuple[object, ...], str], int] = {}
        #: (scope, subject, customer or None, product) -> units discounted
        #: under unit budgets (`unit_budgets`; ever: they have no period)
        self._units: dict[tuple[str, str, Hashable | None, str], int] = {}

    def copy(self) -> UsageLedger:
        """A ledger holding the same totals, counting on by itself (a forecast
        starts from what the simulator has spent and must not change it)."""
        other = UsageLedger(self.timezone, self.week_start)
        other._totals = {slot: list(counts) for slot, counts in self._totals.items()}
        other._orders = dict(self._orders)
        other._units = dict(self._units)
        return other

    def keys(self, now: datetime) -> tuple[int, int, int]:
        return period_keys(now, self.timezone, self.week_start)

    def record(
        self,
        redeemable_id: str,
        campaign_id: str | None,
        customer_id: Hashable | None,
        periods: tuple[int, int, int],
        discount: int,
        order_amount: int,
        order_id: str | None = None,
        sign: int = 1,
    ) -> None:
        """Count one redemption (sign=-1: take it back) made in `periods` (`keys`)."""
        subjects: list[tuple[str, str]] = [("redeemable", redeemable_id)]
        if campaign_id is not None:
            subjects.append(("campaign", campaign_id))
        customers = (None,) if customer_id is None else (None, customer_id)
        totals = self._totals
        for scope, subject in subjects:
            for customer in customers:
                for index, key in enumerate((None, *periods)):
                    slot = (scope, subject, customer, index, key)
                    counts = totals.get(slot)
                    if counts is None:
                        counts = totals[slot] = [0, 0, 0]
                    counts[0] += sign
                    counts[1] += sign * discount
                    if self._first_of_order(slot, order_id, sign):
                        counts[2] += sign * order_amount

    def record_units(
        self,
        redeemable_id: str,
        campaign_id: str | None,
        customer_id: Hashable | None,
        units: Iterable[tuple[str, int]],
        sign: int = 1,
    ) -> None:
        """Count the units of each product a redemption discounted under unit
        budgets (sign=-1: a rollback gives them back)."""
        subjects = [("redeemable", redeemable_id)]
        if campaign_id is not None:
            subjects.append(("campaign", campaign_id))
        customers = (None,) if customer_id is None else (None, customer_id)
        counts = self._units
        for product, n in units:
            for scope, subject in subjects:
                for customer in customers:
                    key = (scope, subject, customer, product)
                    left = counts.get(key, 0) + sign * n
                    if left:
                        counts[key] = left
                    else:
                        counts.pop(key, None)

    def units(self, scope: str, subject: str, customer_id: Hashable | None, product: str) -> int:
        """Units of `product` discounted so far under unit budgets by the
        redeemable or campaign `subject`, of `customer_id` (None: everyone)."""
        return self._units.get((scope, subject, customer_id, product), 0)

    def _first_of_order(self, slot: tuple[object, ...], order_id: str | None, sign: int) -> bool:
        """Whether this redemption adds (or takes away) its order's amount in `slot`."""
        if order_id is None:
            return True
        seen = self._orders.get((slot, order_id), 0) + sign
        if seen:
            self._orders[(slot, order_id)] = seen
        else:
            self._orders.pop((slot, order_id), None)
        return seen == (1 if sign > 0 else 0)

    def total(
        self, query: UsageQuery, redeemable_id: str, campaign_id: str, customer_id: Hashable | None, key: int | None
    ) -> int:
        """The query's total in the period named by `key` (None for a query without a period)."""
        if query.per_customer and customer_id is None:
            return 0
        subject = redeemable_id if query.scope == "redeemable" else campaign_id
        slot = (query.scope, subject, customer_id if query.per_customer else None, _PERIOD_INDEX[query.period], key)
        counts = self._totals.get(slot)
        if counts is None:
            return 0
        return counts[_MEASURES.index(query.measure)]

    def totals_by_period(self, query: UsageQuery, redeemable_id: str, campaign_id: str) -> dict[int | None, int]:
        """Everyone's totals of `query`, per key of its period (None: ever):
        what a report of a budget over time starts from. A per-customer query
        has no everyone's total to report (ValueError)."""
        if query.per_customer:
            raise ValueError("a per-customer query has a total per customer, not one for everyone")
        subject = redeemable_id if query.scope == "redeemable" else campaign_id
        head = (query.scope, subject, None, _PERIOD_INDEX[query.period])
        measure = _MEASURES.index(query.measure)
        out: dict[int | None, int] = {}
        for slot, counts in self._totals.items():
            if slot[:4] == head:
                key = slot[4]
                assert key is None or isinstance(key, int | np.integer)  # a slot's period key; None for ever
                out[None if key is None else int(key)] = counts[measure]
        return out

    def value(
        self, query: UsageQuery, redeemable_id: str, campaign_id: str, customer_id: str | None, now: datetime
    ) -> int:
        """`Usage.value`: the total so far in the period holding `now`."""
        slot = period_slot(query.period)
        key = None if slot is None else self.keys(now)[slot]
        return self.total(query, redeemable_id, campaign_id, customer_id, key)

    # -- the forecast's fast paths: the slots of a few queries, bound once ----

    def _slot_of(self, query: UsageQuery, redeemable_id: str, campaign_id: str | None) -> tuple[str, str | None, bool, int]:
        subject = redeemable_id if query.scope == "redeemable" else campaign_id
        return query.scope, subject, query.per_customer, _PERIOD_INDEX[query.period]

    def reader(self, query: UsageQuery, redeemable_id: str, campaign_id: str) -> Callable[[object, tuple[int, int, int]], int]:
        """`total` for one query of one redeemable, bound once: called with the
        customer (None: none) and the (day, week, month) keys of the instant."""
        scope, subject, per_customer, index = self._slot_of(query, redeemable_id, campaign_id)
        measure = _MEASURES.index(query.measure)
        totals = self._totals

        def read(customer: object, periods: tuple[int, int, int]) -> int:
            if per_customer and customer is None:
                return 0
            key = periods[index - 1] if index else None
            counts = totals.get((scope, subject, customer if per_customer else None, index, key))
            return counts[measure] if counts is not None else 0

        return read

    def recorder(
        self, redeemable_id: str, campaign_id: str | None, queries: Iterable[UsageQuery]
    ) -> Callable[[object, tuple[int, int, int], int, int], None]:
        """`record` of a new order's redemption (no order id), bound once and
        limited to the slots `queries` read: what a walk that only ever asks
        those queries needs, at a fraction of the work."""
        slots = sorted({self._slot_of(q, redeemable_id, campaign_id) for q in queries}, key=str)
        totals = self._totals

        def record(customer: object, periods: tuple[int, int, int], discount: int, order_amount: int) -> None:
            for scope, subject, per_customer, index in slots:
                if per_customer and customer is None:
                    continue
                slot = (scope, subject, customer if per_customer else None, index, periods[index - 1] if index else None)
                counts = totals.get(slot)
                if counts is None:
                    totals[slot] = [1, discount, order_amount]
                else:
                    counts[0] += 1
                    counts[1] += discount
                    counts[2] += order_amount

        return record
