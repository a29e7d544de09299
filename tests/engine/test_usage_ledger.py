"""The usage ledger: running totals equal a scan of the redemptions, in calendar periods.

The ledger replaces a scan over the redemption records; the scan stays here
as the oracle: for random redemptions (some rolled back, some sharing an
order) every query the budget families ask gives the scan's total at every
instant. Period keys are checked against `period_start` and between the
scalar and the vectorized form, across both DST changes of Europe/Berlin.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab.engine import (
    BUDGET_FAMILIES,
    UsageLedger,
    UsageQuery,
    period_key_arrays,
    period_keys,
    period_start,
)

START = datetime(2026, 3, 25, tzinfo=UTC)
ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata")
WEEK_STARTS = ("MONDAY", "SATURDAY", "SUNDAY")


@dataclass(frozen=True)
class Spent:
    redeemable: str
    campaign: str
    customer: str | None
    date: datetime
    discount: int
    order_amount: int
    order: str


def scan(records: list[Spent], query: UsageQuery, redeemable: str, campaign: str, customer: str | None,
         now: datetime, zone: str, week_start: str) -> int:
    """What the simulator computed before the ledger: a pass over the records."""
    start = period_start(now, query.period, zone, week_start) if query.period else None  # type: ignore[arg-type]  # the strategy draws valid names
    total, orders = 0, set()
    for r in records:
        mine = r.redeemable == redeemable if query.scope == "redeemable" else r.campaign == campaign
        if not mine or r.date > now or (start is not None and r.date < start):
            continue
        if query.per_customer and (customer is None or r.customer != customer):
            continue
        if query.measure == "count":
            total += 1
        elif query.measure == "discount":
            total += r.discount
        elif r.order not in orders:
            orders.add(r.order)
            total += r.order_amount
    return total


records_strategy = st.lists(
    st.builds(
        Spent,
        redeemable=st.sampled_from(["promo_a", "promo_b", "v_code"]),
        campaign=st.just("camp_x"),
        customer=st.sampled_from([None, "alice", "bob"]),
        date=st.integers(0, 40 * 24).map(lambda h: START + timedelta(hours=h)),
        discount=st.integers(0, 5000),
        order_amount=st.just(0),
        order=st.sampled_from(["o1", "o2", "o3", "o4", "o5", "o6"]),
    ).map(lambda r: replace(r, order_amount=1000 * int(r.order[1:]))),  # an order has one amount
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(records=records_strategy, zone=st.sampled_from(ZONES), week_start=st.sampled_from(WEEK_STARTS),
       rolled_back=st.sets(st.integers(0, 29)), hours=st.integers(0, 41 * 24))
def test_the_ledger_equals_a_scan_of_the_redemptions(records: list[Spent], zone: str, week_start: str,
                                                    rolled_back: set[int], hours: int) -> None:
    records = sorted(records, key=lambda r: r.date)  # the clock only moves forward
    ledger = UsageLedger(zone, week_start)  # type: ignore[arg-type]  # drawn from the valid names
    for r in records:
        ledger.record(r.redeemable, r.campaign, r.customer, ledger.keys(r.date), r.discount, r.order_amount, r.order)
    kept = [r for i, r in enumerate(records) if i not in rolled_back]
    for i, r in enumerate(records):
        if i in rolled_back:
            ledger.record(r.redeemable, r.campaign, r.customer, ledger.keys(r.date), r.discount, r.order_amount,
                          r.order, sign=-1)
    now = max([START + timedelta(hours=hours), *(r.date for r in records)])
    for name, query in BUDGET_FAMILIES.items():
        for redeemable in ("promo_a", "v_code"):
            for customer in (None, "alice"):
                expected = scan(kept, query, redeemable, "camp_x", customer, now, zone, week_start)
                assert ledger.value(query, redeemable, "camp_x", customer, now) == expected, (name, redeemable, customer)


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("week_start", WEEK_STARTS)
def test_period_keys_name_the_periods_period_start_finds(zone: str, week_start: str) -> None:
    # every 37 minutes over five weeks around Europe/Berlin's spring DST change
    instants = [datetime(2026, 3, 10, tzinfo=UTC) + timedelta(minutes=37 * k) for k in range(5 * 7 * 24 * 60 // 37)]
    ns = np.array([int(t.timestamp()) * 10**9 for t in instants], dtype=np.int64)
    day, week, month = period_key_arrays(ns, zone, week_start)  # type: ignore[arg-type]  # a valid name
    for k, t in enumerate(instants):
        keys = period_keys(t, zone, week_start)  # type: ignore[arg-type]  # a valid name
        assert keys == (day[k], week[k], month[k])
        assert keys[0] == period_start(t, "daily", zone).date().toordinal()
        assert keys[1] == period_start(t, "weekly", zone, week_start).date().toordinal()  # type: ignore[arg-type]  # a valid name
        start = period_start(t, "monthly", zone)
        assert keys[2] == start.year * 12 + start.month - 1


@pytest.mark.parametrize(("utc", "day"), [
    ("2026-03-29T00:59:59+00:00", "2026-03-29"),  # 01:59:59 CET
    ("2026-03-29T01:00:00+00:00", "2026-03-29"),  # 03:00 CEST
    ("2026-03-28T22:59:59+00:00", "2026-03-28"),  # 23:59:59 CET
    ("2026-10-24T22:00:00+00:00", "2026-10-25"),  # midnight CEST, the night the clocks go back
    ("2026-10-25T22:59:59+00:00", "2026-10-25"),  # 23:59:59 CET
    ("2026-10-25T23:00:00+00:00", "2026-10-26"),
])
def test_berlin_days_across_dst(utc: str, day: str) -> None:
    t = datetime.fromisoformat(utc)
    assert period_keys(t, "Europe/Berlin")[0] == datetime.fromisoformat(day).toordinal()
    ns = np.array([int(t.timestamp()) * 10**9], dtype=np.int64)
    assert period_key_arrays(ns, "Europe/Berlin")[0][0] == datetime.fromisoformat(day).toordinal()


def test_an_order_amount_counts_once_per_order_until_its_last_redemption_goes() -> None:
    ledger = UsageLedger()
    keys = ledger.keys(START)
    query = UsageQuery("campaign", "order_amount")
    for tier in ("promo_a", "promo_b"):  # two tiers of one campaign on one order
        ledger.record(tier, "camp_x", "alice", keys, 100, 7000, "o1")
    assert ledger.value(query, "promo_a", "camp_x", None, START) == 7000
    ledger.record("promo_a", "camp_x", "alice", keys, 100, 7000, "o1", sign=-1)
    assert ledger.value(query, "promo_a", "camp_x", None, START) == 7000
    ledger.record("promo_b", "camp_x", "alice", keys, 100, 7000, "o1", sign=-1)
    assert ledger.value(query, "promo_a", "camp_x", None, START) == 0
    # without order ids each call is an order of its own
    ledger.record("promo_a", "camp_x", None, keys, 100, 7000)
    ledger.record("promo_b", "camp_x", None, keys, 100, 7000)
    assert ledger.value(query, "promo_a", "camp_x", None, START) == 14000
