"""Loyalty lookups by key: a member's card of a card definition, a customer's
memberships in a program, a program's assignment of a reward.

Earning (every custom event), referrals and reward purchases ask these
questions on every request; scanning all cards, members and assignments for
them grows with the size of the project. `LoyaltyLookups` answers them from
dicts built once per state object (derived, never in a snapshot: a restore
or reset brings a new state object, hence a new one).

Members, cards and assignments are created when a scenario loads, and no
operation adds or removes one, nor changes the ids these lookups key on
(statuses and balances, which do change, are read from the records
themselves). So the lookups only need to notice a change made behind the
operations' back (a test or a notebook adding or deleting a record): each
answer is checked against the state, and a changed count of members, cards
or assignments rebuilds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..records import Card, Member, RewardAssignment
from ..state import State, derived

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["LoyaltyLookups", "assignment_of", "card_for", "loyalty_lookups", "member_card", "members_of"]


class LoyaltyLookups:
    __slots__ = ("assignment_by_key", "card_by_key", "counts", "member_customers", "members_by_key", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.counts = (-1, -1, -1)
        self.card_by_key: dict[tuple[str, str], Card] = {}
        self.members_by_key: dict[tuple[str, str], list[Member]] = {}
        self.member_customers: frozenset[str] = frozenset()
        self.assignment_by_key: dict[tuple[str, str], RewardAssignment] = {}

    def sync(self) -> LoyaltyLookups:
        st = self.state
        fields = st.__dict__  # the state's fields (see `member_card`)
        counts = (len(fields["cards"]), len(fields["members"]), len(fields["reward_assignments"]))
        if counts != self.counts:
            self.counts = counts
            #: (member id, card definition id) -> the member's first such card
            self.card_by_key = {}
            for card in st.cards.values():
                self.card_by_key.setdefault((card.member_id, card.card_definition_id), card)
            #: (customer id, program id) -> memberships, creation order
            self.members_by_key = {}
            for member in st.members.values():
                self.members_by_key.setdefault((member.customer_id, member.program_id), []).append(member)
            #: customers with a membership of any program, in any status: the
            #: others hold no card (most customers of an event, in a busy shop)
            self.member_customers = frozenset(customer_id for customer_id, _ in self.members_by_key)
            #: (program id, reward id) -> the first assignment of the reward
            self.assignment_by_key = {}
            for assignment in st.reward_assignments.values():
                self.assignment_by_key.setdefault((assignment.program_id, assignment.reward_id), assignment)
        return self


def _lookups(sim: Simulator) -> LoyaltyLookups:
    return derived(sim, "loyalty_lookups", LoyaltyLookups).sync()


def loyalty_lookups(sim: Simulator) -> LoyaltyLookups:
    """The lookups, in step with the state now: a caller that asks several
    questions with nothing changed in between (an event planning its credits)
    passes them as `synced=` instead of having each question check them."""
    return derived(sim, "loyalty_lookups", LoyaltyLookups).sync()  # `_lookups`, one call less (every event)


def card_for(sim: Simulator, member_id: str, card_definition_id: str) -> Card | None:
    """The member's (first) card of the card definition."""
    card = _lookups(sim).card_by_key.get((member_id, card_definition_id))
    if card is not None and sim.state.cards.get(card.id) is not card:  # pragma: no cover - replaced record
        _lookups(sim).counts = (-1, -1, -1)
        return card_for(sim, member_id, card_definition_id)
    return card


def members_of(sim: Simulator, customer_id: str, program_id: str) -> list[Member]:
    """The customer's memberships of the program, in creation order."""
    members = _lookups(sim).members_by_key.get((customer_id, program_id), [])
    live = sim.state.members
    for m in members:
        if live.get(m.id) is not m:  # pragma: no cover - replaced record
            _lookups(sim).counts = (-1, -1, -1)
            return members_of(sim, customer_id, program_id)
    return members


def member_card(
    sim: Simulator,
    customer_id: str,
    program_id: str,
    card_definition_id: str,
    *,
    synced: LoyaltyLookups | None = None,
) -> Card | None:
    """The card of the definition held by the customer's first ACTIVE
    membership of the program (the card an earning rule credits): the
    answer of `members_of` then `card_for`, from one look at the lookups (an
    event asks it once per earning rule; `synced`: see `loyalty_lookups`)."""
    look = _lookups(sim) if synced is None else synced
    members = look.members_by_key.get((customer_id, program_id))
    if not members:
        return None
    # Records' fields are read from their `__dict__` (where pydantic keeps
    # them): an attribute read on a pydantic model passes through its
    # `__getattr__` hook and costs about five dict reads.
    st = sim.state.__dict__
    live = st["members"]
    for member in members:
        fields = member.__dict__
        member_id = fields["id"]
        if live.get(member_id) is not member:  # pragma: no cover - replaced record
            break
        if fields["status"] == "ACTIVE":
            card = look.card_by_key.get((member_id, card_definition_id))
            if card is None or st["cards"].get(card.__dict__["id"]) is card:
                return card
            break  # pragma: no cover - replaced record
    else:
        return None
    for member in members_of(sim, customer_id, program_id):  # pragma: no cover - the checked way
        if member.status == "ACTIVE":
            return card_for(sim, member.id, card_definition_id)
    return None  # pragma: no cover


def assignment_of(sim: Simulator, program_id: str, reward_id: str) -> RewardAssignment | None:
    """The (first) assignment of the reward in the program."""
    assignment = _lookups(sim).assignment_by_key.get((program_id, reward_id))
    if assignment is not None and sim.state.reward_assignments.get(assignment.id) is not assignment:
        _lookups(sim).counts = (-1, -1, -1)  # replaced behind our back
        return assignment_of(sim, program_id, reward_id)
    return assignment
