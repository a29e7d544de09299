"""Every time computation is held to what the documents allow: no instant
after 9999-12-31T23:59:59.999Z (RFC 3339's four-digit years, `/openapi.json`'s
`date-time`), and never an `OverflowError`.

Table-driven, each case at a clock where the computation passes the end:

- a session's end (`ttl` x `ttl_unit`, every unit, and the 7-day default):
  400 `invalid_payload` naming `session.ttl`, the snapshot byte-identical,
  and the next write draws the ids of a simulator that never saw the failure;
- a clock advance: over HTTP 400 naming `seconds`; `Simulator.advance` in
  Python raises `TimeOutOfRange` (a `ValueError`, `.field == "seconds"`) for
  1e308, infinity, NaN and an advance past the end; a journal's advance line
  past the end names its line;
- what the simulator schedules itself (a purchase's processing, a webhook
  retry, a redemption's rollback deadline) falls due at the last instant at
  the latest, and runs there;
- validity windows (an expiry at the last instant, days of the week, hourly
  and monthly timeframes) and "days ago / in the future" rule conditions of
  any size are decided on the last day, never a 500.
"""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from promolab import Simulator
from promolab.engine.conditions import OPERATORS
from promolab.http import SimulatorTransport
from promolab.sim.clock import LATEST, TimeOutOfRange, format_instant
from promolab.sim.journal import JournalError, resume_journal
from promolab.sim.scenario import ScenarioError
from promolab.sim.webhooks import MAX_ATTEMPTS
from relsupport import APP_HEADERS, DEMO, LOYALTY_HEADERS, MANAGEMENT_HEADERS

