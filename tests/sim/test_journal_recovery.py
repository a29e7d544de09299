"""Restarting a served simulator from its journal: damaged tails, headers,
replay errors, and the control calls (reset, restore, advance) journaled.

Everything goes through `build_served_simulator(scenario, journal=...)`,
what `promolab serve --journal` runs at start; a "stop" is `record_to(None)`,
which leaves on disk exactly what a SIGKILL would (every line is written
and fsynced before its write returns). The served versions, with a real
process and SIGKILL, are in tests/reliability/test_journal_crashes.py.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from demo_keys import APP, MANAGEMENT
from promolab import Simulator
from promolab.http.server import build_served_simulator
from promolab.sim.journal import encode_line
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.publishing import PUBLISH

DEMO = Path(__file__).resolve().parents[2] / "data" / "scenarios" / "demo.yaml"
SECRETS = ("kestrel-app-token", "kestrel-access-token", "kestrel-management-token", "kestrel-webhook-secret",
           "kestrel-crm-secret")


def start(journal: Path, scenario: Path = DEMO, seed: int | None = None) -> Simulator:
    sim: Simulator = build_served_simulator(scenario, seed=seed, journal=journal)
    return sim


def stop(sim: Simulator) -> None:
    sim.record_to(None)


def event(sim: Simulator, who: str, rating: int = 5) -> None:
    sim.apply(TRACK_EVENT, request={"event": "review_written", "customer": {"source_id": who},
                                    "metadata": {"rating": rating}})


def three_writes(sim: Simulator) -> None:
    event(sim, "alice")
    sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 250})
    sim.apply(PUBLISH, request={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})


def journal_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def unredacted(sim: Simulator) -> str:
    """The whole state, secrets included (the redacted dump cannot show a lost token)."""
    return json.dumps(sim.snapshot(), sort_keys=True)


# -- 1. a damaged LAST line is cut before anything is appended ------------------------------------
#: (bytes appended after three acknowledged writes). None of them was ever
#: acknowledged: each must be cut, to the byte, and reported with its offset.
DAMAGED_TAILS = {
    "fragment": b'{"at":"2026-03-06T10:00:00.000Z","op":"track_ev',
    "garbage-line": b"GARBAGE\n",
    "garbage-no-newline": b"GARBAGE",
    "nul-4k": b"\0" * 4096,
    "nul-4k-newline": b"\0" * 4096 + b"\n",
    "not-utf8": b"\xff\xfe\xfd\n",
    "wrong-shape": b'["at","op"]\n',
    # a whole, valid line without its end of line: the write it records was
    # never answered (the answer follows the fsync of the line AND its "\n");
    # applying it would also glue the next write onto it
    "valid-line-no-newline": (b'{"at":"2026-03-06T10:00:00.000Z","op":"track_event","args":{"request":'
                              b'{"event":"review_written","customer":{"source_id":"bob"},"metadata":{"rating":1}}}}'),
}


@pytest.mark.parametrize("tail", DAMAGED_TAILS.values(), ids=DAMAGED_TAILS.keys())
def test_a_damaged_last_line_is_cut_and_the_next_start_still_works(
    tmp_path: Path, tail: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    expected = sim.dump_json()
    stop(sim)
    whole = journal.read_bytes()
    journal.write_bytes(whole + tail)

    with caplog.at_level(logging.INFO, logger="promolab.serve"):
        restarted = start(journal)
    assert restarted.dump_json() == expected
    assert journal.read_bytes() == whole, "the damaged tail must be cut from the file before anything is appended"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(f"cut {len(tail)} bytes at byte offset {len(whole)}" in w for w in warnings), warnings

    event(restarted, "bob", 2)  # appended at the cut, as a line of its own
    expected = restarted.dump_json()
    stop(restarted)
    again = start(journal)
    assert again.dump_json() == expected
    stop(again)
    assert journal.read_bytes().startswith(whole) and journal.read_bytes().endswith(b"\n")


def test_blanks_after_the_last_line_are_cut_and_blank_lines_are_kept(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    expected = sim.dump_json()
    stop(sim)
    whole = journal.read_bytes() + b"\n  \n"
    journal.write_bytes(whole + b"  ")
    restarted = start(journal)
    assert restarted.dump_json() == expected
    assert journal.read_bytes() == whole


def _insert(lines: list[bytes], at: int, extra: bytes) -> bytes:
    return b"".join(lines[:at]) + extra + b"".join(lines[at:])


#: (damaged journal from the lines of a clean one: a header and three
#: writes, 1-based line number reported).
DAMAGE_BEFORE_THE_LAST_LINE: dict[str, tuple[Callable[[list[bytes]], bytes], int]] = {
    "garbage-line": (lambda ls: _insert(ls, 2, b"GARBAGE\n"), 3),
    "torn-line-then-more": (lambda ls: b"".join(ls[:2]) + ls[2][:30] + b"\n" + b"".join(ls[3:]), 3),
    "nul-line": (lambda ls: _insert(ls, 3, b"\0" * 4096 + b"\n"), 4),
    "not-utf8": (lambda ls: _insert(ls, 1, b"\xff\n"), 2),
    "damaged-line-then-fragment": (lambda ls: b"".join(ls) + b"GARBAGE\n" + b'{"at":"2026', 5),
    "two-journals-joined": (lambda ls: b"".join(ls) + b"".join(ls), 5),
}


@pytest.mark.parametrize(("damage", "line"), DAMAGE_BEFORE_THE_LAST_LINE.values(),
                         ids=DAMAGE_BEFORE_THE_LAST_LINE.keys())
def test_damage_before_the_last_line_refuses_to_start_and_changes_nothing(
    tmp_path: Path, damage: Callable[[list[bytes]], bytes], line: int
) -> None:
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    stop(sim)
    damaged = damage(journal.read_bytes().splitlines(keepends=True))
    journal.write_bytes(damaged)
    with pytest.raises(ValueError) as refused:
        start(journal)
    assert getattr(refused.value, "line", None) == line, str(refused.value)
    assert f"j.jsonl:{line}:" in str(refused.value)
    assert journal.read_bytes() == damaged


# -- 3. the header: format version, scenario fingerprint, seed -------------------------------------
def test_a_new_journal_begins_with_a_header_naming_format_scenario_and_seed(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    event(sim, "alice")
    stop(sim)
    header, first = journal_lines(journal)
    assert header["op"] == "journal" and "at" not in header
    assert header["args"]["version"] == "promolab.journal/3"
    assert header["args"]["seed"] == 7  # the demo scenario's seed
    assert header["args"]["scenario"].startswith("sha256:") and len(header["args"]["scenario"]) == 7 + 64
    assert first["op"] == "track_event" and first["seq"] == 1 and "seq" not in header


def _variant(tmp_path: Path, name: str, change: Callable[[dict[str, Any]], None], as_json: bool = False) -> Path:
    document = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    change(document)
    path = tmp_path / f"{name}.{'json' if as_json else 'yaml'}"
    path.write_text(json.dumps(document, indent=1) if as_json else yaml.safe_dump(document), encoding="utf-8")
    return path


def _renamed_customer(document: dict[str, Any]) -> None:
    """Another scenario: the same but for one customer's name."""
    document["customers"][0]["name"] = "Someone Else"


