"""The journal of `promolab serve --journal`, against a real process and SIGKILL.

- A damaged tail (a torn line, `GARBAGE`, 4 KB of NUL bytes) is cut at the
  next start, reported with its byte offset, and the start after that works.
- Reset, restore and clock advances are journaled: a restart reproduces the
  state the clients were answered from (the issue's reset sequence).
- A journal that must not be started from (another scenario or seed, damage
  before the last line, a line that cannot be replayed, a line written
  twice, missing or out of order) is exit status 2 with one line on stderr
  naming the line and the reason, never a traceback.
- Crash injection: a seeded client (events, gift credits, publications,
  purchases, stacked validations holding LOCK sessions, redemptions spending
  them, rollbacks, session releases, advances, resets, snapshots, restores)
  drives one served simulator while it is SIGKILLed at random (seeded) moments (under load, before its first
  request, and in the middle of its own restart), a damaged tail is planted
  after every kill, and after each of the two restarts of every round the
  served state must equal an in-process simulator that was given exactly
  the acknowledged requests (plus, possibly, the one whose answer was lost
  with the process): every acknowledged write survives every later
  restart. Every answer is also compared with that simulator's answer to
  the same request.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from promolab import Simulator
from promolab.http.transport import SimulatorTransport
from relsupport import (
    APP_HEADERS,
    DEMO,
    LOYALTY_HEADERS,
    MANAGEMENT_HEADERS,
    ROOT,
    Server,
    ServerFactory,
    record_result,
    summary_line,
)
from subprocess_helpers import free_port

pytestmark = [pytest.mark.served, pytest.mark.timeout(300)]

#: Rounds of the crash-injection test (each: a load cut by SIGKILL and two
#: restarts), bounded in count and in time: no new round starts after
#: `BUDGET` seconds once `MIN_ROUNDS` are done (a restart is a new Python
#: process: about 1 s on an idle 2-CPU machine, 3-4 s on a busy one).
ROUNDS = int(os.environ.get("PROMOLAB_CRASH_ROUNDS", "10"))
MIN_ROUNDS = min(ROUNDS, 4)
BUDGET = float(os.environ.get("PROMOLAB_CRASH_SECONDS", "25"))
SEED = int(os.environ.get("PROMOLAB_CRASH_SEED", "20261126"))

#: Session keys the stacked requests share, so that redemptions spend and
#: releases end sessions that validations started.
SESSION_KEYS = ("ssn_crash_a", "ssn_crash_b", "ssn_crash_c")

#: Tails planted after a kill: none of them was ever acknowledged.
TAILS: dict[str, bytes] = {
    "none": b"",
    "fragment": b'{"at":"2026-03-06T10:00:00.000Z","op":"track_ev',
    "garbage-line": b"GARBAGE\n",
    "garbage": b"GARBAGE",
    "nul-4k": b"\0" * 4096,
    "nul-4k-newline": b"\0" * 4096 + b"\n",
    # a whole, valid line without its end of line: applying it would be wrong
    "valid-line-no-newline": (b'{"op":"track_event","args":{"request":{"event":"review_written",'
                              b'"customer":{"source_id":"planted"},"metadata":{"rating":1}}}}'),
}


def _serve_args(port: int, journal: Path, scenario: Path = DEMO, extra: list[str] | None = None) -> list[str]:
    return [sys.executable, "-m", "promolab.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "warning", "--scenario", str(scenario), "--journal", str(journal), *(extra or [])]


def _state(server: Server) -> Any:
    return json.loads(server.state_json())


def _normal(data: Any) -> Any:
    """JSON as a client reads it (tuples become lists, and so on)."""
    return json.loads(json.dumps(data))


def _answer(response: httpx.Response) -> tuple[int, Any]:
    """Status and body, without the per-process request id."""
    body = response.json() if response.content else None
    if isinstance(body, dict):
        body.pop("request_id", None)
    return response.status_code, body


# -- 1. damaged tails: cut, reported, and the start after next works -------------------------------
@pytest.mark.parametrize(
    "tail",
    [b'{"at":"2026-03-06T10:00:00.000Z","op":"track_ev', b"GARBAGE\n", b"\0" * 4096],
    ids=["fragment", "garbage-line", "nul-4k"],
)
def test_a_damaged_tail_is_cut_at_start_and_the_start_after_next_works(
    server_factory: ServerFactory, tmp_path: Path, tail: bytes
) -> None:
    journal = tmp_path / "j.jsonl"
    server = server_factory(DEMO, journal=journal)
    with server.http() as http:
        for who in ("alice", "bob", "carol"):
            r = http.post("/v1/events", headers=APP_HEADERS, json={"event": "review_written",
                                                                   "customer": {"source_id": who},
                                                                   "metadata": {"rating": 5}})
            assert r.status_code == 200, r.text
    server.kill()
    whole = journal.read_bytes()
    journal.write_bytes(whole + tail)

    server = server_factory(DEMO, journal=journal)
    assert f"cut {len(tail)} bytes at byte offset {len(whole)}" in server.log_text()
    assert journal.read_bytes() == whole
    with server.http() as http:
        r = http.post("/v1/events", headers=APP_HEADERS, json={"event": "review_written",
                                                               "customer": {"source_id": "alice"},
                                                               "metadata": {"rating": 4}})
        assert r.status_code == 200, r.text
    expected = server.state_json()
    server.kill()

    server = server_factory(DEMO, journal=journal)
    assert server.state_json() == expected
    assert len(_state(server)["state"]["events"]) == 4


# -- 2. the reset sequence, SIGKILL, restart -------------------------------------------------
def test_reset_is_journaled_and_survives_sigkill(server_factory: ServerFactory, tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    server = server_factory(DEMO, journal=journal)
    with server.http() as http:
        def publish(who: str) -> str:
            r = http.post("/client/v1/publish", headers=APP_HEADERS,
                          json={"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": who}})
            assert r.status_code == 200, r.text
            return str(r.json()["voucher"]["code"])

        def event(tag: str) -> None:
            r = http.post("/v1/events", headers=APP_HEADERS, json={
                "event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 3, "tag": tag}})
            assert r.status_code == 200, r.text

        publish("custA")
        event("e1")
        assert http.post("/_sim/clock/advance", headers=MANAGEMENT_HEADERS, json={"seconds": 3600}).status_code == 200
        assert http.post("/_sim/reset", headers=MANAGEMENT_HEADERS).status_code == 200
        code = publish("custB")
        event("e2")
    answered = server.state_json()
    server.kill()

    server = server_factory(DEMO, journal=journal)
    assert server.state_json() == answered
    state = _state(server)
    assert [e["metadata"]["tag"] for e in state["state"]["events"].values()] == ["e2"]
    assert state["clock"] == "2026-03-06T10:00:00.000Z"
    codes = {v["id"]: v["code"] for v in state["state"]["vouchers"].values()}
    assert {codes[p["voucher_id"]]: p["tracking_id"] for p in state["state"]["publications"].values()} == {
        code: "custB"}


# -- 3/4. journals a server must not start from: exit 2, one line, no traceback ----------------------
_LINE = ('{"at":"2026-03-06T10:00:00.000Z","op":"add_gift_balance",'
         '"args":{"code":"GIFT-ALICE-50","request":{"amount":5}}}\n')
REFUSED_JOURNALS: dict[str, tuple[str, list[str], str]] = {
    # name: (journal text, extra serve options, what stderr must say after "j.jsonl:")
    "damage-before-last-line": (_LINE + "GARBAGE\n" + _LINE, [], "2: not valid JSON"),
    "bad-instant": (_LINE + '{"at":"yesterday","op":"advance","args":{"seconds":1}}\n' + _LINE, [],
                    "2: at 'yesterday' is not an ISO 8601 instant"),
    "refused-line": (_LINE + '{"op":"delete_reward","args":{"reward_id":"lrew_nope"}}\n' + _LINE, [],
                     "2: delete_reward refused on replay (404 not_found"),
    "unknown-operation": ('{"op":"frobnicate","args":{}}\n' + _LINE, [], "1: unknown operation 'frobnicate'"),
    "other-seed": ("", ["--seed", "8"], "1: the journal was written with seed 7, this simulator has seed 8"),
    "future-format": ('{"op":"journal","args":{"version":"promolab.journal/9","scenario":"x","seed":7}}\n', [],
                      "1: journal format 'promolab.journal/9'"),
}


@pytest.mark.parametrize(("text", "extra", "needle"), REFUSED_JOURNALS.values(), ids=REFUSED_JOURNALS.keys())
def test_a_journal_that_must_not_be_started_from_is_exit_2_with_one_line(
    server_factory: ServerFactory, tmp_path: Path, text: str, extra: list[str], needle: str
) -> None:
    journal = tmp_path / "j.jsonl"
    if text:
        journal.write_text(text, encoding="utf-8")
    else:  # a real journal of the demo scenario, with its header
        server = server_factory(DEMO, journal=journal)
        server.kill()
    before = journal.read_bytes()
    done = subprocess.run(_serve_args(free_port(), journal, extra=extra), cwd=str(ROOT), capture_output=True,
                          timeout=60, env={**os.environ, "PYTHONUNBUFFERED": "1"}, check=False)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("promolab: journal refused: "), err
    assert f"j.jsonl:{needle}" in lines[0], lines[0]
    assert journal.read_bytes() == before


# -- crash injection -------------------------------------------------------------------------------
@dataclass
class Shadow:
    """An in-process simulator given exactly the acknowledged requests."""

    sim: Simulator = field(default_factory=lambda: Simulator.from_scenario(DEMO))

    def __post_init__(self) -> None:
        self.http = httpx.Client(transport=SimulatorTransport(self.sim), base_url="http://promolab.local")

    def send(self, request: Request) -> httpx.Response:
        return self.http.request(request.method, request.path, headers=request.headers, json=request.body)

    def state(self) -> Any:
        return _normal(self.sim.dump())


@dataclass(frozen=True)
class Request:
    kind: str
    method: str
    path: str
    headers: dict[str, str]
    body: Any = None


@dataclass
class Figures:
    acknowledged: Counter[str] = field(default_factory=Counter)
    refused: int = 0
    kills_under_load: int = 0
    kills_during_start: int = 0
    restarts: int = 0
    lost_answer_applied: int = 0
    lost_answer_not_applied: int = 0
    tails: Counter[str] = field(default_factory=Counter)
    bytes_cut: int = 0
    restart_seconds: list[float] = field(default_factory=list)


class Driver:
    """One client: seeded requests, in order; stops at the first transport error."""

    def __init__(self, base_url: str, shadow: Shadow, rng: random.Random, round_no: int, figures: Figures,
                 redemptions: list[str] | None = None) -> None:
        self.base_url = base_url
        self.shadow = shadow
        self.rng = rng
        self.round_no = round_no
        self.figures = figures
        self.snapshot: Any = None
        #: Acknowledged redemptions (parent ids of stacks), kept across rounds by the lab.
        self.redemptions: list[str] = redemptions if redemptions is not None else []
        self.in_flight: Request | None = None
        self.mismatches: list[str] = []
        self.stop = threading.Event()

    def next_request(self, i: int) -> Request:
        rng, tag = self.rng, f"r{self.round_no}-{i}"
        roll = rng.random()
        if roll < 0.22:
            return Request("event", "POST", "/v1/events", APP_HEADERS, {
                "event": "review_written", "customer": {"source_id": rng.choice(["alice", "bob", "carol"])},
                "metadata": {"rating": rng.randint(1, 5), "tag": tag}})
        if roll < 0.32:
            return Request("gift", "POST", "/v1/vouchers/GIFT-ALICE-50/balance", APP_HEADERS,
                           {"amount": rng.randint(1, 500)})
        if roll < 0.42:
            return Request("publish", "POST", "/client/v1/publish", APP_HEADERS,
                           {"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": f"c-{tag}"}})
        if roll < 0.49:
            return Request("purchase", "POST",
                           "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases",
                           LOYALTY_HEADERS, {"reward_id": "lrew_mug"})
        if roll < 0.72:
            return self.stacked_request(roll, tag)
        if roll < 0.82:
            return Request("advance", "POST", "/_sim/clock/advance", MANAGEMENT_HEADERS,
                           {"seconds": rng.choice([0, 0.5, 1, 60, 3600])})
        if roll < 0.88:
            return Request("validate", "POST", "/v1/promotions/validation", APP_HEADERS, {
                "customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}})
        if roll < 0.91:
            return Request("reset", "POST", "/_sim/reset", MANAGEMENT_HEADERS)
        if roll < 0.96 or self.snapshot is None:
            return Request("snapshot", "GET", "/_sim/snapshot", MANAGEMENT_HEADERS)
        return Request("restore", "POST", "/_sim/restore", MANAGEMENT_HEADERS, self.snapshot)

    def stacked_request(self, roll: float, tag: str) -> Request:
        """The stacked operations (issue 34's "new operations"): validations
        holding a LOCK session, redemptions spending one (or none), rollbacks
        of acknowledged redemptions, session releases."""
        rng = self.rng
        credits = rng.randint(1, 300)
        stack = rng.choice([
            [{"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": credits}}],
            [{"object": "voucher", "id": "WELCOME-ALICE"}],
            [{"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": credits}},
             {"object": "voucher", "id": "WELCOME-ALICE"}],
        ])
        key = rng.choice(SESSION_KEYS)
        body = {"redeemables": stack, "customer": {"source_id": "alice"},
                "order": {"items": [{"product_id": "prod_mug", "quantity": rng.randint(1, 3)}]}}
        if roll < 0.57:
            session = {"type": "LOCK", "key": key, **rng.choice([{}, {"ttl": 2, "ttl_unit": "HOURS"},
                                                                 {"ttl": 30, "ttl_unit": "SECONDS"}])}
            return Request("stacked-validate", "POST", "/v1/validations", APP_HEADERS, {**body, "session": session})
        if roll < 0.65:
            if rng.random() < 0.5:
                body["session"] = {"type": "LOCK", "key": key}
            return Request("redeem", "POST", "/v1/redemptions", APP_HEADERS, body)
        if roll < 0.69 and self.redemptions:
            target = rng.choice(self.redemptions)
            return Request("rollback", "POST", f"/v1/redemptions/{target}/rollbacks", APP_HEADERS,
                           {"reason": f"crash test {tag}"})
        code = rng.choice(["GIFT-ALICE-50", "WELCOME-ALICE"])
        return Request("release", "DELETE", f"/v1/vouchers/{code}/sessions/{key}", APP_HEADERS)

    def remember(self, request: Request, answer: Any) -> None:
        """Ids later requests refer to: the redemptions a rollback may undo."""
        if request.kind == "redeem" and isinstance(answer, dict):
            parent = answer.get("parent_redemption")
            self.redemptions.append(parent["id"] if parent else answer["redemptions"][0]["id"])

    def run(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=30.0) as http:
            for i in range(100_000):  # bounded; the kill ends the round long before
                if self.stop.is_set():
                    return
                request = self.next_request(i)
                self.in_flight = request
                try:
                    response = http.request(request.method, request.path, headers=request.headers,
                                            json=request.body)
                except httpx.TransportError:
                    return  # killed: `in_flight` may or may not have been journaled
                self.in_flight = None
                served = _answer(response)
                mine = _answer(self.shadow.send(request))
                if served != mine:
                    self.mismatches.append(f"{request.kind} {request.body!r:.120}: served {served!r:.300} "
                                           f"!= uninterrupted {mine!r:.300}")
                if 200 <= served[0] < 300:
                    self.figures.acknowledged[request.kind] += 1
                    self.remember(request, served[1])
                    if request.kind == "snapshot":
                        self.snapshot = served[1]
                else:
                    self.figures.refused += 1


class CrashLab:
    """A served simulator on one journal, killed and restarted on demand."""

    def __init__(self, factory: ServerFactory, journal: Path, rng: random.Random, figures: Figures) -> None:
        self.factory = factory
        self.journal = journal
        self.rng = rng
        self.figures = figures
        self.shadow = Shadow()
        self.server = self.start()

    def start(self) -> Server:
        began = time.monotonic()
        server = self.factory(DEMO, journal=self.journal)
        self.figures.restart_seconds.append(time.monotonic() - began)
        self.figures.restarts += 1
        return server

    def plant_tail(self) -> tuple[str, int]:
        name = self.rng.choice(sorted(TAILS))
        with self.journal.open("ab") as handle:
            handle.write(TAILS[name])
        self.figures.tails[name] += 1
        return name, len(self.journal.read_bytes())

    def kill_during_start(self) -> str:
        """Start a server on the journal and SIGKILL it while it replays,
        cuts or has just begun to listen: the next start must not care.
        Returns what it printed (it may have cut and reported the tail)."""
        args = _serve_args(free_port(), self.journal)
        output = self.journal.with_suffix(f".killed-{self.figures.kills_during_start}.log")
        with output.open("wb") as log:
            process = subprocess.Popen(args, cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT,
                                       env={**os.environ, "PYTHONUNBUFFERED": "1"})
            try:
                time.sleep(self.rng.uniform(0.2, 1.2))
            finally:
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=10)
        self.figures.kills_during_start += 1
        return output.read_text(encoding="utf-8", errors="replace")

    def restart_and_check(self, in_flight: Request | None, where: str) -> None:
        tail, size = self.plant_tail()
        log = self.kill_during_start() if self.rng.random() < 0.3 else ""
        self.server = self.start()
        log += self.server.log_text()
        if TAILS[tail]:
            assert "bytes at byte offset" in log, f"{where}: the planted {tail} tail was not reported:\n{log}"
        assert not self.journal.read_bytes().endswith(TAILS[tail] or b"\n\n"), f"{where}: {tail} tail still there"
        self.figures.bytes_cut += size - len(self.journal.read_bytes())
        served = _state(self.server)
        if served != self.shadow.state() and in_flight is not None:
            self.shadow.send(in_flight)  # its answer was lost, but it was journaled: it is part of the state
            self.figures.lost_answer_applied += 1
        elif in_flight is not None:
            self.figures.lost_answer_not_applied += 1
        assert served == self.shadow.state(), f"{where}: the restarted state is not what the clients were answered"


def test_sigkill_at_random_moments_with_damaged_tails_loses_no_acknowledged_write(
    server_factory: ServerFactory, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    figures = Figures()
    lab = CrashLab(server_factory, tmp_path / "journal.jsonl", rng, figures)
    began = time.monotonic()
    rounds = 0
    redemptions: list[str] = []  # acknowledged ones survive the kills: later rounds roll them back
    for round_no in range(ROUNDS):
        if round_no >= MIN_ROUNDS and time.monotonic() - began > BUDGET:
            break
        rounds += 1
        for phase, longest in ((1, 0.8), (2, 0.3)):
            driver = Driver(lab.server.base_url, lab.shadow, rng, round_no * 2 + phase, figures, redemptions)
            client = threading.Thread(target=driver.run)
            client.start()
            time.sleep(rng.uniform(0.0, longest))  # 0: killed before or at its first request
            lab.server.kill()
            figures.kills_under_load += 1
            client.join(timeout=30)
            driver.stop.set()
            assert not client.is_alive(), "the client is stuck"
            assert not driver.mismatches, driver.mismatches[:5]
            lab.restart_and_check(driver.in_flight, f"round {round_no}, restart {phase}")
    elapsed = time.monotonic() - began
    lab.server.stop()

    writes = sum(n for kind, n in figures.acknowledged.items() if kind not in ("validate", "snapshot"))
    assert writes > 0 and figures.acknowledged["event"] > 0, "the load acknowledged nothing"
    stacked = {kind: figures.acknowledged[kind] for kind in ("stacked-validate", "redeem", "rollback", "release")}
    assert stacked["stacked-validate"] and stacked["redeem"], stacked  # rollbacks need a redemption first
    lines = lab.journal.read_bytes().count(b"\n")
    restart_ms = sorted(round(s * 1000) for s in figures.restart_seconds)
    summary_line(
        f"crash injection: {rounds} rounds, {figures.kills_under_load + figures.kills_during_start} SIGKILLs "
        f"({figures.kills_under_load} under load, {figures.kills_during_start} during a restart), {sum(figures.tails.values()) - figures.tails['none']} damaged tails planted "
        f"({figures.bytes_cut} bytes cut), {writes} acknowledged writes ({', '.join(f'{k} {v}' for k, v in stacked.items())}), "
        f"0 lost; restarts median "
        f"{restart_ms[len(restart_ms) // 2]} ms, max {restart_ms[-1]} ms ({lines} journal lines); {elapsed:.1f} s")
    record_result("crash_recovery", {
        "rounds": rounds,
        "seed": SEED,
        "sigkills": {"under_load": figures.kills_under_load, "during_restart": figures.kills_during_start},
        "restarts": figures.restarts,
        "tails_planted": dict(sorted(figures.tails.items())),
        "bytes_cut": figures.bytes_cut,
        "acknowledged": dict(sorted(figures.acknowledged.items())),
        "acknowledged_writes": writes,
        "acknowledged_stacked": stacked,
        "refused": figures.refused,
        "lost_answers": {"journaled": figures.lost_answer_applied, "not_journaled": figures.lost_answer_not_applied},
        "lost": 0,
        "journal_lines": lines,
        "restart_ms": {"median": restart_ms[len(restart_ms) // 2], "max": restart_ms[-1]},
        "seconds": round(elapsed, 1),
    })


# -- 5. a line written twice, lost or moved: exit 2, one line ----------------------------------------
@pytest.mark.parametrize(("damage", "needle"), [
    (lambda ls: ls[:3] + [ls[2]] + ls[3:], "4: this line is numbered 2: a line written twice or out of order"),
    (lambda ls: ls[:2] + ls[3:], "3: this line is numbered 3: a line is missing before it"),
    (lambda ls: ls[:2] + [ls[3], ls[2]] + ls[4:], "3: this line is numbered 3: a line is missing before it"),
], ids=["duplicated", "missing", "reordered"])
def test_a_journal_line_duplicated_missing_or_reordered_is_exit_2_with_one_line(
    server_factory: ServerFactory, tmp_path: Path, damage: Any, needle: str
) -> None:
    """The issue's case: a gift credit's line written twice in the middle was
    replayed twice (a balance acknowledged as 4022 came back as 4015)."""
    journal = tmp_path / "j.jsonl"
    server = server_factory(DEMO, journal=journal)
    with server.http() as http:
        for amount in (1000, 7, 13, 2002):
            r = http.post("/v1/vouchers/GIFT-ALICE-50/balance", headers=APP_HEADERS, json={"amount": amount})
            assert r.status_code == 200, r.text
    server.kill()
    damaged = b"".join(damage(journal.read_bytes().splitlines(keepends=True)))
    journal.write_bytes(damaged)
    done = subprocess.run(_serve_args(free_port(), journal), cwd=str(ROOT), capture_output=True,
                          timeout=60, env={**os.environ, "PYTHONUNBUFFERED": "1"}, check=False)
    err = done.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    assert done.returncode == 2 and "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("promolab: journal refused: "), err
    assert f"j.jsonl:{needle}" in lines[0], lines[0]
    assert journal.read_bytes() == damaged
