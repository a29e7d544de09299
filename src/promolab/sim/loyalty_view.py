"""Read-back of a loyalty member: cards, balances, transactions, rewards.

The interface does not show how a purchase's outcome is read back; this view
is what the client's `control.member(...)` and `/_sim/loyalty/members/{id}`
return, built from the same records the operations change.

Each card shows its `balance` (points of APPROVED transactions), `reserved`
(points that its PENDING reward purchases will debit) and `available`
(`balance - reserved`: what a new purchase may spend).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .loyalty.reservations import pending_purchases
from .render import render_card_transaction

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["member_view"]


def member_view(sim: Simulator, member_id: str) -> dict[str, Any]:
    # Under the simulator's lock: a served simulator answers this view from
    # another thread than the writes, and the PENDING purchases come from a
    # derived index that the writes keep in step (`loyalty.reservations`).
    with sim._lock:
        return _member_view(sim, member_id)


def _member_view(sim: Simulator, member_id: str) -> dict[str, Any]:
    st = sim.state
    member = st.members[member_id]
    cards = [c for c in st.cards.values() if c.member_id == member_id]
    reserved: dict[str, int] = {}
    for t in pending_purchases(sim):
        if t.member_id == member_id:
            reserved[t.card_id] = reserved.get(t.card_id, 0) - t.points
    return {
        "id": member.id,
        "program_id": member.program_id,
        "customer_id": member.customer_id,
        "status": member.status,
        "cards": [
            {
                "id": c.id,
                "card_definition_id": c.card_definition_id,
                "card_type": st.card_definitions[c.card_definition_id].card_type,
                "balance": c.balance,
                "reserved": reserved.get(c.id, 0),
                "available": c.balance - reserved.get(c.id, 0),
            }
            for c in cards
        ],
        "transactions": [
            render_card_transaction(t).model_dump(mode="json")
            for t in st.card_transactions.values()
            if t.member_id == member_id
        ],
        "rewards": [
            g.model_dump(mode="json")
            for g in st.granted_rewards.values()
            if g.member_id == member_id
        ],
    }
