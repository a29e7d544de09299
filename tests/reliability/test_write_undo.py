"""A write that fails with a bug is undone: the simulator is exactly what it
was before it, and the journal stays the whole truth.

Bugs are planted (`faults.py`) in EVERY write operation of the catalogue,
after the write changed the state: after the operation ran whole, at the
first and the last id it draws, and at the first, a middle and the last
assignment to a record it makes (a redemption of two redeemables: at each
of its ids, so between its children). For each, journaled and not:

- the write raises the bug (over HTTP: 500 `internal_error` in the error shape)
  and the journal has nothing of it (its bytes unchanged);
- the snapshot (secrets, counters and order included) is byte-identical to
  the one before, and the simulator takes writes (no fence);
- the next writes (the same request, then a gift credit) answer exactly what
  a simulator that never received the failing request answers, with its ids;
- a restart from the journal gives exactly the live state.

Also: a write of a webhook receiver (a nested call) failing is undone when
the outer write ends; receivers are not called again by an undo; an advance
whose due work fails is undone; a served simulator (a real `promolab serve
--journal`, the bug planted through a trigger file) answers 500, keeps its
state and restarts to it; and a hypothesis test: random writes with random
planted bugs end exactly as the same writes without the failing ones.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faults import WRITES, InjectedBug, count_effects, planted
from promolab import Simulator
from promolab.http import SimulatorTransport
from promolab.sim.journal import resume_journal
from promolab.sim.operations import BY_NAME
from relsupport import (
    ALICE,
    APP_HEADERS,
    DEMO,
    LOYALTY_HEADERS,
    MANAGEMENT_HEADERS,
    ORDER,
    ROOT,
    Server,
    record_result,
)
from subprocess_helpers import free_port, wait_until_answering

PROJECT = "proj_kestrel"
GIFT = {"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 100}}
RULES = {"redeemables_limit": 10, "applicable_redeemables_limit": 5}


def _redeem_body(*redeemables: dict[str, Any]) -> dict[str, Any]:
    return {"redeemables": list(redeemables), "order": ORDER, "customer": ALICE}


@dataclass(frozen=True)
class Case:
    """One write: what it needs first, its arguments (from what the setup
    answered) and the same request over HTTP (method, path, headers, body)."""

    op: str
    kwargs: Callable[[dict[str, Any]], dict[str, Any]]
    http: Callable[[dict[str, Any]], tuple[str, str, dict[str, str], Any]]
    setup: Callable[[Simulator], dict[str, Any]] = field(default=lambda sim: {})
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.op


def _redeemed(sim: Simulator) -> dict[str, Any]:
    answer = sim.apply(BY_NAME["redeem_stacked"], request=_redeem_body(GIFT)).wire
    parent = answer.get("parent_redemption")
    return {"redemption": parent["id"] if parent else answer["redemptions"][0]["id"]}


def _session(sim: Simulator) -> dict[str, Any]:
    sim.apply(BY_NAME["validate_stacked"], request={**_redeem_body(GIFT), "session": {"type": "LOCK", "key": "ssn_k"}})
    return {}


def _rules(sim: Simulator) -> dict[str, Any]:
    return {"rules": sim.apply(BY_NAME["create_stacking_rules"], project_id=PROJECT, request=RULES).id}


#: Every write operation of the catalogue (`test_the_table_covers_every_write` holds it to that).
EXPORT = {"exported_object": "customer", "parameters": {"fields": ["id", "orders_total_amount"]}}
CASES: tuple[Case, ...] = (
    Case("purchase_reward", lambda c: {"program_id": "lprg_coffee_club", "member_id": "lmbr_alice",
                                       "request": {"reward_id": "lrew_mug"}},
         lambda c: ("POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases",
                    LOYALTY_HEADERS, {"reward_id": "lrew_mug"})),
    Case("delete_reward", lambda c: {"reward_id": "lrew_retired"},
         lambda c: ("DELETE", "/v2/loyalties/rewards/lrew_retired", LOYALTY_HEADERS, None)),
    Case("delete_webhook", lambda c: {"project_id": PROJECT, "webhook_id": "wh_crm"},
         lambda c: ("DELETE", f"/management/v1/projects/{PROJECT}/webhooks/wh_crm", MANAGEMENT_HEADERS, None)),
    Case("publish", lambda c: {"request": {"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "zoe"}}},
         lambda c: ("POST", "/client/v1/publish", APP_HEADERS,
                    {"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "zoe"}})),
    Case("track_event", lambda c: {"request": {"event": "review_written", "customer": ALICE, "metadata": {"rating": 5}}},
         lambda c: ("POST", "/v1/events", APP_HEADERS,
                    {"event": "review_written", "customer": ALICE, "metadata": {"rating": 5}})),
    Case("add_gift_balance", lambda c: {"code": "GIFT-ALICE-50", "request": {"amount": 700}},
         lambda c: ("POST", "/v1/vouchers/GIFT-ALICE-50/balance", APP_HEADERS, {"amount": 700})),
    Case("create_stacking_rules", lambda c: {"project_id": PROJECT, "request": RULES},
         lambda c: ("POST", f"/management/v1/projects/{PROJECT}/stacking-rules", MANAGEMENT_HEADERS, RULES)),
    Case("update_stacking_rules", lambda c: {"project_id": PROJECT, "stacking_rules_id": c["rules"],
                                             "request": {**RULES, "redeemables_limit": 7}},
         lambda c: ("PUT", f"/management/v1/projects/{PROJECT}/stacking-rules/{c['rules']}", MANAGEMENT_HEADERS,
                    {**RULES, "redeemables_limit": 7}), _rules),
    Case("delete_stacking_rules", lambda c: {"project_id": PROJECT, "stacking_rules_id": c["rules"]},
         lambda c: ("DELETE", f"/management/v1/projects/{PROJECT}/stacking-rules/{c['rules']}", MANAGEMENT_HEADERS,
                    None), _rules),
    Case("validate_stacked", lambda c: {"request": {**_redeem_body(GIFT), "session": {"type": "LOCK"}}},
         lambda c: ("POST", "/v1/validations", APP_HEADERS, {**_redeem_body(GIFT), "session": {"type": "LOCK"}})),
    Case("redeem_stacked", lambda c: {"request": _redeem_body(GIFT)},
         lambda c: ("POST", "/v1/redemptions", APP_HEADERS, _redeem_body(GIFT))),
    Case("redeem_stacked", lambda c: {"request": _redeem_body({"object": "voucher", "id": "WELCOME-ALICE"}, GIFT)},
         lambda c: ("POST", "/v1/redemptions", APP_HEADERS,
                    _redeem_body({"object": "voucher", "id": "WELCOME-ALICE"}, GIFT)), label="redeem_stacked-two"),
    Case("rollback_redemption", lambda c: {"redemption_id": c["redemption"], "request": {"reason": "undo test"}},
         lambda c: ("POST", f"/v1/redemptions/{c['redemption']}/rollbacks", APP_HEADERS, {"reason": "undo test"}),
         _redeemed),
    Case("release_session", lambda c: {"code": "GIFT-ALICE-50", "session_key": "ssn_k"},
         lambda c: ("DELETE", "/v1/vouchers/GIFT-ALICE-50/sessions/ssn_k", APP_HEADERS, None), _session),
    Case("create_export", lambda c: {"request": EXPORT},
         lambda c: ("POST", "/v1/exports", APP_HEADERS, EXPORT)),
)
BY_CASE = {case.name: case for case in CASES}


def test_the_table_covers_every_write() -> None:
    assert sorted({case.op for case in CASES}) == sorted(op.name for op in WRITES)


def _image(sim: Simulator) -> str:
    """Everything a restart must reproduce, secrets included, in the simulator's own order."""
    return json.dumps(sim.snapshot())


