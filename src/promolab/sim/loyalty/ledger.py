"""The card ledger: the only code that writes card transactions.

Every change to a loyalty card balance goes through `post`, so that the
invariant "a card's balance is its opening balance plus the points of its
APPROVED transactions" holds by construction, whoever moved the points
(earning rules, referrals, reward purchases).

A balance stays within 0 .. `MAX_BALANCE` (2^63-1, the interface's integer
bound, which every document and model declares). Planners check a credit
with `fits` before anything changes, and refuse it in their own words;
`post` and `settle` refuse a balance outside the bounds as a bug (a
ValueError), like a negative one, rather than store what no answer could
render.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from ...models.common import INT64_MAX
from ..fast_validate import validated
from ..records import Card, CardTransaction
from .lookups import card_for
from .reservations import pending_index

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["MAX_BALANCE", "card_for", "fits", "post", "settle"]

#: The most points a card can hold.
MAX_BALANCE = INT64_MAX


def fits(card: Card, points: int) -> bool:
    """Whether crediting `points` (> 0) leaves the card within `MAX_BALANCE`."""
    return points <= MAX_BALANCE - card.balance


def post(
    sim: Simulator,
    card: Card,
    *,
    type: str,
    points: int,
    status: str = "APPROVED",
    details: dict[str, Any] | None = None,
    due_at: datetime | None = None,
    reward_assignment_id: str | None = None,
) -> CardTransaction:
    """Record a transaction; an APPROVED one moves the balance at once.

    `points` is signed (negative spends). Callers check balances first: a
    transaction that would drive a card below zero is a bug, refused here.
    """
    fields = card.__dict__  # the record's fields, read once (an attribute read costs ~5x)
    balance = fields["balance"]
    approved = status == "APPROVED"
    if approved and not 0 <= balance + points <= MAX_BALANCE:
        raise ValueError(f"card {fields['id']} balance {balance} cannot take {points} points")
    st = sim.state
    definition_id = fields["card_definition_id"]
    card_type = st.card_definitions[definition_id].card_type
    transaction_id = sim.ids.next("card_transaction")
    full_details = {"reason": None, "metadata": {}, "points": {"total": abs(points)}}
    if details:
        full_details.update(details)
    record = validated(
        CardTransaction,
        {
            "id": transaction_id,
            "card_id": fields["id"],
            "program_id": fields["program_id"],
            "member_id": fields["member_id"],
            "card_definition_id": definition_id,
            "card_type": card_type,
            "type": type,
            "status": status,
            "points": points,
            "details": full_details,
            "created_at": sim.now,
            "due_at": due_at,
            "reward_assignment_id": reward_assignment_id,
        },
    )
    if approved:
        card.balance = balance + points
    st.card_transactions[transaction_id] = record
    return record


def settle(
    sim: Simulator,
    record: CardTransaction,
    status: Literal["APPROVED", "REJECTED"],
    *,
    rejection: dict[str, str] | None = None,
) -> None:
    """Move a PENDING transaction to its final status (APPROVED moves points)."""
    if record.status != "PENDING":
        raise ValueError(f"transaction {record.id} is {record.status}, not PENDING")
    if status == "APPROVED":
        card = sim.state.cards[record.card_id]
        if not 0 <= card.balance + record.points <= MAX_BALANCE:
            raise ValueError(f"card {card.id} balance {card.balance} cannot take {record.points} points")
        card.balance += record.points
    record.status = status
    record.updated_at = sim.now
    record.due_at = None
    pending_index(sim).settled(record)
    if rejection is not None:
        record.details = {**record.details, "rejection": rejection}
