"""The /_sim/ control bodies are read strictly: a JSON number where a number
is asked, no conversion of booleans or digit strings, no body where none is
taken; a refused body is 400 `invalid_payload` and changes nothing."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from demo_keys import MANAGEMENT
from promolab import Simulator
from promolab.http.transport import SimulatorTransport


def _snapshot(sim: Simulator, **changes: Any) -> dict[str, Any]:
    snapshot = copy.deepcopy(sim.snapshot(redact=True))
    snapshot.update(changes)
    return snapshot


#: (route, body builder, what the details say). Each body was accepted before
#: (read as something else) or answered 500.
REFUSED: dict[str, tuple[str, Any, str]] = {
    "advance-true": ("clock/advance", lambda sim: {"seconds": True}, "not a boolean"),
    "advance-false": ("clock/advance", lambda sim: {"seconds": False}, "not a boolean"),
    "advance-digit-string": ("clock/advance", lambda sim: {"seconds": "5"}, "not a string"),
    "advance-decimal-string": ("clock/advance", lambda sim: {"seconds": "0.5"}, "not a string"),
    "advance-null": ("clock/advance", lambda sim: {"seconds": None}, "valid number"),
    "advance-array": ("clock/advance", lambda sim: {"seconds": [5]}, "valid number"),
    "reset-with-fields": ("reset", lambda sim: {"seconds": 5}, "takes no body"),
    "reset-with-array": ("reset", lambda sim: [1], "takes no body"),
    "restore-seed-string": ("restore", lambda sim: _snapshot(sim, seed="7"), "seed must be an integer"),
    "restore-seed-true": ("restore", lambda sim: _snapshot(sim, seed=True), "seed must be an integer"),
    "restore-seed-float": ("restore", lambda sim: _snapshot(sim, seed=7.5), "seed must be an integer"),
    "restore-clock-number": ("restore", lambda sim: _snapshot(sim, clock=1772791200), "clock must be"),
    "restore-clock-text": ("restore", lambda sim: _snapshot(sim, clock="yesterday"), "not an ISO 8601 instant"),
    "restore-clock-naive": ("restore", lambda sim: _snapshot(sim, clock="2026-03-06T10:00:00"), "no timezone"),
    "restore-ids-array": ("restore", lambda sim: _snapshot(sim, ids=[["voucher", 52]]), "ids must be"),
    "restore-ids-string-counter": ("restore", lambda sim: _snapshot(sim, ids={"voucher": "52"}), "ids must be"),
    "restore-ids-negative": ("restore", lambda sim: _snapshot(sim, ids={"voucher": -1}), "ids must be"),
    "restore-unknown-key": ("restore", lambda sim: _snapshot(sim, note="hello"), "unknown keys ['note']"),
    "restore-state-array": ("restore", lambda sim: _snapshot(sim, state=[]), "state must be an object"),
    "restore-missing-ids": ("restore", lambda sim: {k: v for k, v in _snapshot(sim).items() if k != "ids"},
                            "missing ids"),
}


@pytest.mark.parametrize(("route", "body", "needle"), REFUSED.values(), ids=REFUSED.keys())
def test_loose_control_bodies_are_400_and_change_nothing(sim: Simulator, route: str, body: Any, needle: str) -> None:
    sim.advance(90)  # away from the initial state, so a reset slipping through would show
    payload = body(sim)
    before = sim.dump_json()
    with httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local") as http:
        response = http.post(f"/_sim/{route}", headers=MANAGEMENT, json=payload)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["key"] == "invalid_payload" and needle in error["details"], error
    assert sim.dump_json() == before


@pytest.mark.parametrize(
    ("route", "body"),
    [("clock/advance", {"seconds": 5}), ("clock/advance", {"seconds": 0.25}), ("clock/advance", {"seconds": 0}),
     ("reset", None), ("reset", {})],
    ids=["advance-int", "advance-float", "advance-zero", "reset-no-body", "reset-empty-object"],
)
def test_the_plain_bodies_are_still_accepted(sim: Simulator, route: str, body: Any) -> None:
    with httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local") as http:
        response = http.post(f"/_sim/{route}", headers=MANAGEMENT, json=body)
    assert response.status_code == 200, response.text
