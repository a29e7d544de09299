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

Whether a purchase may be due is asked at nearly every clock move, mostly
right after writes that added card transactions which are not purchases
(points earned): `DueWatch` answers that by looking at the new transactions'
status, without bringing `PendingPurchases` up to date at every step.
"""

from __future__ import annotations

from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING

from ..records import CardTransaction
from ..refusals import BadRequest, NotFound, SimError
from ..state import State, derived
from . import ledger
from .granting import describe, grant
from .purchases import assignment_of, check_card, check_open, check_stock
from .reservations import pending_index

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["PURCHASES", "DueWatch", "PurchaseProcessor", "process"]


class DueWatch:
    """Whether a PENDING purchase may be due by an instant (the processor's
    `processing.Watch`), per state.

    `earliest` is at most the due time of every PENDING purchase among the
    first `seen` card transactions (None: there is none). It is set from the
    exact `next_due` whenever that is computed; in between, new transactions
    only lower it by the due times of those that are PENDING, and settling a
    purchase only makes the true value later. So a step of the clock looks
    at the transactions added since the last one (mostly one, points earned)
    without bringing `PendingPurchases` up to date. Like `PendingPurchases`,
    it relies on card transactions only being added (fewer than seen sends
    it back to the exact value), a PENDING purchase never getting an earlier
    due time and a settled one never becoming PENDING again.
    """

    __slots__ = ("earliest", "seen", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        #: How many card transactions `earliest` accounts for (-1: none yet).
        self.seen = -1
        self.earliest: datetime | None = None

    def due_by(self, sim: Simulator, target: datetime) -> bool:
        transactions = self.state.card_transactions
        new = len(transactions) - self.seen
        if new:
            if new < 0 or self.seen < 0:
                _exact(sim, self)
            else:
                self._absorb(transactions, new)
        earliest = self.earliest
        return earliest is not None and earliest <= target

    def _absorb(self, transactions: dict[str, CardTransaction], new: int) -> None:
        """Account for the last `new` card transactions."""
        records = (
            (next(reversed(transactions.values())),) if new == 1
            else islice(reversed(transactions.values()), new)
        )
        for record in records:
            fields = record.__dict__  # read once: a record's attribute read costs more
            due = fields["due_at"]
            if due is not None and fields["status"] == "PENDING" and (self.earliest is None or due < self.earliest):
                self.earliest = due
        self.seen += new


def _exact(sim: Simulator, watch: DueWatch) -> datetime | None:
    """The purchases' exact next due time, which `watch` starts again from."""
    index = pending_index(sim)
    watch.earliest = when = index.next_due()
    watch.seen = index.seen
    return when


def due_watch(sim: Simulator) -> DueWatch:
    """The `DueWatch` of the simulator's state."""
    return derived(sim, "purchase_due_watch", DueWatch)


class PurchaseProcessor:
    name = "reward_purchases"

    def next_due(self, sim: Simulator) -> datetime | None:
        return _exact(sim, due_watch(sim))

    def watch(self, sim: Simulator) -> DueWatch:
        return due_watch(sim)

    def run_due(self, sim: Simulator, now: datetime) -> None:
        # Earliest first; equal due times in creation order. Processing one
        # purchase settles it and changes no other purchase's due time.
        while (record := pending_index(sim).first_due(now)) is not None:
            process(sim, record)
            if record.status == "PENDING":  # pragma: no cover - process always settles
                raise RuntimeError(f"purchase {record.id} was processed but not settled")


PURCHASES = PurchaseProcessor()


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
            resource_id=reward.id, resource_type="reward",
        )
    check_open(sim, program, member, reward)
    check_stock(assignment, 0)
    card = st.cards.get(record.card_id)
    if card is None:
        raise NotFound("card", record.card_id)
    check_card(card, -record.points, 0)