@pytest.mark.parametrize(
    ("scenario", "seed", "needle"),
    [
        (lambda tmp: _variant(tmp, "priced", _renamed_customer), None, "another scenario"),
        (lambda tmp: DEMO, 8, "seed 7, this simulator has seed 8"),
        (lambda tmp: _variant(tmp, "seeded", lambda d: d.update(seed=8)), None, "seed 7, this simulator has seed 8"),
    ],
    ids=["other-scenario", "other-seed-option", "other-seed-in-scenario"],
)
def test_a_journal_of_another_scenario_or_seed_is_refused(
    tmp_path: Path, scenario: Callable[[Path], Path], seed: int | None, needle: str
) -> None:
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    stop(sim)
    before = journal.read_bytes()
    with pytest.raises(ValueError) as refused:
        start(journal, scenario(tmp_path), seed)
    assert needle in str(refused.value) and getattr(refused.value, "line", None) == 1
    assert journal.read_bytes() == before


def test_the_same_scenario_written_differently_is_the_same_scenario(tmp_path: Path) -> None:
    """The fingerprint is of the scenario as loaded: reformatting the file
    (YAML to JSON, key order, comments) does not refuse the journal."""
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    expected = sim.dump_json()
    stop(sim)
    assert start(journal, _variant(tmp_path, "same", lambda d: None, as_json=True)).dump_json() == expected