def _prepared(case: Case, journal: Path | None) -> tuple[Simulator, dict[str, Any]]:
    sim = Simulator.from_scenario(DEMO)
    if journal is not None:
        resume_journal(sim, journal, fsync=False)
    sim.advance(60)
    context = case.setup(sim)
    return sim, context


def _faults(case: Case) -> list[str]:
    """After the whole write, the first and last id, the first, a middle and the last assignment
    (measured on a simulator of its own); for a redemption of two, every id."""
    probe, context = _prepared(case, None)
    ids, sets = count_effects(probe, lambda: probe.apply(BY_NAME[case.op], **case.kwargs(context)))
    id_points = range(1, ids + 1) if case.label == "redeem_stacked-two" else sorted({1, ids}) if ids else []
    set_points = sorted({1, (sets + 1) // 2, sets}) if sets else []
    return ["after", *(f"id:{k}" for k in id_points), *(f"set:{k}" for k in set_points)]


FAULTS = [(case.name, fault) for case in CASES for fault in _faults(case)]


def _follow_up(sim: Simulator, case: Case, context: dict[str, Any]) -> list[str]:
    """The same request again (it may be refused now: the refusal is compared
    too), then a gift credit; their answers as JSON."""
    out = []
    for op, kwargs in ((BY_NAME[case.op], case.kwargs(context)),
                       (BY_NAME["add_gift_balance"], {"code": "GIFT-ALICE-50", "request": {"amount": 3}})):
        try:
            out.append(_answer(sim.apply(op, **kwargs)))
        except Exception as exc:  # noqa: BLE001 - a refusal is an answer to compare
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def _answer(result: Any) -> str:
    wire = getattr(result, "wire", None)
    if wire is not None:
        return json.dumps(wire)
    return "null" if result is None else result.model_dump_json()


def _restarted_image(journal: Path) -> str:
    sim = Simulator.from_scenario(DEMO)
    resume_journal(sim, journal, fsync=False)
    try:
        return _image(sim)
    finally:
        sim.record_to(None)


@pytest.mark.parametrize("journaled", [False, True], ids=["no-journal", "journal"])
@pytest.mark.parametrize(("name", "fault"), FAULTS, ids=[f"{name}-{fault}" for name, fault in FAULTS])
def test_a_write_failing_with_a_bug_is_undone(name: str, fault: str, journaled: bool, tmp_path: Path) -> None:
    case = BY_CASE[name]
    journal = tmp_path / "j.jsonl" if journaled else None
    sim, context = _prepared(case, journal)
    never, _ = _prepared(case, None)
    before = _image(sim)
    assert before == _image(never)
    journaled_before = journal.read_bytes() if journal is not None else b""
    op = BY_NAME[case.op]
    with planted(sim, op, fault), pytest.raises(InjectedBug):
        sim.apply(op, **case.kwargs(context))
    assert _image(sim) == before, f"{name} with {fault} left the state changed"
    if journal is not None:
        assert journal.read_bytes() == journaled_before, "the failed write was journaled"
    assert _follow_up(sim, case, context) == _follow_up(never, case, context)
    assert _image(sim) == _image(never)
    if journal is not None:
        live = _image(sim)
        sim.record_to(None)
        assert _restarted_image(journal) == live


@pytest.mark.parametrize("name", sorted(BY_CASE))
def test_over_http_a_bug_is_a_500_in_the_error_shape_and_changes_nothing(name: str, tmp_path: Path) -> None:
    case = BY_CASE[name]
    sim, context = _prepared(case, tmp_path / "j.jsonl")
    http = httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local")
    before = _image(sim)
    method, path, headers, body = case.http(context)
    with planted(sim, BY_NAME[case.op], "after"):
        response = http.request(method, path, headers=headers, json=body)
    assert response.status_code == 500, response.text
    error = response.json()
    assert error["key"] == "internal_error" and error["code"] == 500 and error.get("request_id")
    assert _image(sim) == before
    again = http.request(method, path, headers=headers, json=body)
    assert again.status_code < 300, again.text
    live = _image(sim)
    sim.record_to(None)
    assert _restarted_image(tmp_path / "j.jsonl") == live


# -- receivers, advances ---------------------------------------------------------------------------
def test_receivers_are_not_called_again_and_their_answers_are_kept(tmp_path: Path) -> None:
    """The demo's gift-credit webhooks go to two in-process receivers: one
    answers 200, one 503 (so a retry is queued). An undo rebuilds their
    outcomes from the log, calling neither."""
    calls: list[str] = []

    def make(name: str, status: int) -> Callable[[Any, bytes], int]:
        def receiver(headers: Any, body: bytes) -> int:
            calls.append(name)
            return status
        return receiver

    sim, never = Simulator.from_scenario(DEMO), Simulator.from_scenario(DEMO)
    for each in (sim, never):
        each.register_receiver("notebook", make("notebook", 200))
        each.register_receiver("crm", make("crm", 503))
        for amount in (5, 6, 7):
            each.apply(BY_NAME["add_gift_balance"], code="GIFT-ALICE-50", request={"amount": amount})
        each.advance(90)  # the crm retries fall due
    before, called = _image(sim), len(calls)
    op = BY_NAME["add_gift_balance"]
    with planted(sim, op, "after"), pytest.raises(InjectedBug):
        sim.apply(op, code="GIFT-ALICE-50", request={"amount": 9})
    assert len(calls) == called, "an undo called a receiver"
    assert _image(sim) == before == _image(never)
    outcomes = {(d.webhook_id, d.outcome) for d in sim.state.webhook_deliveries}
    assert outcomes == {("wh_notebook", "delivered"), ("wh_crm", "failed")}
    assert len(sim.state.pending_deliveries) == 3  # the crm retries, as answered


def test_writes_receivers_made_from_inside_deliveries_are_rebuilt_in_their_place() -> None:
    """A receiver that calls back (a nested write per delivery, journaled and
    logged after the write that caused it) and one failing (retries queued):
    an undo replays the nested writes where they were, without calling the
    receiver, to the very state before the failed write."""
    calls: list[int] = []

    def calling_back(target: Simulator) -> Callable[[Any, bytes], int]:
        def receiver(headers: Any, body: bytes) -> int:
            calls.append(1)
            target.apply(BY_NAME["track_event"],
                         request={"event": "review_written", "customer": ALICE, "metadata": {"rating": 4}})
            return 200
        return receiver

    sim = Simulator.from_scenario(DEMO)
    sim.register_receiver("notebook", calling_back(sim))
    sim.register_receiver("crm", lambda headers, body: 503)
    for amount in (5, 6):
        sim.apply(BY_NAME["add_gift_balance"], code="GIFT-ALICE-50", request={"amount": amount})
    sim.advance(120)
    before, called = _image(sim), len(calls)
    assert len(sim.state.events) >= 2  # the receiver's writes are in the state
    op = BY_NAME["add_gift_balance"]
    with planted(sim, op, "after"), pytest.raises(InjectedBug):
        sim.apply(op, code="GIFT-ALICE-50", request={"amount": 9})
    assert len(calls) == called  # the failed write delivered nothing; the undo called nobody
    assert _image(sim) == before
    assert sim._fault is None


def test_a_failing_write_of_a_receiver_is_undone_when_the_outer_write_ends() -> None:
    """A receiver calls back into the simulator (a nested write) and that
    write fails with a bug: the outer write is answered; then the state is
    the one where the nested write never happened."""
    def calling_back(target: Simulator, fail: bool) -> Callable[[Any, bytes], int]:
        def receiver(headers: Any, body: bytes) -> int:
            op = BY_NAME["track_event"]
            request = {"event": "review_written", "customer": ALICE, "metadata": {"rating": 4}}
            if fail:
                with planted(target, op, "after"):
                    target.apply(op, request=request)  # raises: the receiver fails, the attempt is an error
            return 200
        return receiver

    sim, never = Simulator.from_scenario(DEMO), Simulator.from_scenario(DEMO)
    sim.register_receiver("notebook", calling_back(sim, True))
    never.register_receiver("notebook", lambda headers, body: (_ for _ in ()).throw(InjectedBug("planted: after track_event ran")))
    for each in (sim, never):
        each.register_receiver("crm", lambda headers, body: 200)
    answers = [each.apply(BY_NAME["add_gift_balance"], code="GIFT-ALICE-50", request={"amount": 5}).model_dump_json()
               for each in (sim, never)]
    assert answers[0] == answers[1]
    assert sim._fault is None
    image = json.loads(_image(sim))
    expected = json.loads(_image(never))
    assert image == expected


def test_an_advance_whose_due_work_fails_is_undone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reward purchase settles on an advance; the settlement fails half way."""
    from promolab.sim.loyalty import purchase_settlement

    sim, _ = _prepared(BY_CASE["purchase_reward"], tmp_path / "j.jsonl")
    never, _ = _prepared(BY_CASE["purchase_reward"], None)
    for each in (sim, never):
        each.apply(BY_NAME["purchase_reward"], program_id="lprg_coffee_club", member_id="lmbr_alice",
                   request={"reward_id": "lrew_mug"})
    before = _image(sim)
    real, armed = purchase_settlement.PURCHASES.run_due, [True]

    def failing(target: Simulator, now: Any) -> None:
        real(target, now)
        if armed[0]:
            armed[0] = False
            raise InjectedBug("planted: after the purchases settled")

    monkeypatch.setattr(purchase_settlement.PURCHASES, "run_due", failing)
    with pytest.raises(InjectedBug):
        sim.advance(86400)
    assert _image(sim) == before
    for each in (sim, never):
        each.advance(86400)
    assert _image(sim) == _image(never)
    live = _image(sim)
    sim.record_to(None)
    assert _restarted_image(tmp_path / "j.jsonl") == live


# -- random writes, random bugs ----------------------------------------------------------------------
#: name -> (operation, arguments from a drawn number). Each may be refused
#: (a refusal is compared like an answer); none draws on an earlier answer.
STEPS: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    "gift": ("add_gift_balance", lambda n: {"code": "GIFT-ALICE-50", "request": {"amount": 1 + n % 900}}),
    "publish": ("publish", lambda n: {"request": {"campaign": {"id": "camp_newsletter"},
                                                  "customer": {"source_id": f"c{n % 4}"}}}),
    "event": ("track_event", lambda n: {"request": {"event": "review_written", "customer": ALICE,
                                                    "metadata": {"rating": 1 + n % 5}}}),
    "redeem": ("redeem_stacked", lambda n: {"request": _redeem_body(
        *([{"object": "voucher", "id": "WELCOME-ALICE"}] if n % 3 == 0 else []),
        {"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 1 + n % 50}})}),
    "validate": ("validate_stacked", lambda n: {"request": {**_redeem_body(GIFT), "session": {
        "type": "LOCK", "key": f"ssn_{n % 2}"}}}),
    "release": ("release_session", lambda n: {"code": "GIFT-ALICE-50", "session_key": f"ssn_{n % 2}"}),
    "purchase": ("purchase_reward", lambda n: {"program_id": "lprg_coffee_club", "member_id": "lmbr_alice",
                                               "request": {"reward_id": ("lrew_mug", "lrew_coupon")[n % 2]}}),
    "rules": ("create_stacking_rules", lambda n: {"project_id": PROJECT, "request": {
        "redeemables_limit": 2 + n % 20}}),
    "advance": ("advance", lambda n: {"seconds": (1, 60, 3600, 86400)[n % 4]}),
    "export": ("create_export", lambda n: {"request": {
        "exported_object": ("voucher", "redemption", "customer", "order", "voucher_transactions")[n % 5]}}),
}
FIGURES: dict[str, int] = {"sequences": 0, "writes": 0, "failed": 0}


def _step(sim: Simulator, name: str, n: int) -> str:
    op_name, kwargs = STEPS[name]
    args = kwargs(n)
    try:
        if op_name == "advance":
            return str(sim.advance(args["seconds"]))
        return _answer(sim.apply(BY_NAME[op_name], **args))
    except InjectedBug:
        raise
    except Exception as exc:  # noqa: BLE001 - a refusal is an answer to compare
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(sorted(STEPS)), st.integers(0, 10**6),
                          st.sampled_from([None, None, "after", "id:1", "id:2", "set:1", "set:3"])),
                min_size=1, max_size=25),
       st.booleans())
def test_random_writes_with_random_bugs_end_as_the_same_writes_without_the_failing_ones(
    steps: list[tuple[str, int, str | None]], small_log: bool,
) -> None:
    """`small_log`: checkpoints every few lines (so undos start from one taken mid-sequence)."""
    sim, never = Simulator.from_scenario(DEMO), Simulator.from_scenario(DEMO)
    if small_log:
        sim.write_log.min_lines, sim.write_log.overhead = 3, 1e9
    for name, n, fault in steps:
        op_name = STEPS[name][0]
        FIGURES["writes"] += 1
        if fault is not None and op_name != "advance":
            before = _image(sim)
            try:
                with planted(sim, BY_NAME[op_name], fault):
                    answer = _step(sim, name, n)
            except InjectedBug:
                FIGURES["failed"] += 1
                assert _image(sim) == before, f"{name}({n}) with {fault} left the state changed"
                continue
            # the fault never fired (a refusal came first, or fewer ids/assignments): an ordinary write
            assert answer == _step(never, name, n)
        else:
            assert _step(sim, name, n) == _step(never, name, n)
    assert _image(sim) == _image(never)
    assert sim._fault is None
    FIGURES["sequences"] += 1


def test_zz_report_the_undone_writes() -> None:
    if not FIGURES["sequences"]:
        pytest.skip("the hypothesis test did not run in this process")
    record_result("write_undo", {**FIGURES, "fault_cases": len(FAULTS) * 2, "operations": len(WRITES)})


# -- a real server ---------------------------------------------------------------------------------
def _start_faulty(journal: Path, trigger: Path, log_dir: Path) -> Server:
    """`promolab serve --journal` with the trigger file of `faults.py`."""
    port = free_port()
    args = [sys.executable, str(Path(__file__).with_name("faults.py")), str(trigger), "serve", "--scenario",
            str(DEMO), "--journal", str(journal), "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "critical"]
    log_path = log_dir / f"serve-{port}.log"
    with log_path.open("wb") as log:
        env = {"PYTHONPATH": f"{ROOT / 'src'}:{Path(__file__).parent}", "PYTHONUNBUFFERED": "1",
               "PATH": "/usr/bin:/bin"}
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=str(ROOT), env=env)
    server = Server(f"http://127.0.0.1:{port}", process, log_path, args)
    try:
        wait_until_answering(process, f"{server.base_url}/openapi.json", name="promolab serve (faults)",
                             output=server.log_text, seconds=60, interval=0.05)
    except BaseException:
        server.kill()
        raise
    return server


@pytest.mark.served
def test_a_served_simulator_answers_500_keeps_its_state_and_restarts_to_it(
    tmp_path: Path, server_factory: Any
) -> None:
    """Every write operation in turn, on one `promolab serve --journal`: a
    reset, its setup over HTTP, then the bug (500 `internal_error`, `/_sim/snapshot`
    unchanged), then the same request answered; then a restart (a plain
    `promolab serve` on the same journal) serves exactly that state."""
    journal, trigger = tmp_path / "j.jsonl", tmp_path / "trigger"
    server = _start_faulty(journal, trigger, tmp_path)
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as http:
            snapshot = lambda: http.get("/_sim/snapshot", headers=MANAGEMENT_HEADERS).text
            for case in CASES:
                http.post("/_sim/reset", headers=MANAGEMENT_HEADERS).raise_for_status()  # journaled too
                context = _served_setup(http, case)
                method, path, headers, body = case.http(context)
                before = snapshot()
                trigger.write_text(f"{case.op} after", encoding="utf-8")
                response = http.request(method, path, headers=headers, json=body)
                assert response.status_code == 500, (case.name, response.text)
                assert response.json()["key"] == "internal_error"
                assert not trigger.exists()
                assert snapshot() == before, f"{case.name}: the state changed"
                again = http.request(method, path, headers=headers, json=body)
                assert again.status_code < 300, (case.name, again.text)
            live = snapshot()
    finally:
        server.stop()
    restarted = server_factory(DEMO, journal=journal)
    with httpx.Client(base_url=restarted.base_url, timeout=30) as http:
        assert http.get("/_sim/snapshot", headers=MANAGEMENT_HEADERS).text == live


def _served_setup(http: httpx.Client, case: Case) -> dict[str, Any]:
    """`case.setup`, over HTTP."""
    if case.setup is _redeemed:
        answer = http.post("/v1/redemptions", headers=APP_HEADERS, json=_redeem_body(GIFT)).json()
        parent = answer.get("parent_redemption")
        return {"redemption": parent["id"] if parent else answer["redemptions"][0]["id"]}
    if case.setup is _session:
        http.post("/v1/validations", headers=APP_HEADERS,
                  json={**_redeem_body(GIFT), "session": {"type": "LOCK", "key": "ssn_k"}}).raise_for_status()
        return {}
    if case.setup is _rules:
        answer = http.post(f"/management/v1/projects/{PROJECT}/stacking-rules", headers=MANAGEMENT_HEADERS, json=RULES)
        answer.raise_for_status()
        return {"rules": answer.json()["id"]}
    return {}



def test_when_the_undo_itself_fails_the_simulator_refuses_writes_until_reset(tmp_path: Path) -> None:
    """The one fence left besides a journal the disk refused: a bug that
    strikes the replay too (the rebuild fails: `RebuildFailed`) leaves the
    state as the failed write left it, so writes are refused (503
    `journal_unavailable`) until a reset, restore or restart."""
    from promolab.sim.refusals import JournalUnavailable

    sim, _ = _prepared(BY_CASE["add_gift_balance"], tmp_path / "j.jsonl")
    op = BY_NAME["add_gift_balance"]
    sim.apply(op, code="GIFT-ALICE-50", request={"amount": 1})  # a line the rebuild replays
    real = op.run

    def always_failing(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise InjectedBug("planted: every time")

    object.__setattr__(op, "run", always_failing)
    try:
        with pytest.raises(InjectedBug):
            sim.apply(op, code="GIFT-ALICE-50", request={"amount": 2})
    finally:
        object.__setattr__(op, "run", real)
    with pytest.raises(JournalUnavailable, match=r"could not be undone: line \d+ since the checkpoint failed"):
        sim.apply(op, code="GIFT-ALICE-50", request={"amount": 3})
    sim.reset()
    sim.apply(op, code="GIFT-ALICE-50", request={"amount": 3})
    live = _image(sim)
    sim.record_to(None)
    assert _restarted_image(tmp_path / "j.jsonl") == live


def test_a_write_whose_arguments_cannot_be_copied_is_followed_by_a_checkpoint() -> None:
    """An in-process caller's argument the log cannot pickle (an instance of
    a class local to a function): the log is inexact until the next write,
    which starts with a checkpoint, so that write's failure is undone still."""
    class LocalBody(dict[str, Any]):
        pass

    sim = Simulator.from_scenario(DEMO)
    op = BY_NAME["add_gift_balance"]
    sim.apply(op, code="GIFT-ALICE-50", request=LocalBody(amount=4))
    assert not sim.write_log.exact
    before = _image(sim)
    with planted(sim, op, "after"), pytest.raises(InjectedBug):
        sim.apply(op, code="GIFT-ALICE-50", request={"amount": 5})
    assert sim.write_log.exact and sim._fault is None
    assert _image(sim) == before
