"""Points and stock held by PENDING reward purchases.

A purchase does not move the card balance nor the assignment stock until it
is APPROVED, but from the moment it is accepted its points and its unit are
spoken for: a later purchase sees `available = balance - reserved points`
and `stock - reserved units`. That is what keeps two purchases in flight from
spending the same points twice or overselling the last unit.

The PENDING purchases are followed by `PendingPurchases` (derived, never in
a snapshot) rather than found by scanning every card transaction ever
written: the purchase processor is asked for its next due time on every
clock move and after every write, and every purchase check asks what is
held, so a scan would make a long replay quadratic.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING

from ..records import CardTransaction
from ..state import State, derived

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = [
    "PURCHASE_TYPE",
    "PendingPurchases",
    "pending_index",
    "pending_purchases",
    "reserved_points",
    "reserved_stock",
]

#: The card transaction type of a reward purchase.
PURCHASE_TYPE = "POINTS_SPENT_ON_REWARD"


def _is_pending_purchase(record: CardTransaction) -> bool:
    return record.status == "PENDING" and record.type == PURCHASE_TYPE


class PendingPurchases:
    """The PENDING purchases of one `State`: in creation order, by due time
    (a heap), and the points and units they hold per card and assignment.

    Kept in step from what the ledger guarantees: card transactions are only
    ever added (new ones are read from the end of the insertion-ordered dict,
    however they were added) and a PENDING purchase leaves that status only
    through `ledger.settle`, which reports it here (`settled`). Reads check
    the status too, so a purchase settled some other way is dropped when it
    surfaces. Fewer transactions than seen (something deleted one) rebuilds
    it; a new state object (restore, reset) gets a new one (`state.derived`).
    """

    __slots__ = ("heap", "points_held", "records", "seen", "seq", "state", "units_held")

    def __init__(self, state: State) -> None:
        self.state = state
        self._build()

    def _build(self) -> None:
        #: How many card transactions have been looked at.
        self.seen = 0
        #: id -> PENDING purchase, creation order.
        self.records: dict[str, CardTransaction] = {}
        #: (due_at, creation sequence, id): earliest first, creation order on
        #: ties. Entries of settled purchases are dropped when they surface.
        self.heap: list[tuple[datetime, int, str]] = []
        self.seq = 0
        #: card id -> points (positive) its PENDING purchases will debit
        self.points_held: dict[str, int] = {}
        #: assignment id -> units promised to its PENDING purchases
        self.units_held: dict[str, int] = {}
        self._absorb(self.state.card_transactions.values())

    def _absorb(self, records: Iterable[CardTransaction]) -> None:
        for record in records:
            self.seen += 1
            if _is_pending_purchase(record):
                self.records[record.id] = record
                self.points_held[record.card_id] = self.points_held.get(record.card_id, 0) - record.points
                assignment = record.reward_assignment_id
                if assignment is not None:
                    self.units_held[assignment] = self.units_held.get(assignment, 0) + 1
                if record.due_at is not None:
                    heapq.heappush(self.heap, (record.due_at, self.seq, record.id))
                self.seq += 1

    def sync(self) -> PendingPurchases:
        transactions = self.state.card_transactions
        new = len(transactions) - self.seen
        if new > 0:
            tail = list(islice(reversed(transactions.values()), new))
            tail.reverse()
            self._absorb(tail)
        elif new < 0:
            self._build()
        return self

    def settled(self, record: CardTransaction) -> None:
        """`record` is no longer PENDING: release what it held."""
        if self.records.pop(record.id, None) is None:
            return
        points = self.points_held[record.card_id] + record.points
        if points:
            self.points_held[record.card_id] = points
        else:
            del self.points_held[record.card_id]
        assignment = record.reward_assignment_id
        if assignment is not None:
            units = self.units_held[assignment] - 1
            if units:
                self.units_held[assignment] = units
            else:
                del self.units_held[assignment]

    def pending(self) -> list[CardTransaction]:
        """PENDING purchases in creation order."""
        for record in [r for r in self.records.values() if r.status != "PENDING"]:
            self.settled(record)  # pragma: no cover - settled without the ledger
        return list(self.records.values())

    def _top(self) -> tuple[datetime, int, str] | None:
        """The heap's first entry that is still a PENDING purchase due then."""
        heap, records = self.heap, self.records
        while heap:
            entry = heap[0]
            record = records.get(entry[2])
            if record is not None and record.status == "PENDING" and record.due_at == entry[0]:
                return entry
            heapq.heappop(heap)
            if record is not None and record.status != "PENDING":
                self.settled(record)  # pragma: no cover - settled without the ledger
        return None

    def next_due(self) -> datetime | None:
        top = self._top()
        return None if top is None else top[0]

    def first_due(self, now: datetime) -> CardTransaction | None:
        """The earliest purchase due at or before `now` (creation order on
        ties); it stays first until it is settled."""
        top = self._top()
        return None if top is None or top[0] > now else self.records[top[2]]


def pending_index(sim: Simulator) -> PendingPurchases:
    """The simulator's `PendingPurchases`, up to date."""
    return derived(sim, "pending_purchases", PendingPurchases).sync()


def pending_purchases(sim: Simulator) -> list[CardTransaction]:
    """PENDING purchases in creation order."""
    return pending_index(sim).pending()


def reserved_points(sim: Simulator, card_id: str) -> int:
    """Points (positive) that the card's PENDING purchases will debit."""
    return pending_index(sim).points_held.get(card_id, 0)


def reserved_stock(sim: Simulator, assignment_id: str) -> int:
    """Units of an assignment's stock promised to PENDING purchases."""
    return pending_index(sim).units_held.get(assignment_id, 0)
