"""Every refusal of POST .../rewards/purchases: exact status and key, and the
state dump (clock, id counters, every record) byte-identical afterwards."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest

from promolab import Simulator

from ._helpers import PROGRAM, buy, refused


def _nothing(sim: Simulator) -> None:
    return None


def _set(path: str, key: str, attr: str, value: Any) -> Callable[[Simulator], None]:
    def setup(sim: Simulator) -> None:
        setattr(getattr(sim.state, path)[key], attr, value)

    return setup


def _shift_program(attr: str, seconds: int) -> Callable[[Simulator], None]:
    def setup(sim: Simulator) -> None:
        setattr(sim.state.programs[PROGRAM], attr, sim.now + timedelta(seconds=seconds))

    return setup


def _alice_holds_the_last_bag(sim: Simulator) -> None:
    # Alice's pending purchase holds the only unit; Bob could pay for it.
    buy(sim, "lmbr_alice", "lrew_beans_1kg")
    sim.state.cards["lcrd_bob_beans"].balance = 5000


def _alice_holds_1500_points(sim: Simulator) -> None:
    buy(sim, "lmbr_alice", "lrew_beans_1kg")  # 1800 - 1500 held = 300 available


@dataclass
class Case:
    id: str
    member: str
    reward: str
    status: int
    key: str
    program: str = PROGRAM
    body: Any = None
    setup: Callable[[Simulator], None] = _nothing
    resource: tuple[str, str] | None = None
    details: list[str] = field(default_factory=list)


CASES = [
    # -- 400 invalid_payload ----------------------------------------------
    Case("extra-field", "lmbr_alice", "lrew_mug", 400, "invalid_payload",
         body={"reward_id": "lrew_mug", "points": 10}, details=[".points", "not allowed"]),
    Case("missing-reward-id", "lmbr_alice", "lrew_mug", 400, "invalid_payload",
         body={}, details=["reward_id"]),
    Case("reward-id-not-a-string", "lmbr_alice", "lrew_mug", 400, "invalid_payload",
         body={"reward_id": 42}, details=[".reward_id"]),
    Case("empty-reward-id", "lmbr_alice", "lrew_mug", 400, "invalid_payload",
         body={"reward_id": ""}, details=[".reward_id"]),
    Case("body-not-an-object", "lmbr_alice", "lrew_mug", 400, "invalid_payload", body=["lrew_mug"]),
    # -- 404 not_found ----------------------------------------------------
    Case("unknown-program", "lmbr_alice", "lrew_mug", 404, "not_found", program="lprg_nope",
         resource=("program", "lprg_nope")),
    Case("unknown-member", "lmbr_nope", "lrew_mug", 404, "not_found", resource=("member", "lmbr_nope")),
    Case("member-of-another-program", "lmbr_legacy_bob", "lrew_mug", 404, "not_found",
         resource=("member", "lmbr_legacy_bob")),
    Case("unknown-reward", "lmbr_alice", "lrew_nope", 404, "not_found", resource=("reward", "lrew_nope")),
    # -- 400 reward_not_assigned ------------------------------------------
    Case("reward-not-assigned", "lmbr_alice", "lrew_retired", 400, "reward_not_assigned",
         resource=("reward", "lrew_retired")),
    Case("not-assigned-before-member-state", "lmbr_carol", "lrew_retired", 400, "reward_not_assigned"),
    # -- 423 program --------------------------------------------------------
    Case("inactive-program", "lmbr_legacy_bob", "lrew_mug", 423, "non_active_program", program="lprg_legacy",
         resource=("program", "lprg_legacy")),
    Case("program-not-started", "lmbr_alice", "lrew_mug", 423, "program_outside_validity_window",
         setup=_shift_program("start_date", 60), resource=("program", PROGRAM)),
    Case("program-expired", "lmbr_alice", "lrew_mug", 423, "program_outside_validity_window",
         setup=_shift_program("expiration_date", -1), resource=("program", PROGRAM)),
    # -- 423 member ---------------------------------------------------------
    Case("inactive-member", "lmbr_carol", "lrew_mug", 423, "non_active_member", resource=("member", "lmbr_carol")),
    # -- 423 reward status --------------------------------------------------
    *[
        Case(f"reward-{status.lower()}", "lmbr_alice", "lrew_mug", 423, "non_active_reward",
             setup=_set("rewards", "lrew_mug", "status", status), resource=("reward", "lrew_mug"))
        for status in ("DRAFT", "INACTIVE", "DELETED")
    ],
    # -- 423 stock ----------------------------------------------------------
    Case("out-of-stock", "lmbr_alice", "lrew_mug", 423, "reward_out_of_stock",
         setup=_set("reward_assignments", "lrewa_mug", "stock", 0), resource=("reward_assignment", "lrewa_mug")),
    Case("free-reward-out-of-stock", "lmbr_dave", "lrew_sticker", 423, "reward_out_of_stock",
         setup=_set("reward_assignments", "lrewa_sticker", "stock", 0)),
    Case("last-unit-held-by-a-pending-purchase", "lmbr_bob", "lrew_beans_1kg", 423, "reward_out_of_stock",
         setup=_alice_holds_the_last_bag, details=["1 held by pending purchases"]),
    Case("stock-before-balance", "lmbr_dave", "lrew_mug", 423, "reward_out_of_stock",
         setup=_set("reward_assignments", "lrewa_mug", "stock", 0)),
    # -- 423 card -----------------------------------------------------------
    Case("no-card-of-the-cost", "lmbr_bob", "lrew_gift_25", 423, "no_target_card",
         resource=("member", "lmbr_bob"), details=["lcdef_stars"]),
    Case("zero-balance", "lmbr_dave", "lrew_mug", 423, "zero_card_balance",
         resource=("card", "lcrd_dave_beans")),
    Case("insufficient-balance", "lmbr_bob", "lrew_mug", 423, "insufficient_card_balance",
         resource=("card", "lcrd_bob_beans"), details=["350 points available", "costs 500"]),
    Case("insufficient-by-one-point", "lmbr_frank", "lrew_mug", 423, "insufficient_card_balance",
         setup=_set("cards", "lcrd_frank_beans", "balance", 499)),
    Case("points-held-by-a-pending-purchase", "lmbr_alice", "lrew_mug", 423, "insufficient_card_balance",
         setup=_alice_holds_1500_points, details=["300 points available", "1500 held by pending purchases"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_refusal(sim: Simulator, case: Case) -> None:
    case.setup(sim)
    error = refused(sim, case.member, case.reward, program=case.program, body=case.body)
    assert (error.status, error.key) == (case.status, case.key), error.body()
    body = error.body()
    assert body["code"] == case.status
    if case.resource is not None:
        assert (body["resource_type"], body["resource_id"]) == case.resource
    for fragment in case.details:
        assert fragment in body["details"]
    assert body["message"]


def test_refusals_are_not_journaled(sim: Simulator) -> None:
    lines: list[str] = []
    sim.record_to(lines)
    refused(sim, "lmbr_bob", "lrew_mug")
    assert lines == []


def test_refusal_keeps_the_clock_and_ids_for_the_next_success(sim: Simulator, demo_snapshot: dict) -> None:
    """A refused request leaves no trace: the next accepted one gets the same
    transaction id as on a simulator that never saw the refusal."""
    refused(sim, "lmbr_bob", "lrew_mug")
    first = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    clean = Simulator.restore(demo_snapshot)
    assert buy(clean, "lmbr_alice", "lrew_mug").transaction.id == first
