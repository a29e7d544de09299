"""Points earned are exact at any size of the number they are computed from,
and a card never passes 2^63-1.

- `incentive_points` floors `x / every` exactly for ints of any size, floats
  and numeric strings (where the decimal division used to raise
  DivisionImpossible past 28 digits), and answers "more than any card holds"
  without expanding an x such as `"1e999999"`.
- Two credits of one event to the same card are counted together.
- `ledger.post` and `ledger.settle` refuse a balance past the bound as a bug.
"""

from __future__ import annotations

import copy
import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.sim.earning.points import incentive_points
from promolab.sim.loyalty import ledger
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.records import EarningRule
from promolab.sim.refusals import SimError

MAX = 2**63 - 1


def _expected(x: Any, every: int, value: int) -> int | None:
    """value * floor(x / every) by exact rational arithmetic; 0 for what is
    not a non-negative finite number; None when past MAX."""
    if isinstance(x, bool) or x is None:
        return 0
    try:
        number = Decimal(str(x).strip())
    except InvalidOperation:
        return 0
    if not number.is_finite() or number < 0:
        return 0
    points = value * math.floor(Fraction(number) / every)
    return points if points <= MAX else None


numbers = st.one_of(
    st.integers(-10, 10**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=True, allow_infinity=True, places=None).map(str),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(0, 10**6), st.integers(-400, 400)),
    st.sampled_from(["", "abc", " 12.5 ", "-0", "1_000", "0x10", "NaN", "-Infinity"]),
)


@pytest.fixture(scope="module")
def demo(_demo_document: dict[str, Any]) -> Simulator:
    """Read only: its incentives."""
    return Simulator.from_scenario(copy.deepcopy(_demo_document))


@settings(max_examples=500, deadline=None)
@given(x=numbers, where=st.sampled_from(["customer", "order"]))
def test_proportional_points_are_exact_at_any_size(demo: Simulator, x: Any, where: str) -> None:
    # linc_0a11ce03: 1 point per 5 of customer metadata `orders`;
    # linc_0a11ce02: 1 point per 100 of the event's metadata `amount`
    if where == "customer":
        every = 5
        got = incentive_points(demo.state.incentives["linc_0a11ce03"], {"orders": x}, {})
    else:
        every = 100
        got = incentive_points(demo.state.incentives["linc_0a11ce02"], {}, {"amount": x})
    expected = _expected(x, every, 1)
    if expected is None:
        assert got > MAX
    else:
        assert got == expected


@pytest.mark.parametrize("x", ["1e999999", "9" * 4000, 10**4000, 1e308, "1E+999999999"],
                         ids=["1e999999", "4000-nines", "10^4000", "1e308", "1E+999999999"])
def test_huge_numbers_are_not_expanded(demo: Simulator, x: Any) -> None:
    incentive = demo.state.incentives["linc_0a11ce03"]
    assert incentive_points(incentive, {"orders": x}, {}) > MAX


def test_credits_of_one_event_to_one_card_are_counted_together(sim: Simulator) -> None:
    """Two rules on `order_placed` crediting Frank's beans card: each credit
    fits, the two together do not; the event is refused, nothing changes."""
    sim.state.earning_rules["lern_order_twice"] = EarningRule(
        id="lern_order_twice", program_id="lprg_coffee_club", event="order_placed", incentive_id="linc_0a11ce02",
    )
    card = sim.state.cards["lcrd_frank_beans"]
    card.balance = MAX - 15
    before = sim.dump_json()
    with pytest.raises(SimError) as info:
        sim.apply(TRACK_EVENT, request={"event": "order_placed", "customer": {"source_id": "frank"},
                                        "metadata": {"amount": 1000}})  # 10 points, twice
    assert (info.value.status, info.value.key) == (400, "invalid_payload")
    assert "lcrd_frank_beans" in info.value.details
    assert sim.dump_json() == before
    sim.apply(TRACK_EVENT, request={"event": "order_placed", "customer": {"source_id": "frank"},
                                    "metadata": {"amount": 700}})  # 7 points, twice: 14 fit
    assert card.balance == MAX - 1


def test_ledger_refuses_a_balance_past_the_bound(sim: Simulator) -> None:
    card = sim.state.cards["lcrd_frank_beans"]
    card.balance = MAX - 5
    assert ledger.fits(card, 5) and not ledger.fits(card, 6)
    with pytest.raises(ValueError, match="cannot take"):
        ledger.post(sim, card, type="POINTS_EARNED", points=6)
    assert card.balance == MAX - 5
    pending = ledger.post(sim, card, type="POINTS_EARNED", points=6, status="PENDING")
    with pytest.raises(ValueError, match="cannot take"):
        ledger.settle(sim, pending, "APPROVED")
    ledger.post(sim, card, type="POINTS_EARNED", points=5)
    assert card.balance == MAX
