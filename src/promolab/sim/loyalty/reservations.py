"""Points and stock held by PENDING reward purchases.

A purchase does not move the card balance nor the assignment stock until it
is APPROVED, but from the moment it is accepted its points and its unit are
spoken for: a later purchase sees `available = balance - reserved points`
and `stock - reserved units`. That is what keeps two purchases in flight from
spending the same points twice or overselling the last unit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..records import CardTransaction

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["PURCHASE_TYPE", "pending_purchases", "reserved_points", "reserved_stock"]

#: The card transaction type of a reward purchase.
PURCHASE_TYPE = "POINTS_SPENT_ON_REWARD"


def pending_purchases(sim: Simulator) -> Iterator[CardTransaction]:
    """PENDING purchases in creation order."""
    for record in sim.state.card_transactions.values():
        if record.status == "PENDING" and record.type == PURCHASE_TYPE:
            yield record


def reserved_points(sim: Simulator, card_id: str) -> int:
    """Points (positive) that the card's PENDING purchases will debit."""
    return sum(-t.points for t in pending_purchases(sim) if t.card_id == card_id)


def reserved_stock(sim: Simulator, assignment_id: str) -> int:
    """Units of an assignment's stock promised to PENDING purchases."""
    return sum(1 for t in pending_purchases(sim) if t.reward_assignment_id == assignment_id)
