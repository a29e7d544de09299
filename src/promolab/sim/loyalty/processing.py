"""Settling PENDING reward purchases on the simulated clock.

A purchase is due `settings.purchase_delay_seconds` after it was accepted.
When the clock reaches that instant the purchase is checked again against
the state of that moment (program, member and reward still active, the
reward still assigned, a unit left, the card still covering the points: an
ADMIN debit or a status change may have happened meanwhile) and then:

- APPROVED: the reward is handed over, the points are debited
  (`ledger.settle`), the assignment's stock loses a unit and
  `details.result` describes what was handed over;
- REJECTED: `details.rejection = {reason, details}` where `reason` is the
  key the same request would be refused with now (or the key of the grant
  failure, e.g. `no_voucher_suitable_for_publication`); nothing else changes.

Purchases due at the same instant are processed in creation order, so an
earlier purchase has the first claim on a card's points and a reward's stock.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from .. import ledger
from ..errors import BadRequest, NotFound, SimError
from ..processing import processor
from ..records import CardTransaction
from .granting import describe, grant
from .purchases import assignment_of, check_card, check_open, check_stock
from .reservations import pending_index

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["PURCHASES", "PurchaseProcessor", "process"]


class PurchaseProcessor:
    name = "reward_purchases"

    def next_due(self, sim: Simulator) -> datetime | None:
        return pending_index(sim).next_due()

    def run_due(self, sim: Simulator, now: datetime) -> None:
        # Earliest first; equal due times in creation order. Processing one
        # purchase settles it and changes no other purchase's due time.
        while (record := pending_index(sim).first_due(now)) is not None:
            process(sim, record)
            if record.status == "PENDING":  # pragma: no cover - process always settles
                raise RuntimeError(f"purchase {record.id} was processed but not settled")


PURCHASES = processor(PurchaseProcessor())


def process(sim: Simulator, record: CardTransaction) -> None:
    """Approve or reject one PENDING purchase at the current instant."""
    try:
        _recheck(sim, record)
        reward = sim.state.rewards[record.details["reward_id"]]
        granted = grant(sim, sim.state.members[record.member_id], reward, transaction_id=record.id)
    except SimError as exc:
        rejection = {"reason": exc.key, "details": exc.details}
        ledger.settle(sim, record, "REJECTED", rejection=rejection)
        return
    ledger.settle(sim, record, "APPROVED")
    assignment = sim.state.reward_assignments[record.reward_assignment_id or ""]
    if assignment.stock is not None:
        assignment.stock -= 1
    record.details = {**record.details, "result": describe(granted)}


def _recheck(sim: Simulator, record: CardTransaction) -> None:
    """The request-time rules, against the state of now; this purchase's own
    reservation is what it is about to spend, and purchases processed before
    it have already moved balance and stock, so nothing is held back."""
    st = sim.state
    program = st.programs.get(record.program_id)
    if program is None:
        raise NotFound("program", record.program_id)
    member = st.members.get(record.member_id)
    if member is None:
        raise NotFound("member", record.member_id)
    reward_id = record.details.get("reward_id") or ""
    reward = st.rewards.get(reward_id)
    if reward is None:
        raise NotFound("reward", reward_id)
    assignment = st.reward_assignments.get(record.reward_assignment_id or "")
    if assignment is None or assignment_of(sim, program.id, reward.id) is not assignment:
        raise BadRequest(
            f"Reward {reward.id} is no longer assigned to program {program.id}",
            key="reward_not_assigned", message="Reward not assigned to the program",
        )
    check_open(sim, program, member, reward)
    check_stock(assignment, 0)
    card = st.cards.get(record.card_id)
    if card is None:
        raise NotFound("card", record.card_id)
    check_card(card, -record.points, 0)
