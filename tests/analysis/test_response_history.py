"""The response fit from a pulled history: known truth recovered, the same frames twice, bad input refused.

Known truth: a small shop (one product, twelve customers, half of them in
a segment; a $4.00-off tier and a 15 %-off tier, both valid on Mondays,
Wednesdays and Fridays only) is served for four weeks. Each segment's
orders of a day are Poisson, `exp(lift * D)` times as many on a day with
the offers (D: the mean deepest offer of a basket), and each order
redeems each tier with the chance a known `ResponseModel` gives it,
through the client. The history is then pulled (`read_project`), the
orders that redeemed nothing put beside it as the shop's own, and
`history_offers` (counts per segment and day) + `fit_response` must find
every true coefficient, the lift too, inside its 95 % interval, for each
of three seeds. Then: the frames are identical built twice, the counts of a
hand-made history are what they say, and each bad input is a ValueError
naming it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis.response import (
    COUNT_COLUMNS,
    HISTORY_OFFER_COLUMNS,
    HistoryOffers,
    Offers,
    ResponseModel,
    fit_response,
    history_offers,
)
from promolab.pull import REDEMPTION_COLUMNS, read_project
from promolab.pull.reader import Reader
from pull_support import target_of

TRUTH = ResponseModel(lift=2.0, intercept=-1.2, depth_coef=7.0, kind={"PERCENT": 0.5}, segment={"seg_gold": 0.6})
TRUE = {"intercept": -1.2, "depth_coef": 7.0, "kind[PERCENT]": 0.5, "segment[seg_gold]": 0.6, "lift": 2.0}
START = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday: four whole ISO weeks, W10 to W13
CUSTOMERS = [f"c{k:02d}" for k in range(12)]
GOLD = CUSTOMERS[::2]
KIND = {"t_amount": "AMOUNT", "t_percent": "PERCENT"}
DEPTH = {"t_amount": lambda amount: 400 / amount, "t_percent": lambda amount: 0.15}
QUANTITIES = range(1, 9)  # $10 to $80: the $4.00 off is 5 % to 40 % deep
#: the mean over baskets of the deepest offer: what a day with the offers is offered
DEEPEST = float(np.mean([max(d(q * 1000) for d in DEPTH.values()) for q in QUANTITIES]))
OFFER_DAYS = [1, 3, 5]  # Monday, Wednesday, Friday (0 = Sunday)
BASE_ORDERS = 14.0  # a segment's orders on a day without offers


def _tier(tier_id: str, discount: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"camp_{tier_id}", "name": tier_id, "type": "PROMOTION", "start_date": "2026-01-01T00:00:00Z",
            "validity_day_of_week": OFFER_DAYS, "tiers": [{"id": tier_id, "name": tier_id, "discount": discount}]}


SCENARIO: dict[str, Any] = {
    "version": 1, "seed": 1, "clock": {"start": START.isoformat().replace("+00:00", "Z")},
    "catalogue": {"products": [{"id": "prod_tea", "name": "Tea", "price": 1000}]},
    "customers": [{"id": f"cust_{c}", "source_id": c, "name": c} for c in CUSTOMERS],
    "segments": [{"id": "seg_gold", "name": "Gold", "customers": [f"cust_{c}" for c in GOLD]}],
    "campaigns": [_tier("t_amount", {"type": "AMOUNT", "amount_off": 400, "effect": "APPLY_TO_ORDER"}),
                  _tier("t_percent", {"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ORDER"})],
}


@dataclass(frozen=True)
class Generated:
    sim: Simulator
    orders: pd.DataFrame  # the pulled orders and the shop's others
    redemptions: pd.DataFrame


def _arrivals(rng: np.random.Generator) -> list[tuple[datetime, str]]:
    """When each order is placed and by whom: per day and segment a Poisson count, spread over the day."""
    out = []
    for day in range(28):
        start = START + timedelta(days=day)
        offered = (start.isoweekday() % 7) in OFFER_DAYS
        for members in (GOLD, [c for c in CUSTOMERS if c not in GOLD]):
            count = rng.poisson(BASE_ORDERS * (np.exp(TRUTH.lift * DEEPEST) if offered else 1.0))
            out += [(start + timedelta(seconds=float(s)), members[rng.integers(len(members))])
                    for s in rng.uniform(0, 86_399, count)]
    return sorted(out)


@functools.cache
def _generated(seed: int) -> Generated:
    """Four weeks of orders, each redeeming what `TRUTH` draws (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    sim = Simulator.from_scenario(SCENARIO)
    others: list[dict[str, Any]] = []
    with sim.client() as client:
        for k, (when, customer) in enumerate(_arrivals(rng)):
            sim.advance(when - sim.now)
            quantity = int(rng.choice(QUANTITIES))
            segment = np.array(["seg_gold" if customer in GOLD else ""], dtype=object)
            offered = (when.isoweekday() % 7) in OFFER_DAYS
            chosen = [t for t in KIND if offered and rng.random() < TRUTH.redeem_probability(
                Offers(np.array([DEPTH[t](quantity * 1000)]), np.zeros(1), np.array([KIND[t]], dtype=object),
                       segment))[0]]
            if chosen:
                client.redeem_stacked(customer={"source_id": customer},
                                      order={"items": [{"product_id": "prod_tea", "quantity": quantity}]},
                                      redeemables=[{"object": "promotion_tier", "id": t} for t in chosen])
            else:
                others.append({"order_id": f"shop-{k}", "product_id": "prod_tea", "quantity": quantity,
                               "customer_source_id": customer, "placed_at": sim.now})
    history = read_project(Reader(target_of(sim)), history_since=START).history
    assert history is not None
    shop = pd.DataFrame(others).astype({"product_id": "string", "customer_source_id": "string"})
    shop["placed_at"] = pd.to_datetime(shop["placed_at"], utc=True).astype(history.orders["placed_at"].dtype)
    orders = pd.concat([history.orders, shop], ignore_index=True).sort_values("placed_at", kind="stable")
    return Generated(sim, orders.reset_index(drop=True), history.redemptions)


@functools.cache
def _frames(seed: int) -> HistoryOffers:
    g = _generated(seed)
    return history_offers(g.sim, g.orders, g.redemptions, unit="segment", period="day")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_true_coefficients_lie_inside_the_intervals_fitted_from_the_pulled_history(seed: int) -> None:
    frames = _frames(seed)
    assert frames.without_customer == 0 and frames.unexplained == 0
    assert len(frames.counts) == 2 * 28 and frames.counts["orders"].sum() == frames.n_orders
    on_days = pd.to_datetime(frames.counts["period"]).dt.day_of_week.isin([0, 2, 4])  # pandas: 0 = Monday
    assert (frames.counts.loc[~on_days, "depth"] == 0).all() and (frames.counts.loc[on_days, "depth"] > 0).all()
    fitted = fit_response(frames.offers, frames.counts)
    table = fitted.coefficients.set_index("term")
    assert set(TRUE) <= set(table.index)
    outside = {term: (table.at[term, "ci_low"], table.at[term, "ci_high"]) for term, value in TRUE.items()
               if not table.at[term, "ci_low"] <= value <= table.at[term, "ci_high"]}
    assert not outside, outside
    assert "distance_coef" in fitted.not_fitted  # every offer qualifies: no way to the threshold to read


def test_what_the_history_redeemed_is_what_the_offers_say() -> None:
    """Per tier, the redeemed offers are the standing tier redemptions of the pull, one for one."""
    g, frames = _generated(0), _frames(0)
    assert tuple(frames.offers.columns) == HISTORY_OFFER_COLUMNS
    tiers = g.redemptions[(g.redemptions["redeemable_type"] == "promotion_tier")
                          & (g.redemptions["result"] == "SUCCESS")]
    redeemed = frames.offers[frames.offers["redeemed"] == 1]
    assert sorted(zip(redeemed["order_id"], redeemed["tier_id"], strict=True)) == sorted(
        zip(tiers["order_id"], tiers["redeemable_id"], strict=True))
    percent = frames.offers[frames.offers["tier_id"] == "t_percent"]
    assert np.allclose(percent["depth"], 0.15) and set(percent["kind"]) == {"PERCENT"}
    assert set(frames.offers["segment"]) == {"", "seg_gold"}


def test_the_frames_are_the_same_built_twice() -> None:
    g = _generated(0)
    again = history_offers(g.sim, g.orders.copy(), g.redemptions.copy(), unit="segment", period="day")
    pd.testing.assert_frame_equal(again.offers, _frames(0).offers)
    pd.testing.assert_frame_equal(again.counts, _frames(0).counts)


def _lines(rows: list[tuple[str, str | None, str, int]]) -> pd.DataFrame:
    """(order id, customer, placed_at, quantity of tea) per order, one line each."""
    return pd.DataFrame({"order_id": [r[0] for r in rows], "product_id": "prod_tea",
                         "quantity": [r[3] for r in rows],
                         "customer_source_id": pd.array([r[1] for r in rows], dtype="string"),
                         "placed_at": pd.to_datetime([r[2] for r in rows], utc=True)})


NO_REDEMPTIONS = pd.DataFrame({c: pd.Series([], dtype="string") for c in REDEMPTION_COLUMNS})
HAND_MADE = _lines([("a", "c00", "2026-03-02T00:00Z", 1),    # Monday, W10: $4 off $10 (0.4) beats 15 %
                    ("b", "c00", "2026-03-06T23:00Z", 4),    # Friday, W10: $4 off $40 is 0.1, 15 % wins
                    ("c", "c00", "2026-03-09T00:00Z", 2),    # Monday, W11: 0.2
                    ("d", "c01", "2026-03-04T12:00Z", 8),    # Wednesday, W10: 0.15
                    ("f", "c01", "2026-03-03T12:00Z", 1),    # Tuesday, W10: nothing offered, 0
                    ("e", None, "2026-03-04T12:00Z", 1)])    # no customer, 0.4


@pytest.mark.parametrize(("unit", "period", "expected"), [
    ("customer", "week", [("c00", "2026-W10", (0.4 + 0.15) / 2, 2), ("c00", "2026-W11", 0.2, 1),
                          ("c01", "2026-W10", 0.15 / 2, 2)]),
    ("segment", "week", [("", "2026-W10", (0.15 + 0 + 0.4) / 3, 3), ("seg_gold", "2026-W10", (0.4 + 0.15) / 2, 2),
                         ("seg_gold", "2026-W11", 0.2, 1)]),
    ("customer", "day", [("c00", "2026-03-02", 0.4, 1), ("c00", "2026-03-06", 0.15, 1), ("c00", "2026-03-09", 0.2, 1),
                         ("c01", "2026-03-03", 0.0, 1), ("c01", "2026-03-04", 0.15, 1)]),
])
def test_counts_are_orders_and_mean_deepest_offer_per_unit_and_period(unit: str, period: str,
                                                                     expected: list[Any]) -> None:
    frames = history_offers(_sim(), HAND_MADE, NO_REDEMPTIONS, unit=unit, period=period)
    assert tuple(frames.counts.columns) == COUNT_COLUMNS
    got = list(frames.counts.itertuples(index=False, name=None))
    assert [(u, p, o) for u, p, _, o in got] == [(u, p, o) for u, p, _, o in expected]
    assert np.allclose([d for *_, d, _ in got], [d for *_, d, _ in expected])
    assert frames.without_customer == 1 and frames.n_orders == 6
    assert (frames.offers["redeemed"] == 0).all() and len(frames.offers) == 10


def test_a_redemption_of_a_tier_the_scenario_does_not_offer_is_counted_unexplained() -> None:
    g = _generated(0)
    changed = dict(SCENARIO, campaigns=SCENARIO["campaigns"][:1])  # the pulled scenario lost the 15 % tier
    frames = history_offers(Simulator.from_scenario(changed), g.orders, g.redemptions)
    standing = g.redemptions[(g.redemptions["redeemable_id"] == "t_percent") & (g.redemptions["result"] == "SUCCESS")]
    assert frames.unexplained == len(standing) > 0
    assert set(frames.offers["tier_id"]) == {"t_amount"}


@pytest.mark.parametrize(("orders", "redemptions", "unit", "message"), [
    (HAND_MADE.drop(columns="placed_at"), NO_REDEMPTIONS, "customer", "orders: no column placed_at"),
    (HAND_MADE.drop(columns="customer_source_id"), NO_REDEMPTIONS, "customer", "no column customer_source_id"),
    (HAND_MADE.assign(placed_at="2026-03-02"), NO_REDEMPTIONS, "customer", "placed_at must be datetimes"),
    (HAND_MADE.assign(customer_source_id=7), NO_REDEMPTIONS, "customer", "customer_source_id must be strings"),
    (HAND_MADE.assign(customer_source_id=pd.array(["c00", "zed", "c00", "yan", "c01", None], dtype="string")),
     NO_REDEMPTIONS, "customer", "does not hold: yan, zed"),
    (HAND_MADE.iloc[:0], NO_REDEMPTIONS, "customer", "no order"),
    (HAND_MADE, NO_REDEMPTIONS.drop(columns="rolls_back"), "customer", r"not a pulled history's .*\(no rolls_back"),
    (HAND_MADE, NO_REDEMPTIONS, "week", "unit must be one of"),
])
def test_bad_input_is_refused_naming_it(orders: Any, redemptions: pd.DataFrame, unit: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        history_offers(_sim(), orders, redemptions, unit=unit)


def test_what_is_not_a_frame_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="orders: a line-items DataFrame is needed, got list"):
        history_offers(_sim(), [1, 2], NO_REDEMPTIONS)  # type: ignore[arg-type]  # the refusal is the test
    with pytest.raises(TypeError, match="redemptions: a pulled history's redemptions frame is a DataFrame"):
        history_offers(_sim(), HAND_MADE, {"redemption_id": []})  # type: ignore[arg-type]  # the refusal is the test


def test_a_period_not_known_is_refused() -> None:
    with pytest.raises(ValueError, match="period must be one of"):
        history_offers(_sim(), HAND_MADE, NO_REDEMPTIONS, period="month")


def _sim() -> Simulator:
    return Simulator.from_scenario(SCENARIO)


@pytest.mark.parametrize("missing", [None, np.nan], ids=["None", "NaN"])
def test_an_object_column_of_source_ids_and_missing_reads_as_the_string_one(missing: Any) -> None:
    """What a concat of frames often makes: the message says "strings (or missing)", and so it is read."""
    source = pd.Series([missing if pd.isna(s) else s for s in HAND_MADE["customer_source_id"]], dtype=object)
    got = history_offers(_sim(), HAND_MADE.assign(customer_source_id=source), NO_REDEMPTIONS)
    expected = history_offers(_sim(), HAND_MADE, NO_REDEMPTIONS)
    pd.testing.assert_frame_equal(got.counts, expected.counts)
    pd.testing.assert_frame_equal(got.offers, expected.offers)
    assert got.without_customer == expected.without_customer == 1


def test_a_mixed_object_column_of_source_ids_is_refused() -> None:
    source = pd.Series(["c00", 7, "c00", "c00", "c01", None], dtype=object)
    with pytest.raises(ValueError, match="customer_source_id must be strings"):
        history_offers(_sim(), HAND_MADE.assign(customer_source_id=source), NO_REDEMPTIONS)