def test_a_journal_without_header_is_replayed_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Journals written before headers existed (format 1) still restart."""
    journal = tmp_path / "j.jsonl"
    old = Simulator.from_scenario(DEMO)
    old.record_to(journal)
    three_writes(old)
    old.record_to(None)
    with caplog.at_level(logging.INFO, logger="promolab.serve"):
        restarted = start(journal)
    assert restarted.dump_json() == old.dump_json()
    assert any("has no header" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)
    event(restarted, "bob")
    stop(restarted)
    assert [line["op"] for line in journal_lines(journal)] == ["track_event", "add_gift_balance", "publish",
                                                               "track_event"]


@pytest.mark.parametrize(
    ("header", "needle"),
    [
        ({"op": "journal", "args": {"version": "promolab.journal/9", "scenario": "sha256:0", "seed": 7}},
         "journal format 'promolab.journal/9'"),
        ({"op": "journal", "args": {}}, "journal format None"),
        ({"op": "journal", "args": {"version": "promolab.journal/2", "scenario": "sha256:0", "seed": "7"}},
         "seed must be an integer"),
    ],
    ids=["future-version", "empty", "seed-as-text"],
)
def test_a_header_this_promolab_cannot_read_is_refused(tmp_path: Path, header: dict[str, Any], needle: str) -> None:
    journal = tmp_path / "j.jsonl"
    journal.write_text(json.dumps(header) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="j.jsonl:1: ") as refused:
        start(journal)
    assert needle in str(refused.value)


def test_replay_reads_a_served_journal_and_checks_its_header(tmp_path: Path) -> None:
    """The journal format is the replay format: `replay` takes a served
    journal, header included (a line of its own that changes nothing), and
    refuses the header on another scenario."""
    from promolab.replay import replay

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    sim.advance(600)
    stop(sim)

    fresh = Simulator.from_scenario(DEMO)
    result = replay(fresh, journal, refused="error")
    assert result.ok and fresh.dump_json() == sim.dump_json()
    assert list(result.timeline["op"].astype(str))[:2] == ["journal", "track_event"]

    other = Simulator.from_scenario(_variant(tmp_path, "priced", _renamed_customer))
    mismatch = replay(other, journal)
    assert mismatch.errors[0].line == 1 and mismatch.errors[0].key == "journal_mismatch"


# -- 4. a line that cannot be replayed names itself ------------------------------------------------
GOOD = '{"at":"2026-03-06T10:00:00.000Z","op":"add_gift_balance","args":{"code":"GIFT-ALICE-50","request":{"amount":5}}}'
#: (line 2 of a three-line journal, what the error must say).
BAD_LINES = {
    "bad-instant": ('{"at":"yesterday","op":"advance","args":{"seconds":1}}', "not an ISO 8601 instant"),
    "naive-instant": ('{"at":"2026-03-06T10:00:00","op":"advance","args":{"seconds":1}}', "has no timezone"),
    "refused": ('{"op":"delete_reward","args":{"reward_id":"lrew_nope"}}', "refused on replay (404 not_found"),
    "unknown-operation": ('{"op":"frobnicate","args":{}}', "unknown operation 'frobnicate'"),
    "unknown-argument": ('{"op":"delete_reward","args":{"reward":"lrew_retired"}}', "args do not fit delete_reward"),
    "missing-argument": ('{"op":"delete_reward","args":{}}', "args do not fit delete_reward"),
    "negative-advance": ('{"op":"advance","args":{"seconds":-5}}', "advance needs args.seconds >= 0"),
    "bad-snapshot": ('{"op":"restore","args":{"snapshot":{"format":"x"}}}', "not a promolab snapshot"),
}


@pytest.mark.parametrize(("bad", "needle"), BAD_LINES.values(), ids=BAD_LINES.keys())
def test_a_line_that_cannot_be_replayed_names_its_line_and_reason(tmp_path: Path, bad: str, needle: str) -> None:
    journal = tmp_path / "j.jsonl"
    content = f"{GOOD}\n{bad}\n{GOOD}\n".encode()
    journal.write_bytes(content)
    with pytest.raises(ValueError) as refused:
        start(journal)
    assert getattr(refused.value, "line", None) == 2
    assert str(refused.value).startswith(f"{journal}:2: ") and needle in str(refused.value), str(refused.value)
    assert journal.read_bytes() == content


# -- 2. reset, restore and advance are journaled --------------------------------------------------
def _publish(client: Any, who: str) -> str:
    response = client.post("/client/v1/publish", headers=APP,
                           json={"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": who}})
    assert response.status_code == 200, response.text
    return str(response.json()["voucher"]["code"])


def _event(client: Any, name: str, who: str = "alice") -> None:
    response = client.post("/v1/events", headers=APP, json={"event": "review_written", "customer": {"source_id": who},
                                                           "metadata": {"rating": 4, "tag": name}})
    assert response.status_code == 200, response.text


def _control(client: Any, path: str, body: Any = None) -> Any:
    response = client.post(f"/_sim/{path}", headers=MANAGEMENT, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _snapshot(client: Any) -> Any:
    return client.get("/_sim/snapshot", headers=MANAGEMENT).json()


def _issue_sequence(client: Any) -> None:
    """The issue's sequence: what custB was answered must stay custB's."""
    _publish(client, "custA")
    _event(client, "e1")
    _control(client, "clock/advance", {"seconds": 3600})
    _control(client, "reset")
    _publish(client, "custB")
    _event(client, "e2")


def _restore_redacted(client: Any) -> None:
    _event(client, "e1")
    snapshot = _snapshot(client)
    _publish(client, "custA")
    _control(client, "clock/advance", {"seconds": 90.25})
    _control(client, "restore", snapshot)
    _publish(client, "custB")


def _restore_with_secrets_in_clear(client: Any, sim: Simulator) -> None:
    snapshot = sim.snapshot()  # secrets in clear, the running ones: the journal still needs none of them
    _publish(client, "custA")
    _control(client, "restore", snapshot)
    _event(client, "e2")


def _restore_with_a_new_token(client: Any, sim: Simulator) -> None:
    snapshot = sim.snapshot()
    snapshot["state"]["webhooks"]["wh_crm"]["secret"] = "rotated-crm-secret"
    _control(client, "restore", snapshot)
    client.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP, json={"amount": 5})


def _reset_twice_and_advance(client: Any) -> None:
    _control(client, "clock/advance", {"seconds": 7200})
    _event(client, "e1")
    _control(client, "reset")
    _control(client, "clock/advance", {"seconds": 30})
    _control(client, "reset")
    _control(client, "clock/advance", {"seconds": 0.5})
    _event(client, "e2")


CONTROL_SCRIPTS: dict[str, Callable[[Any, Simulator], None]] = {
    "issue-reset": lambda client, sim: _issue_sequence(client),
    "restore-redacted": lambda client, sim: _restore_redacted(client),
    "restore-secrets-in-clear": _restore_with_secrets_in_clear,
    "restore-new-webhook-secret": _restore_with_a_new_token,
    "reset-twice-and-advances": lambda client, sim: _reset_twice_and_advance(client),
}


@pytest.mark.parametrize("script", CONTROL_SCRIPTS.values(), ids=CONTROL_SCRIPTS.keys())
def test_control_calls_are_journaled_and_a_restart_reproduces_the_state(
    tmp_path: Path, script: Callable[[Any, Simulator], None]
) -> None:
    import httpx

    from promolab.http.transport import SimulatorTransport

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    with httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local") as client:
        script(client, sim)
    expected, secrets = sim.dump_json(), unredacted(sim)
    stop(sim)
    restarted = start(journal)
    assert restarted.dump_json() == expected
    assert unredacted(restarted) == secrets
    stop(restarted)
    assert start(journal).dump_json() == expected  # and again: the restart journaled nothing twice


def test_the_issue_sequence_restarts_with_custb_holding_its_code(tmp_path: Path) -> None:
    import httpx

    from promolab.http.transport import SimulatorTransport

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    with httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local") as client:
        _publish(client, "custA")
        _event(client, "e1")
        _control(client, "clock/advance", {"seconds": 3600})
        _control(client, "reset")
        code = _publish(client, "custB")
        _event(client, "e2")
    stop(sim)
    restarted = start(journal)
    state = restarted.dump()["state"]
    assert [e["metadata"]["tag"] for e in state["events"].values()] == ["e2"]
    assert restarted.clock.iso() == "2026-03-06T10:00:00.000Z"
    codes = {v["id"]: v["code"] for v in state["vouchers"].values()}
    holders = {codes[p["voucher_id"]]: p["tracking_id"] for p in state["publications"].values()}
    assert holders == {code: "custB"}


def test_restore_lines_hold_no_secret_the_running_project_already_has(tmp_path: Path) -> None:
    """A redacted snapshot, or one whose secrets are the running ones, is
    journaled with the redaction marker: the journal holds no token."""
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    sim.load_snapshot(sim.snapshot(redact=True), keep_secrets=True)
    sim.load_snapshot(sim.snapshot(), keep_secrets=True)
    sim.load_snapshot(sim.snapshot())
    stop(sim)
    text = journal.read_text(encoding="utf-8")
    assert [line["op"] for line in journal_lines(journal)][1:] == ["restore", "restore", "restore"]
    assert not [secret for secret in SECRETS if secret in text]


def test_an_in_process_restore_of_redacted_secrets_without_keeping_them_restarts_the_same(tmp_path: Path) -> None:
    """The one restore the marker cannot stand for (the state takes the
    marker itself as its token): journaled in clear, reproduced exactly."""
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    sim.load_snapshot(sim.snapshot(redact=True))
    secrets = unredacted(sim)
    stop(sim)
    assert unredacted(start(journal)) == secrets


# -- the durability promise: line written and fsynced before the answer ----------------------------
def test_control_writes_are_fsynced_before_their_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import httpx

    from promolab.http.app import App
    from promolab.http.transport import SimulatorTransport

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    snapshot = sim.snapshot(redact=True)
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    app = App(sim)
    seen: list[tuple[int, int, int]] = []
    original = app.handle

    def observing(request: Any) -> Any:
        response = original(request)
        seen.append((response.status, journal.read_bytes().count(b"\n"), len(synced)))
        return response

    app.handle = observing  # type: ignore[method-assign]  # a spy wrapped around the real handler
    with httpx.Client(transport=SimulatorTransport(app), base_url="http://promolab.local") as client:
        calls = [("clock/advance", {"seconds": 60}), ("clock/advance", {"seconds": True}), ("reset", None),
                 ("restore", snapshot), ("restore", {**snapshot, "seed": "7"}), ("reset", {"to": "then"})]
        for path, body in calls:
            client.post(f"/_sim/{path}", headers=MANAGEMENT, json=body)
    # header = line 1; then one line and one fsync per accepted call, before its answer; none for refusals
    assert [status for status, _, _ in seen] == [200, 400, 200, 200, 400, 400]
    assert [lines for _, lines, _ in seen] == [2, 2, 3, 4, 4, 4]
    assert [syncs for _, _, syncs in seen] == [1, 1, 2, 3, 3, 3]


class _FailingJournal:
    """A journal whose disk is full."""

    last_at = None

    def record(self, at: Any, op: str, args: dict[str, Any]) -> None:
        raise OSError(28, "No space left on device")

    def encode(self, at: str, op: str, args: dict[str, Any]) -> str:
        return encode_line(at, op, args, 1)

    def write(self, line: str, at: Any) -> None:
        raise OSError(28, "No space left on device")

    def close(self) -> None:
        pass


@pytest.mark.parametrize("call", ["reset", "restore"])
def test_a_reset_or_restore_the_journal_cannot_take_is_undone_and_refused(sim: Simulator, call: str) -> None:
    from promolab.sim.refusals import JournalUnavailable

    snapshot = sim.snapshot(redact=True)
    sim.advance(3600)
    event(sim, "alice")
    before = unredacted(sim)
    sim._journal = _FailingJournal()  # type: ignore[assignment]  # a fake journal: the disk refuses
    with pytest.raises(JournalUnavailable):
        if call == "reset":
            sim.reset()
        else:
            sim.load_snapshot(snapshot, keep_secrets=True)
    assert unredacted(sim) == before
    with pytest.raises(JournalUnavailable):  # and, as for any write the journal lost, no more writes
        event(sim, "bob")


def test_replay_journal_refuses_a_header_and_skips_a_torn_tail_without_changing_the_file(tmp_path: Path) -> None:
    """`replay_journal` (kept for callers of the previous version) checks the
    same things as a start but never writes."""
    from promolab.sim.journal import replay_journal

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    stop(sim)
    content = journal.read_bytes() + b'{"at":"2026'
    journal.write_bytes(content)
    fresh = Simulator.from_scenario(DEMO)
    assert replay_journal(fresh, journal) == 3 and fresh.dump_json() == sim.dump_json()
    assert journal.read_bytes() == content
    with pytest.raises(ValueError, match="seed 7, this simulator has seed 1"):
        replay_journal(Simulator.from_scenario(copy.deepcopy(yaml.safe_load(DEMO.read_text())), seed=1), journal)


@pytest.mark.parametrize("script", CONTROL_SCRIPTS.values(), ids=CONTROL_SCRIPTS.keys())
def test_replay_reads_a_journal_with_control_lines_as_a_restart_does(
    tmp_path: Path, script: Callable[[Any, Simulator], None]
) -> None:
    """The journal format is the replay format: `promolab.replay` of a served
    journal holding reset/restore lines ends in the state a restart rebuilds,
    and its timeline follows the balances across the swaps."""
    import httpx

    from promolab.http.transport import SimulatorTransport
    from promolab.replay import replay

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    with httpx.Client(transport=SimulatorTransport(sim), base_url="http://promolab.local") as client:
        script(client, sim)
    expected = sim.dump_json()
    stop(sim)
    fresh = Simulator.from_scenario(DEMO)
    result = replay(fresh, journal)
    assert fresh.dump_json() == expected
    assert result.refused == 0 and not result.errors
    # the balance table ends on the state's balances, whatever swaps happened on the way
    last = result.balances.groupby("account")["balance"].last()
    for card in fresh.state.cards.values():
        assert last[card.id] == card.balance
    for voucher in fresh.state.vouchers.values():
        if voucher.gift is not None and voucher.code in last.index:
            assert last[voucher.code] == voucher.gift.balance


# -- the lock: one server per journal file ---------------------------------------------------------
def test_a_second_journal_on_the_same_file_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    """Two `Journal`s on one path, in one process (a `flock` belongs to the
    open file, so this is what a second process meets too)."""
    from promolab.sim.journal import Journal, JournalError

    path = tmp_path / "j.jsonl"
    first = Journal(path, header='{"op":"journal","args":{}}')
    before = path.read_bytes()
    with pytest.raises(JournalError, match="in use") as refused:
        Journal(path, header='{"op":"journal","args":{}}')
    assert refused.value.path == path and refused.value.line is None
    assert str(refused.value).startswith(f"{path}: ")
    assert path.read_bytes() == before
    first.write('{"op":"advance","args":{"seconds":1}}', None)  # the holder still writes
    first.close()  # releases the lock
    second = Journal(path)
    second.close()


def test_a_second_start_on_a_journal_in_use_is_refused_before_it_reads_cuts_or_appends(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    # a fragment after the last line, as if the holder had died mid-write: a
    # second start that got in would cut it (and then append a header or its
    # writes to a file the first server still appends to)
    with journal.open("ab") as handle:
        handle.write(b'{"at":"2026-03-06T10:00:00.000Z","op":"track_ev')
    before = journal.read_bytes()
    with pytest.raises(ValueError, match=r"j\.jsonl: in use: another promolab serve") as refused:
        start(journal)
    assert getattr(refused.value, "line", "missing") is None
    assert journal.read_bytes() == before
    stop(sim)


@pytest.mark.parametrize("how", ["record_to(None)", "dropped", "start-refused"])
def test_the_lock_is_released_when_the_journal_closes_and_when_a_start_fails(tmp_path: Path, how: str) -> None:
    import gc

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    three_writes(sim)
    expected = sim.dump_json()
    if how == "record_to(None)":
        stop(sim)
    elif how == "dropped":  # let go of without stopping: the journal closes with it
        del sim
        gc.collect()
    else:
        stop(sim)
        with pytest.raises(ValueError, match="seed 7, this simulator has seed 8"):
            start(journal, seed=8)  # took the lock, read, refused: the lock goes with the refusal
    restarted = start(journal)
    assert restarted.dump_json() == expected
    stop(restarted)


def test_a_simulator_recording_to_a_file_cannot_open_it_twice(tmp_path: Path) -> None:
    """`record_to` the file it already journals to is refused, and the
    journal it has keeps working (the new one is opened before the old one
    is closed)."""
    from promolab.sim.journal import JournalError

    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    with pytest.raises(JournalError, match="in use"):
        sim.record_to(journal)
    event(sim, "alice")
    expected = sim.dump_json()
    stop(sim)
    assert start(journal).dump_json() == expected


# -- 6. line numbers: a line written twice, lost or moved is refused -------------------------------
def _gift(sim: Simulator, amount: int) -> None:
    sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": amount})


def _numbered_journal(tmp_path: Path) -> tuple[Path, list[bytes], str]:
    """A header and five gift credits (numbered 1-5); the state they answered."""
    journal = tmp_path / "j.jsonl"
    sim = start(journal)
    for amount in (1000, 7, 13, 2002, 1000):
        _gift(sim, amount)
    answered = sim.dump_json()
    stop(sim)
    return journal, journal.read_bytes().splitlines(keepends=True), answered


#: name -> (the damaged journal from [header, w1..w5], the line reported, what it says).
#: The issue's case first: a gift credit's line written twice in the middle
#: was replayed twice (a balance acknowledged as 4022 came back as 4015).
OUT_OF_SEQUENCE: dict[str, tuple[Callable[[list[bytes]], bytes], int, str]] = {
    "line-written-twice-in-the-middle": (lambda ls: _insert(ls, 3, ls[2]), 4, "numbered 2: a line written twice"),
    "last-line-written-twice": (lambda ls: b"".join(ls) + ls[-1], 7, "numbered 5: a line written twice"),
    "line-missing": (lambda ls: b"".join(ls[:3] + ls[4:]), 4, "numbered 4: a line is missing before it"),
    "two-lines-missing": (lambda ls: b"".join(ls[:2] + ls[4:]), 3, "numbered 4: lines are missing"),
    "first-line-missing": (lambda ls: b"".join(ls[:1] + ls[2:]), 2, "numbered 2: a line is missing"),
    "two-lines-swapped": (lambda ls: b"".join(ls[:2] + [ls[3], ls[2]] + ls[4:]), 3, "numbered 3: a line is missing"),
    "line-moved-to-the-end": (lambda ls: b"".join(ls[:2] + ls[3:] + [ls[2]]), 3, "numbered 3: a line is missing"),
    "number-removed": (lambda ls: _insert(ls[:3] + ls[4:], 3, re.sub(rb'"seq":\d+,', b"", ls[3])), 4,
                       "has no sequence number"),
}


@pytest.mark.parametrize(("damage", "line", "needle"), OUT_OF_SEQUENCE.values(), ids=OUT_OF_SEQUENCE.keys())
def test_a_duplicated_missing_or_reordered_line_refuses_to_start_and_changes_nothing(
    tmp_path: Path, damage: Callable[[list[bytes]], bytes], line: int, needle: str
) -> None:
    journal, lines, _ = _numbered_journal(tmp_path)
    assert [json.loads(raw).get("seq") for raw in lines] == [None, 1, 2, 3, 4, 5]
    damaged = damage(lines)
    journal.write_bytes(damaged)
    with pytest.raises(ValueError) as refused:
        start(journal)
    assert getattr(refused.value, "line", None) == line, str(refused.value)
    message = str(refused.value)
    assert f"j.jsonl:{line}: this line " in message and needle in message, message
    assert "duplicated, missing or reordered" in message
    assert journal.read_bytes() == damaged


def test_a_numbered_journal_goes_on_numbering_after_a_restart_and_a_cut_tail(tmp_path: Path) -> None:
    journal, lines, answered = _numbered_journal(tmp_path)
    journal.write_bytes(b"".join(lines) + b'{"seq":6,"at":"2026')  # torn: never acknowledged, cut
    sim = start(journal)
    assert sim.dump_json() == answered
    _gift(sim, 1)
    stop(sim)
    assert [line.get("seq") for line in journal_lines(journal)] == [None, 1, 2, 3, 4, 5, 6]
    assert start(journal).dump_json() != answered  # the sixth credit is replayed once


def test_a_format_2_journal_is_replayed_and_continued_without_numbers(tmp_path: Path) -> None:
    """A journal written by the previous promolab (header version 2, lines
    without numbers) still starts, and goes on in its own format."""
    journal, lines, answered = _numbered_journal(tmp_path)
    header = json.loads(lines[0])
    header["args"]["version"] = "promolab.journal/2"
    old = [json.dumps(header).encode() + b"\n"] + [re.sub(rb'"seq":\d+,', b"", raw) for raw in lines[1:]]
    journal.write_bytes(b"".join(old))
    sim = start(journal)
    assert sim.dump_json() == answered
    _gift(sim, 1)
    stop(sim)
    assert all("seq" not in line for line in journal_lines(journal))
    numbered = re.sub(rb'"at"', b'"seq":9,"at"', old[2], count=1)
    journal.write_bytes(b"".join(old[:2]) + numbered + b"".join(old[3:]))
    with pytest.raises(ValueError, match="numbers no lines"):
        start(journal)
