"""The simulated clock and the seeded id generator."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promolab import Simulator
from promolab.sim.clock import Clock, format_instant, parse_instant
from promolab.sim.ids import PREFIXES, IdGenerator

# -- clock ------------------------------------------------------------------------


def test_default_start_and_wire_format() -> None:
    sim = Simulator()
    assert sim.now == datetime(2026, 1, 1, tzinfo=UTC)
    assert sim.clock.iso() == "2026-01-01T00:00:00.000Z"


@pytest.mark.parametrize(
    ("by", "expected"),
    [
        (0, "2026-01-01T00:00:00.000Z"),
        (90, "2026-01-01T00:01:30.000Z"),
        (1.5, "2026-01-01T00:00:01.500Z"),
        (timedelta(days=1, milliseconds=7), "2026-01-02T00:00:00.007Z"),
        (timedelta(0), "2026-01-01T00:00:00.000Z"),
    ],
)
def test_advance_accepts_seconds_and_timedelta(by: float | timedelta, expected: str) -> None:
    sim = Simulator()
    returned = sim.advance(by)
    assert returned == sim.now
    assert sim.clock.iso() == expected


@pytest.mark.parametrize("by", [-1, -0.001, timedelta(seconds=-1), timedelta(microseconds=-1)])
def test_advance_only_moves_forward(by: float | timedelta) -> None:
    sim = Simulator()
    sim.advance(10)
    before = sim.dump_json()
    with pytest.raises(ValueError, match="only moves forward"):
        sim.advance(by)
    assert sim.dump_json() == before


@given(st.lists(st.integers(min_value=0, max_value=10**9), max_size=20))
def test_advances_add_up(steps_ms: list[int]) -> None:
    sim = Simulator()
    for ms in steps_ms:
        sim.advance(timedelta(milliseconds=ms))
    assert sim.now == datetime(2026, 1, 1, tzinfo=UTC) + timedelta(milliseconds=sum(steps_ms))


def test_the_clock_does_not_follow_the_wall_clock() -> None:
    import time

    sim = Simulator()
    first = sim.now
    time.sleep(0.01)
    assert sim.now == first


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        ("2026-05-01T12:00:00Z", "2026-05-01T12:00:00.000Z"),
        ("2026-05-01T12:00:00+02:00", "2026-05-01T10:00:00.000Z"),
        ("2026-05-01T12:00:00.123456-01:00", "2026-05-01T13:00:00.123Z"),
        (datetime(2026, 5, 1, 12, tzinfo=timezone(timedelta(hours=-5))), "2026-05-01T17:00:00.000Z"),
    ],
)
def test_start_with_a_timezone_is_normalised_to_utc(start: str | datetime, expected: str) -> None:
    assert Simulator(start=start).clock.iso() == expected


@pytest.mark.parametrize("start", ["2026-05-01T12:00:00", "2026-05-01", datetime(2026, 5, 1, 12)])
def test_start_without_a_timezone_is_refused(start: str | datetime) -> None:
    with pytest.raises(ValueError, match="no timezone"):
        Simulator(start=start)


def test_clock_set_refuses_to_go_back() -> None:
    clock = Clock("2026-01-01T00:00:00Z")
    clock.set("2026-01-02T00:00:00Z")
    with pytest.raises(ValueError, match="cannot move the clock back"):
        clock.set("2026-01-01T23:59:59Z")
    assert clock.iso() == "2026-01-02T00:00:00.000Z"


def test_format_instant_truncates_to_milliseconds() -> None:
    assert format_instant(parse_instant("2026-01-01T00:00:00.999999Z")) == "2026-01-01T00:00:00.999Z"


def test_simulators_have_their_own_clocks() -> None:
    a, b = Simulator(), Simulator()
    a.advance(3600)
    assert b.clock.iso() == "2026-01-01T00:00:00.000Z"


# -- ids --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(PREFIXES))
def test_ids_have_the_interface_format(kind: str) -> None:
    generated = IdGenerator(7).next(kind)
    assert re.fullmatch(re.escape(PREFIXES[kind]) + r"[0-9a-f]{24}", generated), generated


def test_incentive_ids_match_the_interface_pattern() -> None:
    ids = IdGenerator(0)
    assert all(re.fullmatch(r"^linc_[a-f0-9]+$", ids.next("incentive")) for _ in range(100))


@given(st.integers(min_value=-(2**63), max_value=2**63))
def test_ids_are_reproducible_and_distinct(seed: int) -> None:
    a, b = IdGenerator(seed), IdGenerator(seed)
    first = [a.next("reward") for _ in range(50)]
    assert first == [b.next("reward") for _ in range(50)]
    assert len(set(first)) == 50
    assert a.state() == {"reward": 50}


def test_generator_resumes_from_its_state() -> None:
    a = IdGenerator(3)
    for _ in range(5):
        a.next("card")
    a.next("webhook")
    resumed = IdGenerator(3, a.state())
    assert [resumed.next("card"), resumed.next("webhook")] == [a.next("card"), a.next("webhook")]


def test_seeds_and_kinds_do_not_collide() -> None:
    assert IdGenerator(1).next("reward") != IdGenerator(2).next("reward")
    g = IdGenerator(1)
    assert g.next("reward")[5:] != g.next("reward")[5:]
    assert IdGenerator(1).next("reward").removeprefix("lrew_") != IdGenerator(1).next("card").removeprefix("lcrd_")
