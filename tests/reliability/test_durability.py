"""Durability: SIGKILL the served simulator mid-load, restart it from its journal.

`promolab serve --journal PATH` writes every accepted write to the journal
(fsync) before answering. Here client threads run the mixed load of
`loadmix` (publications, purchases, events, gift credits, clock advances)
and record every ACKNOWLEDGED (2xx) answer; a killer thread SIGKILLs the
server in the middle of it, the server is restarted from the same scenario
and journal, the load resumes, and this is repeated for several rounds.

After the last restart and a clock advance that settles pending purchases:
- every acknowledged operation is in the state (each acknowledged
  publication's code is held by its customer, each acknowledged event's
  points are credited, each acknowledged purchase is settled, each
  acknowledged gift credit is in the balance);
- nothing is half-applied: the state is internally consistent (card
  balance = opening + approved transactions, held codes = publications,
  stock = opening - approved, incentive stock = earnings, gift amount and
  balance moved together);
- a restart is deterministic: replaying the same journal twice gives a
  byte-identical state.

Answers lost with the killed process may still have been journaled (the
client never learnt): those show up as extra writes, which is allowed.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from loadmix import Acks, Load, load_scenario, reconcile
from relsupport import MANAGEMENT_HEADERS, record_result, summary_line, write_scenario

pytestmark = [pytest.mark.served, pytest.mark.timeout(600)]

ROUNDS = 3
CLIENTS = 4
OPS_PER_CLIENT = 5000  # far more than fits before the kill: the kill ends each round
KILL_AFTER = (1.5, 3.5)  # seconds after the load starts, drawn per round


def _round(server: Any, round_no: int, acks: Acks) -> dict[str, Any]:
    stop = threading.Event()
    loads = [Load(server.base_url, 100 * round_no + t, OPS_PER_CLIENT, seed=7, deadline=60.0, stop=stop,
                  tolerate_transport_errors=True) for t in range(CLIENTS)]
    threads = [threading.Thread(target=load.run) for load in loads]
    delay = random.Random(round_no).uniform(*KILL_AFTER)
    for thread in threads:
        thread.start()
    time.sleep(delay)
    server.kill()  # SIGKILL, mid-load
    killed_at = time.monotonic()
    for thread in threads:
        thread.join(timeout=60)
    stop.set()
    assert not any(t.is_alive() for t in threads), "a client thread is stuck"
    errors = [load.error for load in loads if load.error is not None]
    assert not errors, f"client errors: {errors!r}"
    acknowledged = 0
    for load in loads:
        acks.merge(load.acks)
        acknowledged += sum(1 for s in load.acks.statuses.elements() if 200 <= s < 300)
        assert not load.acks.unexpected, load.acks.unexpected[:10]
    return {"round": round_no, "killed_after_s": round(delay, 2), "acknowledged": acknowledged,
            "clients_cut_off": sum(1 for load in loads if load.acks.transport_errors), "joined_in_s":
            round(time.monotonic() - killed_at, 2)}


def test_sigkill_mid_load_loses_no_acknowledged_write(server_factory: Any, tmp_path: Path) -> None:
    scenario = write_scenario(load_scenario(), tmp_path / "load.yaml")
    journal = tmp_path / "journal.jsonl"

    server = server_factory(scenario, journal=journal)
    with server.http() as http:
        opening = http.get("/_sim/state", headers=MANAGEMENT_HEADERS).json()

    acks = Acks()
    rounds = []
    for round_no in range(ROUNDS):
        rounds.append(_round(server, round_no, acks))
        data = journal.read_bytes()
        rounds[-1]["journal_lines"] = data.count(b"\n")
        rounds[-1]["torn_last_line"] = bool(data) and not data.endswith(b"\n")
        assert server.process.returncode == -9
        server = server_factory(scenario, journal=journal)  # replays the journal, then records

    # a restart is deterministic: the same journal replayed twice gives the same bytes
    first = server.state_json()
    server.stop()
    server = server_factory(scenario, journal=journal)
    assert server.state_json() == first, "replaying the same journal twice gave different states"

    with server.http() as http:
        settle = http.post("/_sim/clock/advance", headers=MANAGEMENT_HEADERS, json={"seconds": 60})
        assert settle.status_code == 200, settle.text
        final = http.get("/_sim/state", headers=MANAGEMENT_HEADERS).json()

    total_acks = sum(r["acknowledged"] for r in rounds)
    assert total_acks > 0 and acks.publications and acks.events, "the load acknowledged nothing before the kill"
    figures = reconcile(opening, final, acks, exact_acks=False)
    summary_line(f"durability: {ROUNDS} SIGKILLs mid-load, {total_acks} acknowledged answers, 0 lost after "
                 f"restart from the journal ({len(acks.publications)} publications, {len(acks.events)} events, "
                 f"{len(acks.purchases)} purchases, {len(acks.gift_amounts)} gift credits)")
    record_result("durability", {
        "sigkills": ROUNDS,
        "clients": CLIENTS,
        "acknowledged_operations": total_acks,
        "acknowledged_writes": {
            "publications": len(acks.publications), "purchases": len(acks.purchases),
            "free_grants": len(acks.free_grants), "events": len(acks.events), "gift_credits": len(acks.gift_amounts),
        },
        "lost": 0,
        "rounds": rounds,
        "journal_lines": journal.read_bytes().count(b"\n"),
        "reconciliation": figures,
    })


# -- in-process: the journal line is on disk before the answer --------------------------------------
def test_each_acknowledged_write_is_fsynced_before_its_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import copy
    import os

    import httpx

    from promolab import Simulator
    from promolab.http.app import App
    from promolab.http.transport import SimulatorTransport
    from relsupport import APP_HEADERS, LOYALTY_HEADERS, demo_document

    journal = tmp_path / "journal.jsonl"
    sim = Simulator.from_scenario(copy.deepcopy(demo_document()))
    sim.record_to(journal, fsync=True)
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    app = App(sim)
    seen_at_answer: list[tuple[int, int, int]] = []
    original = app.handle

    def observing(request: Any) -> Any:
        response = original(request)
        # what is durable at the moment the answer leaves the app
        seen_at_answer.append((response.status, journal.read_bytes().count(b"\n"), len(synced)))
        return response

    app.handle = observing  # type: ignore[method-assign]  # a spy wrapped around the real handler
    http = httpx.Client(transport=SimulatorTransport(app), base_url="http://promolab.local")
    requests = [
        ("POST", "/client/v1/publish", APP_HEADERS, {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}}),
        ("POST", "/client/v1/publish", APP_HEADERS, {"voucher": "WELCOME-ALICE", "customer": {"source_id": "bob"}}),
        ("POST", "/v1/events", APP_HEADERS, {"event": "review_written", "customer": {"source_id": "bob"},
                                             "metadata": {"rating": 3}}),
        ("GET", "/v2/loyalties/incentives/linc_0a11ce01", LOYALTY_HEADERS, None),
        ("POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases", LOYALTY_HEADERS,
         {"reward_id": "lrew_mug"}),
        ("POST", "/v1/vouchers/GIFT-ALICE-50/balance", APP_HEADERS, {"amount": 0}),
        ("POST", "/v1/vouchers/GIFT-ALICE-50/balance", APP_HEADERS, {"amount": 10}),
    ]
    for method, path, headers, body in requests:
        http.request(method, path, headers=headers, json=body)
    statuses = [s for s, _, _ in seen_at_answer]
    assert statuses == [200, 400, 200, 200, 202, 400, 200]
    lines = [n for _, n, _ in seen_at_answer]
    syncs = [n for _, _, n in seen_at_answer]
    # a line (and an fsync) per acknowledged write, none for reads and refusals, before the answer
    assert lines == [1, 1, 2, 2, 3, 3, 4]
    assert syncs == lines


def test_replay_drops_a_torn_last_line_and_refuses_a_torn_middle(tmp_path: Path) -> None:
    import copy

    from promolab import Simulator
    from promolab.sim.journal import replay_journal
    from promolab.sim.operations.balance import ADD_GIFT_BALANCE
    from promolab.sim.operations.publishing import PUBLISH
    from relsupport import demo_document

    source = Simulator.from_scenario(copy.deepcopy(demo_document()))
    journal = tmp_path / "journal.jsonl"
    source.record_to(journal, fsync=True)
    source.apply(PUBLISH, request={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})
    source.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 250})
    source.record_to(None)
    whole = journal.read_bytes()
    torn = whole + b'{"at":"2026-03-06T10:00:00.000Z","op":"add_gift_bal'  # died mid-write: never acknowledged
    journal.write_bytes(torn)
    restarted = Simulator.from_scenario(copy.deepcopy(demo_document()))
    assert replay_journal(restarted, journal) == 2
    assert restarted.dump_json() == source.dump_json()

    lines = whole.split(b"\n")
    journal.write_bytes(lines[0][:20] + b"\n" + b"\n".join(lines[1:]))  # a damaged acknowledged line
    with pytest.raises(ValueError):
        replay_journal(Simulator.from_scenario(copy.deepcopy(demo_document())), journal)