ORDER = {"items": [{"product_id": "prod_mug", "quantity": 2}]}
ALICE = {"source_id": "alice"}
GIFT = [{"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 100}}]


def _at(clock: str, scenario: Any = DEMO) -> Simulator:
    """The scenario with its clock moved to `clock` (a restore, as a client would)."""
    sim = Simulator.from_scenario(scenario) if not isinstance(scenario, dict) else Simulator(scenario=scenario)
    image = sim.snapshot()
    image["clock"] = clock
    sim.load_snapshot(image)
    return sim


def _http(sim: Simulator) -> httpx.Client:
    return httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local")


def _image(sim: Simulator) -> str:
    return json.dumps(sim.snapshot(), sort_keys=True)


# -- sessions ----------------------------------------------------------------------------------------
#: (ttl, ttl_unit, clock): the session would end past the last instant.
SESSIONS = {
    "days-1e6-the-repro": (1_000_000, "DAYS", "8000-01-01T00:00:00.000Z"),
    "days-1": (1, "DAYS", "9999-12-31T00:00:00.001Z"),
    "hours": (1_000_000, "HOURS", "9900-01-01T00:00:00.000Z"),
    "minutes": (1_000_000, "MINUTES", "9999-12-01T00:00:00.000Z"),
    "seconds": (1_000_000, "SECONDS", "9999-12-31T00:00:00.000Z"),
    "milliseconds": (1_000_000, "MILLISECONDS", "9999-12-31T23:50:00.000Z"),
    "microseconds": (1_000_000, "MICROSECONDS", "9999-12-31T23:59:59.500Z"),
    "nanoseconds": (1_000_000, "NANOSECONDS", "9999-12-31T23:59:59.999Z"),
    "the-7-day-default": (None, None, "9999-12-30T00:00:00.000Z"),
}


@pytest.mark.parametrize(("ttl", "unit", "clock"), SESSIONS.values(), ids=SESSIONS.keys())
@pytest.mark.parametrize("key", [None, "ssn_mine"])
def test_a_session_ending_past_the_last_instant_is_a_400_naming_the_ttl_and_changes_nothing(
    ttl: int | None, unit: str | None, clock: str, key: str | None
) -> None:
    sim, untouched = _at(clock), _at(clock)
    session: dict[str, Any] = {"type": "LOCK"}
    session.update({k: v for k, v in (("ttl", ttl), ("ttl_unit", unit), ("key", key)) if v is not None})
    before = _image(sim)
    with _http(sim) as http:
        refused = http.post("/v1/validations", headers=APP_HEADERS,
                            json={"redeemables": GIFT, "order": ORDER, "customer": ALICE, "session": session})
        assert refused.status_code == 400, refused.text
        body = refused.json()
        assert (body["key"], body["code"]) == ("invalid_payload", 400)
        assert body["details"].startswith("session.ttl: ") and "9999-12-31T23:59:59.999Z" in body["details"]
        assert _image(sim) == before
        # the failed write drew no id: the next one gets what it gets on a simulator that never saw it
        request = {"redeemables": GIFT, "order": ORDER, "customer": ALICE}
        with _http(untouched) as other:
            assert http.post("/v1/validations", headers=APP_HEADERS, json=request).json()["id"] == \
                other.post("/v1/validations", headers=APP_HEADERS, json=request).json()["id"]
    assert _image(sim) == _image(untouched)


def test_a_session_ending_at_the_last_instant_is_taken() -> None:
    sim = _at("9999-12-31T23:59:59.998Z")
    with _http(sim) as http:
        done = http.post("/v1/validations", headers=APP_HEADERS, json={
            "redeemables": GIFT, "order": ORDER, "customer": ALICE,
            "session": {"type": "LOCK", "ttl": 1, "ttl_unit": "MILLISECONDS"}})
    assert done.status_code == 200, done.text
    (session,) = sim.state.sessions.values()
    assert format_instant(session.expires_at) == "9999-12-31T23:59:59.999Z"


# -- the clock ---------------------------------------------------------------------------------------
#: (clock, seconds) over HTTP: past the last instant (the body's own bound is 10 years).
HTTP_ADVANCES = {
    "ten-years-from-9991": ("9991-01-01T00:00:00.000Z", 315_360_000),
    "a-second-from-the-last-second": ("9999-12-31T23:59:59.500Z", 1),
    "a-millisecond-from-the-last-instant": ("9999-12-31T23:59:59.999Z", 0.001),
}


@pytest.mark.parametrize(("clock", "seconds"), HTTP_ADVANCES.values(), ids=HTTP_ADVANCES.keys())
def test_an_advance_past_the_last_instant_is_a_400_naming_seconds(clock: str, seconds: float) -> None:
    sim = _at(clock)
    before = _image(sim)
    with _http(sim) as http:
        refused = http.post("/_sim/clock/advance", headers=MANAGEMENT_HEADERS, json={"seconds": seconds})
    assert refused.status_code == 400, refused.text
    assert refused.json()["key"] == "invalid_payload" and refused.json()["details"].startswith("seconds: ")
    assert _image(sim) == before


#: Simulator.advance(by) in Python, from the demo's clock unless said otherwise.
PYTHON_ADVANCES: dict[str, tuple[float | timedelta, str | None]] = {
    "1e308-seconds": (1e308, None),
    "infinity": (math.inf, None),
    "nan": (math.nan, None),
    "max-timedelta": (timedelta.max, None),
    "8000-years": (8000 * 365.25 * 86400, None),
    "one-second-from-the-last": (1, "9999-12-31T23:59:59.500Z"),
    "one-microsecond-from-the-last-instant": (timedelta(microseconds=1), "9999-12-31T23:59:59.999999Z"),
}


@pytest.mark.parametrize(("by", "clock"), PYTHON_ADVANCES.values(), ids=PYTHON_ADVANCES.keys())
@pytest.mark.parametrize("journaled", [False, True])
def test_simulator_advance_past_the_last_instant_raises_time_out_of_range(
    tmp_path: Path, by: float | timedelta, clock: str | None, journaled: bool
) -> None:
    sim = _at(clock) if clock else Simulator.from_scenario(DEMO)
    if journaled:  # the slow path of advance (claims, journals) refuses it the same way
        resume_journal(sim, tmp_path / "j.jsonl", fsync=False)
    before = _image(sim)
    with pytest.raises(TimeOutOfRange) as refused:
        sim.advance(by)
    assert isinstance(refused.value, ValueError) and refused.value.field == "seconds"
    assert str(refused.value).startswith("seconds: ")
    assert _image(sim) == before
    sim.record_to(None)


def test_the_clock_reaches_the_last_instant_and_goes_no_further() -> None:
    sim = _at("9999-12-31T00:00:00.000Z")
    assert sim.advance(LATEST - sim.now) == LATEST
    sim.advance(0)
    with pytest.raises(TimeOutOfRange):
        sim.advance(1e-6)
    with pytest.raises(ValueError, match="only moves forward"):
        sim.advance(-1)


def test_a_journal_advance_past_the_last_instant_names_its_line(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    journal.write_text('{"op":"advance","args":{"seconds":1e300}}\n{"op":"advance","args":{"seconds":1}}\n',
                       encoding="utf-8")
    with pytest.raises(JournalError) as refused:
        resume_journal(Simulator.from_scenario(DEMO), journal, fsync=False)
    assert refused.value.line == 1 and "args.seconds" in refused.value.reason


# -- what the simulator schedules itself -------------------------------------------------------------
def test_a_purchase_near_the_last_instant_is_processed_at_it() -> None:
    sim = _at("9999-12-31T23:59:59.000Z")  # the 2-second processing delay passes the end
    with _http(sim) as http:
        bought = http.post("/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases",
                           headers=LOYALTY_HEADERS, json={"reward_id": "lrew_mug"})
        assert bought.status_code == 202, bought.text
        pending = [(t.type, t.status) for t in sim.state.card_transactions.values()]
        sim.advance(LATEST - sim.now)
    done = [(t.type, t.status) for t in sim.state.card_transactions.values()]
    assert pending[-1][1] != "APPROVED" and done[-1] == ("POINTS_SPENT_ON_REWARD", "APPROVED"), (pending, done)


def test_a_webhook_retry_past_the_last_instant_falls_due_at_it() -> None:
    """The demo's receivers are not registered here: every attempt fails and is retried."""
    sim = _at("9999-12-31T23:59:30.000Z")  # the first retry (1 minute) passes the end
    with _http(sim) as http:
        credited = http.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP_HEADERS, json={"amount": 5})
    assert credited.status_code == 200, credited.text
    assert {p.next_attempt_at for p in sim.state.pending_deliveries} == {LATEST}
    sim.advance(LATEST - sim.now)  # every retry is due at the last instant: they all run there
    assert sim.state.pending_deliveries == []
    attempts = Counter(d.webhook_id for d in sim.state.webhook_deliveries)
    assert attempts == {"wh_notebook": MAX_ATTEMPTS, "wh_crm": MAX_ATTEMPTS}, attempts


def test_a_redemption_near_the_last_instant_can_be_rolled_back() -> None:
    sim = _at("9999-11-30T00:00:00.000Z")  # its 3-month rollback window passes the end
    with _http(sim) as http:
        redeemed = http.post("/v1/redemptions", headers=APP_HEADERS,
                             json={"redeemables": GIFT, "order": ORDER, "customer": ALICE})
        assert redeemed.status_code == 200, redeemed.text
        rid = redeemed.json()["redemptions"][0]["id"]
        sim.advance(LATEST - sim.now)
        rolled = http.post(f"/v1/redemptions/{rid}/rollbacks", headers=APP_HEADERS, json={})
    assert rolled.status_code == 200, rolled.text


def test_a_purchase_delay_no_clock_can_add_is_refused_at_load() -> None:
    document = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    document.setdefault("settings", {})["purchase_delay_seconds"] = 10**20
    with pytest.raises(ScenarioError, match="purchase_delay_seconds"):
        Simulator(scenario=document)


# -- validity windows and day conditions on the last day ---------------------------------------------
def _windows_scenario() -> dict[str, Any]:
    """The demo (its credentials, products, alice) with five campaigns whose
    windows are computed on the last day."""
    end = "9999-12-31T23:59:59.999999Z"
    tier = {"discount": {"type": "AMOUNT", "amount_off": 100}}
    document: dict[str, Any] = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    document["campaigns"] += [
            {"id": "camp_end", "name": "Ends at the end", "expiration_date": end,
             "tiers": [{"id": "promo_end", "name": "end", **tier}]},
            {"id": "camp_days", "name": "Every day", "validity_day_of_week": [0, 1, 2, 3, 4, 5, 6],
             "tiers": [{"id": "promo_days", "name": "days", **tier}]},
            {"id": "camp_hourly", "name": "Hourly", "validity_timeframe": {"interval": "PT1H", "duration": "PT30M"},
             "tiers": [{"id": "promo_hourly", "name": "hourly", **tier}]},
            {"id": "camp_monthly", "name": "Monthly", "start_date": "2026-01-31T00:00:00Z",
             "validity_timeframe": {"interval": "P1M", "duration": "P40D"},
             "tiers": [{"id": "promo_monthly", "name": "monthly", **tier}]},
            {"id": "camp_rules", "name": "Rules", "tiers": [{"id": "promo_rules", "name": "rules", **tier,
             "validation_rules": {"rules": {"1": {"name": "customer.metadata", "property": "joined",
                                                  "conditions": {"$less_than_future": [3]}}}, "logic": "1"}}]},
    ]
    return document


LAST_DAY = ["9999-12-31T00:00:00.000Z", "9999-12-31T12:10:00.000Z", "9999-12-31T23:59:59.999Z"]


@pytest.mark.parametrize("clock", LAST_DAY)
@pytest.mark.parametrize("route", ["/v1/promotions/validation", "/v1/qualifications", "/v1/validations"])
def test_validity_windows_are_decided_on_the_last_day(clock: str, route: str) -> None:
    sim = _at(clock, _windows_scenario())
    body: dict[str, Any] = {"customer": ALICE, "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}}
    if route == "/v1/validations":
        body["redeemables"] = [{"object": "promotion_tier", "id": t} for t in
                               ("promo_end", "promo_days", "promo_hourly", "promo_monthly")]
    with _http(sim) as http:
        answered = http.post(route, headers=APP_HEADERS, json=body)
    assert answered.status_code == 200, answered.text
    if route == "/v1/promotions/validation":
        valid = {p["id"] for p in answered.json()["promotions"]}
        hourly = int(clock[14:16]) < 30
        assert valid >= {"promo_end", "promo_days", "promo_monthly"} | ({"promo_hourly"} if hourly else set())


#: (condition, value's offset from now in days, n): all on the last day of the calendar.
DAY_CONDITIONS = [
    ("$less_than_future", -0.5, 1e12, False), ("$less_than_future", 0.25, 1e12, True),
    ("$less_than_future", 0.25, 3, True), ("$more_than_future", 0.25, 1e12, False),
    ("$is_days_in_future", 0.0, 2, False), ("$more_than_ago", -1, 1e12, False),
    ("$less_than_ago", -1, 1e12, True), ("$is_days_ago", -1, 1, True),
    ("$more_than_ago", -1, -1e12, True), ("$less_than_ago", -1, math.inf, True),
    ("$more_than_future", 0.25, -math.inf, True), ("$less_than_future", 0.25, math.nan, False),
]


@pytest.mark.parametrize(("condition", "offset", "n", "expected"), DAY_CONDITIONS)
def test_day_conditions_of_any_size_are_decided_near_the_last_instant(
    condition: str, offset: float, n: float, expected: bool
) -> None:
    now = datetime(9999, 12, 31, 12, tzinfo=UTC)
    value = format_instant(now + timedelta(days=offset))
    assert OPERATORS[condition](value, [n], now) is expected


def test_the_windows_scenario_is_what_the_cases_say() -> None:
    """The case table's scenario loads, and at an ordinary clock all its tiers apply."""
    sim = _at("2026-03-02T10:10:00.000Z", copy.deepcopy(_windows_scenario()))
    with _http(sim) as http:
        answered = http.post("/v1/promotions/validation", headers=APP_HEADERS, json={
            "customer": ALICE, "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}})
    assert {p["id"] for p in answered.json()["promotions"]} >= {"promo_end", "promo_days", "promo_hourly",
                                                                "promo_monthly"}


# -- the first years: four-digit years on the wire ---------------------------------------------------
@pytest.mark.parametrize(("moment", "text"), [
    (datetime(1, 1, 1, tzinfo=UTC), "0001-01-01T00:00:00.000Z"),
    (datetime(999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), "0999-12-31T23:59:59.999Z"),
    (LATEST, "9999-12-31T23:59:59.999Z"),
    (datetime(2026, 3, 6, 10, 0, 0, 123456, tzinfo=UTC), "2026-03-06T10:00:00.123Z"),
])
def test_format_instant_writes_four_digit_years(moment: datetime, text: str) -> None:
    assert format_instant(moment) == text


def test_writes_on_a_clock_in_year_1_answer_with_timestamps_their_readers_take() -> None:
    """`strftime("%Y")` wrote year 1 as `1`: the answer's model refused it
    after the write was applied (a 500 that changed the state)."""
    sim = _at("0001-01-01T00:00:00.000Z")
    with _http(sim) as http:
        credited = http.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP_HEADERS, json={"amount": 5})
        published = http.post("/client/v1/publish", headers=APP_HEADERS,
                              json={"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "zed"}})
    assert credited.status_code == 200, credited.text
    assert published.status_code == 200, published.text
    assert published.json()["created_at"] == "0001-01-01T00:00:00.000Z"
