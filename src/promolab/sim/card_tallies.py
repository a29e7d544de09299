"""What a card's history adds up to, as the v1 members list shows each card.

The v1 loyalty card states more than a balance: `loyalty_card.points` (what
was credited in all), `redemption.redeemed_points` / `redeemed_quantity`
(what purchases spent, how many) and `updated_at` (its last change). The
simulator keeps the balance and the card transactions; one pass over the
transactions gives every card's tally, so a page of members costs one scan,
not one per card.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from .records import Card, Member

if TYPE_CHECKING:
    from .state import State

__all__ = ["CardTally", "MemberCard", "card_tallies"]


@dataclass(frozen=True, slots=True)
class CardTally:
    """A card's APPROVED debits (points and how many) and the instant of its last APPROVED change."""

    redeemed_points: int = 0
    redeemed_quantity: int = 0
    last_change: datetime | None = None


@dataclass(frozen=True, slots=True)
class MemberCard:
    """One card as the v1 members list reads it: the card, its member, its tally."""

    card: Card
    member: Member
    tally: CardTally


def card_tallies(state: State) -> dict[str, CardTally]:
    """card id -> its tally (a card without APPROVED transactions has none: `CardTally()`)."""
    tallies: dict[str, CardTally] = {}
    for t in state.card_transactions.values():
        if t.status != "APPROVED":
            continue
        before = tallies.get(t.card_id, CardTally())
        changed = t.updated_at or t.created_at
        last = changed if before.last_change is None or changed > before.last_change else before.last_change
        spent = -t.points if t.points < 0 else 0
        tallies[t.card_id] = CardTally(before.redeemed_points + spent, before.redeemed_quantity + (spent > 0), last)
    return tallies
