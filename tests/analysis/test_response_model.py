"""The response model on plain arrays: refusals, monotonicity, the split's identities, known numbers.

Table-driven refusals of bad coefficients and bad `Offers`; hypothesis for
the invariants (a chance in [0, 1], non-decreasing in depth, non-increasing
in distance; a lift >= 1, non-decreasing); `expect`: incremental spend plus
subsidy is spend, `NO_RESPONSE` changes nothing, and numbers worked by hand.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab.analysis.response import KINDS, NO_RESPONSE, Offers, ResponseModel, expect


def _offers(depth: list[float], distance: list[float] | None = None, kind: list[str] | None = None,
            segment: list[str] | None = None) -> Offers:
    n = len(depth)
    return Offers(np.array(depth, dtype=np.float64), np.array(distance or [0.0] * n),
                  np.array(kind or ["PERCENT"] * n, dtype=object), np.array(segment or [""] * n, dtype=object))


@pytest.mark.parametrize(("fields", "message"), [
    ({"lift": -0.1}, "lift must be >= 0"),
    ({"depth_coef": -1.0}, "depth_coef must be >= 0"),
    ({"distance_coef": -2.0}, "distance_coef must be >= 0"),
    ({"intercept": math.nan}, "intercept must be a finite number"),
    ({"lift": math.inf}, "lift must be a finite number"),
    ({"depth_coef": "8"}, "depth_coef must be a finite number"),
    ({"intercept": True}, "intercept must be a finite number"),
    ({"kind": {"BOGO": 1.0}}, "kind keys must be among"),
    ({"kind": {"": 1.0}}, "kind keys must be among"),
    ({"kind": {"UNIT": math.nan}}, r"kind\['UNIT'\] must be a finite number"),
    ({"segment": {"gold": "high"}}, r"segment\['gold'\] must be a finite number"),
])
def test_bad_coefficients_are_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ResponseModel(**fields)


@pytest.mark.parametrize(("arrays", "message"), [
    ({"distance": [0.0]}, "distance has 1 entries, depth has 2"),
    ({"kind": ["PERCENT"] * 3}, "kind has 3 entries"),
    ({"segment": []}, "segment has 0 entries"),
    ({"depth": [-0.1, 0.2]}, "depth must be finite shares >= 0"),
    ({"depth": [math.nan, 0.2]}, "depth must be finite shares >= 0"),
    ({"distance": [0.0, 1.5]}, "distance must be shares from 0 to 1"),
    ({"distance": [-0.1, 0.0]}, "distance must be shares from 0 to 1"),
    ({"kind": ["PERCENT", "BOGO"]}, "kind must be one of"),
])
def test_bad_offers_are_refused(arrays: dict[str, list[Any]], message: str) -> None:
    given = {"depth": [0.1, 0.2], "distance": [0.0, 0.0], "kind": ["PERCENT", "AMOUNT"], "segment": ["", ""], **arrays}
    with pytest.raises(ValueError, match=message):
        Offers(np.array(given["depth"], dtype=np.float64), np.array(given["distance"], dtype=np.float64),
               np.array(given["kind"], dtype=object), np.array(given["segment"], dtype=object))


models = st.builds(
    ResponseModel, lift=st.floats(0, 5), intercept=st.floats(-5, 5), depth_coef=st.floats(0, 20),
    distance_coef=st.floats(0, 10), kind=st.dictionaries(st.sampled_from(KINDS[:-1]), st.floats(-2, 2)),
    segment=st.dictionaries(st.sampled_from(["gold", "new"]), st.floats(-2, 2)),
)
shares = st.floats(0, 1)


@settings(max_examples=200, deadline=None)
@given(models, shares, shares, shares, shares, st.sampled_from(KINDS[:-1]), st.sampled_from(["", "gold", "new"]))
def test_the_chance_is_a_probability_rising_with_depth_and_falling_with_distance(
        model: ResponseModel, d1: float, d2: float, x1: float, x2: float, kind: str, segment: str) -> None:
    lo, hi = sorted((d1, d2))
    near, far = sorted((x1, x2))
    p = model.redeem_probability(_offers([lo, hi, lo, lo], [near, near, near, far], [kind] * 4, [segment] * 4))
    assert ((p >= 0) & (p <= 1)).all()
    assert p[1] >= p[0] or lo == 0  # depth 0 is nothing offered: chance 0
    assert p[3] <= p[2]
    lift = model.order_lift(_offers([lo, hi], kind=[kind] * 2))
    assert (lift >= 1).all() and lift[1] >= lift[0]
    assert (model.incremental_share(_offers([lo, hi])) >= 0).all()


@settings(max_examples=200, deadline=None)
@given(models, st.lists(st.tuples(st.floats(0, 0.9), st.sampled_from(KINDS), st.integers(100, 100_000)), min_size=1,
                         max_size=20))
def test_incremental_spend_and_subsidy_add_up_to_spend(model: ResponseModel,
                                                       rows: list[tuple[float, str, int]]) -> None:
    offers = _offers([r[0] for r in rows], kind=[r[1] for r in rows])
    amount = np.array([r[2] for r in rows], dtype=np.float64)
    e = expect(model, offers, amount, amount * offers.depth)
    np.testing.assert_allclose(e.incremental_spend + e.subsidy, e.spend, rtol=1e-12, atol=1e-9)
    assert (e.subsidy >= 0).all() and (e.incremental_spend >= -1e-9).all() and (e.incremental_orders >= 0).all()
    nothing = ~offers.offered
    assert (e.orders[nothing] == 1).all() and (e.spend[nothing] == 0).all()


def test_no_response_orders_as_recorded_and_redeems_every_offer() -> None:
    offers = _offers([0.2, 0.0, 0.5], kind=["PERCENT", "", "UNIT"])
    amount = np.array([5_000.0, 3_000.0, 2_000.0])
    discount = np.array([1_000.0, 0.0, 1_000.0])
    e = expect(NO_RESPONSE, offers, amount, discount)
    assert e.orders.tolist() == [1.0, 1.0, 1.0]
    assert e.incremental_orders.tolist() == [0.0, 0.0, 0.0] and e.incremental_spend.tolist() == [0.0, 0.0, 0.0]
    assert e.redemptions.tolist() == [1.0, 0.0, 1.0]
    assert e.spend.tolist() == [1_000.0, 0.0, 1_000.0] and e.subsidy.tolist() == e.spend.tolist()
    assert e.incremental_net_revenue.tolist() == [-1_000.0, 0.0, -1_000.0]


def test_known_numbers_by_hand() -> None:
    """lift 2, depth 0.25: w = e^0.5; chance sigmoid(-1 + 8 * 0.25 - 0.3) * e^(-5 * 0.1)
    for a UNIT offer 10 % short of its threshold; $40 order, $10 off, $15 of goods."""
    model = ResponseModel()
    offers = _offers([0.25], [0.1], ["UNIT"])
    e = expect(model, offers, np.array([4_000.0]), np.array([1_000.0]), goods=np.array([1_500.0]))
    w = math.exp(0.5)
    p = 1 / (1 + math.exp(-0.7)) * math.exp(-0.5)
    assert e.orders[0] == pytest.approx(w) and e.incremental_orders[0] == pytest.approx(w - 1)
    assert e.redemptions[0] == pytest.approx(w * p)
    assert e.spend[0] == pytest.approx(w * p * 1_000)
    assert e.subsidy[0] == pytest.approx(p * 1_000)  # the order placed anyway, redeeming
    assert e.incremental_net_revenue[0] == pytest.approx((w - 1) * 2_500 - w * p * 1_000)
    recorded = _offers([0.25], [0.1], ["UNIT"])  # recorded under the same offer: exactly as recorded
    again = expect(model, offers, np.array([4_000.0]), np.array([1_000.0]), recorded=recorded)
    assert again.orders[0] == pytest.approx(1.0) and again.incremental_orders[0] == pytest.approx(1 - 1 / w)


def test_expect_refuses_arrays_of_another_length() -> None:
    offers = _offers([0.1, 0.2])
    with pytest.raises(ValueError, match="amount has 1 entries, offers has 2"):
        expect(ResponseModel(), offers, np.array([1.0]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="goods has 3 entries"):
        expect(ResponseModel(), offers, np.ones(2), np.ones(2), goods=np.ones(3))
