"""Pacing, 429s and resuming: every wait is checked as a number the pacer
computed (fake clocks), never by timing the test."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
import pytest

from promolab import Simulator
from promolab.http.app import App
from promolab.http.ratelimit import RateLimiter
from promolab.http.transport import SimulatorTransport
from promolab.shadow import (
    Pace,
    Pacer,
    RateLimited,
    ShadowInputError,
    ShadowInterrupted,
    Target,
    read_cassette,
    shadow,
)
from promolab.shadow.sides import keys_of
from shadow_support import REAL_SEED

Serve = Callable[..., AbstractContextManager[str]]


def validate(source_id: str) -> str:
    return json.dumps({"op": "validate", "args": {"request": {
        "customer": {"source_id": source_id}, "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}}}})


def publish(source_id: str) -> str:
    return json.dumps({"op": "publish", "args": {"request": {
        "campaign": {"id": "camp_newsletter"}, "customer": {"source_id": source_id}}, "join_once": True}})


#: Two reads, then two writes: a run stopped after the reads resumes on a fresh target.
SCRIPT = "\n".join([validate("alice"), validate("bob"), publish("carol"), publish("dave")]) + "\n"


class FakeTime:
    """One clock for the pacer and the server's limiter; sleeping moves it."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_calls_are_spaced_evenly() -> None:
    time = FakeTime()
    pacer = Pacer(Pace(4, 1.0), clock=time, wall=time, sleep=time.sleep)
    for _ in range(3):
        pacer.before_request()
    assert pacer.waits == [("pace", 0.25), ("pace", 0.25)]
    assert Pace().interval == 36.0  # the sandbox's 100 calls an hour


def test_a_429_is_waited_out_and_a_spent_window_is_waited_for(demo_path: Path) -> None:
    time = FakeTime()
    real = Simulator.from_scenario(demo_path, seed=REAL_SEED)
    transport = SimulatorTransport(App(real, rate_limiter=RateLimiter(2, 60, now=time)))
    keys = keys_of(real)
    with httpx.Client(transport=transport, base_url="http://real.local") as other:  # another client spends the window
        for _ in range(2):
            other.get("/_sim/clock", headers=keys.headers("management"))
            other.post("/v1/promotions/validation", json={}, headers=keys.headers("app"))
    pacer = Pacer(Pace(4, 1.0), clock=time, wall=time, sleep=time.sleep)
    target = Target("http://real.local", keys, transport=transport)
    run = shadow(SCRIPT.split("\n")[:2] + [validate("carol")], target=target, scenario=demo_path, pacer=pacer,
                 progress=False)
    assert len(run.report) == 0
    assert [e.real.attempts for e in run.exchanges] == [2, 1, 1]
    # line 1: 429, Retry-After 60 (the window began at the fake clock's start); line 3: the
    # window the retry opened is spent after line 2, so the pacer waits for its end; between
    # them the pace's 0.25 s slots (the fake clock does not move while a request runs)
    held = [(reason, seconds) for reason, seconds in pacer.waits if reason != "pace"]
    assert [reason for reason, _ in held] == ["429", "window"]
    assert held[0][1] == 60 and 59 < held[1][1] <= 60
    assert {seconds for reason, seconds in pacer.waits if reason == "pace"} == {0.25}


def test_the_429s_run_out() -> None:
    time = FakeTime()
    pacer = Pacer(Pace(10, 1.0, retries=2), clock=time, wall=time, sleep=time.sleep)
    assert pacer.after_answer(429, {"retry-after": "3"}, 0) and pacer.after_answer(429, {"retry-after": "3"}, 1)
    with pytest.raises(RateLimited, match="after 2 retries"):
        pacer.after_answer(429, {"retry-after": "3"}, 2)
    with pytest.raises(RateLimited, match="longer than"):
        Pacer(Pace(max_wait=10)).after_answer(429, {"retry-after": "11"}, 0)


@pytest.mark.served
def test_served_rate_limits_stop_a_run_that_resumes_later(serve: Serve, demo_path: Path, tmp_path: Path) -> None:
    keys = keys_of(Simulator.from_scenario(demo_path))
    patient = Pace(1000, 1.0, max_wait=5)  # the served window is a minute: stop rather than wait it out
    with serve(demo_path, "--seed", "99", "--rate-limit", "2") as busy:
        with httpx.Client(base_url=busy) as other:  # another client of the project spends the window
            for _ in range(2):
                assert other.post("/v1/promotions/validation", json={}, headers=keys.headers("app")).status_code == 200
        with pytest.raises(ShadowInterrupted) as stopped:
            shadow(SCRIPT, target=Target(busy, keys), scenario=demo_path, pace=patient, allow_writes=True,
                   progress=False)
        assert stopped.value.line == 1 and "asks to wait" in stopped.value.reason  # the served 429's Retry-After

    cassette = tmp_path / "run.jsonl"
    with serve(demo_path, "--seed", "99", "--rate-limit", "2") as limited, \
            pytest.raises(ShadowInterrupted) as stopped:
        shadow(SCRIPT, target=Target(limited, keys), scenario=demo_path, cassette=cassette, pace=patient,
               allow_writes=True, progress=False)
    # X-Rate-Limit-Remaining: 0 after line 2: the window is spent until X-Rate-Limit-Retry
    assert (stopped.value.line, stopped.value.done) == (3, 2) and "window is spent" in stopped.value.reason
    assert [e.line for e in read_cassette(cassette)[1]] == [1, 2]
    with pytest.raises(ShadowInputError, match="not the script's"):
        shadow(validate("erin") + "\n" + SCRIPT, target=Target(limited, keys), scenario=demo_path,
               cassette=cassette, resume=True, allow_writes=True, progress=False)

    with serve(demo_path, "--seed", "99") as fresh:  # lines 1-2 were reads: a fresh target is where they left it
        run = shadow(SCRIPT, target=Target(fresh, keys), scenario=demo_path, cassette=cassette, resume=True,
                     pace=patient, allow_writes=True, progress=False)
    assert [e.line for e in run.exchanges] == [1, 2, 3, 4] and len(run.report) == 0
    head, exchanges = read_cassette(cassette)
    assert head["target"] == limited and [e.line for e in exchanges] == [1, 2, 3, 4]
