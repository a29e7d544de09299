"""Reading loyalty through the v1 endpoints: campaigns, their tiers, earning rules, rewards and members.

The simulator's programs are the v2 API's: a program holds card definitions
(wallets), each member one card per definition. The v1 endpoints show one
LOYALTY_PROGRAM campaign per card definition, found by the card definition's
id, because a v1 campaign's card holds one balance, its earning rules earn
one kind of points and its rewards cost one price (docs/decisions.md,
"Loyalty programs of a pull"). The simulator has no loyalty tiers, so a
campaign lists none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...models import loyalty_reads
from ..card_tallies import CardTally, MemberCard, card_tallies
from ..fast_validate import validated
from ..listing import Listing, at_or_after, at_or_before, equals
from ..operation import bind
from ..records import CardDefinition, EarningRule, Program, RewardAssignment
from ..refusals import NotFound
from ..render.loyalty import (
    campaign_name,
    credited_definition,
    earning_rule_body,
    loyalty_campaign_body,
    member_card_body,
    reward_assignment_body,
)

if TYPE_CHECKING:
    from ..simulator import Simulator
    from ..state import State


def _created(record: EarningRule | RewardAssignment) -> datetime | None:
    return record.created_at


#: Nothing changes these after the scenario made them: `updated_at` sorts as
#: `created_at` does (docs/decisions.md, "Lists").
_RULES_BY_TIME: Mapping[str, Callable[[EarningRule], Any]] = {"created_at": _created, "updated_at": _created}


def _program_created(pair: tuple[CardDefinition, Program]) -> datetime | None:
    return pair[1].created_at


#: A campaign is listed as (card definition, its program): it sorts by the
#: program's creation. `expand` changes nothing: the campaigns have no category.
CAMPAIGNS: Listing[tuple[CardDefinition, Program]] = Listing(
    loyalty_reads.LIST_LOYALTY_PROGRAMS, "campaigns",
    sort={"created_at": _program_created, "updated_at": _program_created}, prefiltered=frozenset({"expand"}),
)
#: The simulator holds no loyalty tiers: the list is always empty (its query still checked).
TIERS: Listing[object] = Listing(loyalty_reads.LIST_LOYALTY_TIERS, "data",
                                 sort={"created_at": lambda tier: None, "updated_at": lambda tier: None})
EARNING_RULES: Listing[EarningRule] = Listing(loyalty_reads.LIST_EARNING_RULES, "data", sort=_RULES_BY_TIME)
#: `assignment_id` is applied by the operation (it picks one assignment of the campaign).
REWARD_ASSIGNMENTS: Listing[RewardAssignment] = Listing(
    loyalty_reads.LIST_REWARD_ASSIGNMENTS, "data", prefiltered=frozenset({"assignment_id"}),
)
#: A card without APPROVED transactions.
_UNCHANGED = CardTally()


def _joined(held: MemberCard) -> datetime | None:
    return held.member.created_at


def _changed(held: MemberCard) -> datetime | None:
    return held.tally.last_change


#: A card is created with its member; `updated_at` is its last APPROVED
#: transaction's (none: it never changed, and sorts first). `customer` reads
#: the customers (an id or a source id), so the operation applies it.
MEMBERS: Listing[MemberCard] = Listing(
    loyalty_reads.LIST_MEMBERS, "vouchers",
    sort={"created_at": _joined, "updated_at": _changed, "code": lambda held: held.card.id},
    filters={"created_before": at_or_before(_joined), "created_after": at_or_after(_joined),
             "updated_before": at_or_before(_changed), "updated_after": at_or_after(_changed),
             "code": equals(lambda held: held.card.id)},
    prefiltered=frozenset({"customer"}),
)


def _definition(state: State, campaign_id: str) -> CardDefinition:
    """The campaign by its id, or by its name as the service also finds it."""
    found = state.card_definitions.get(campaign_id) or next(
        (d for d in state.card_definitions.values() if campaign_name(state.programs[d.program_id], d) == campaign_id),
        None)
    if found is None:
        raise NotFound("campaign", campaign_id)
    return found


def _campaign(state: State, pair: tuple[CardDefinition, Program]) -> dict[str, Any]:
    definition, program = pair
    cards = sum(1 for card in state.cards.values() if card.card_definition_id == definition.id)
    return loyalty_campaign_body(definition, program, cards)


def list_loyalty_programs(sim: Simulator, /, **query: object) -> models.LoyaltyCampaignList:
    state = sim.state
    pairs = [(d, state.programs[d.program_id]) for d in state.card_definitions.values()]
    body = CAMPAIGNS.answer(pairs, query, lambda pair: _campaign(state, pair))
    return validated(models.LoyaltyCampaignList, body)


def get_loyalty_program(sim: Simulator, *, campaign_id: str) -> models.LoyaltyCampaign:
    state = sim.state
    definition = _definition(state, campaign_id)
    return validated(models.LoyaltyCampaign, _campaign(state, (definition, state.programs[definition.program_id])))


def list_loyalty_tiers(sim: Simulator, /, *, campaign_id: str, **query: object) -> models.LoyaltyTierList:
    _definition(sim.state, campaign_id)
    return validated(models.LoyaltyTierList, TIERS.answer([], query, lambda tier: {}))


def list_earning_rules(sim: Simulator, /, *, campaign_id: str, **query: object) -> models.LoyaltyEarningRuleList:
    """The program's rules whose incentive credits this campaign's card (a MATERIAL or DIGITAL one credits none)."""
    state = sim.state
    definition = _definition(state, campaign_id)
    rules = [r for r in state.earning_rules.values() if r.program_id == definition.program_id
             and credited_definition(state.incentives[r.incentive_id]) == definition.id]
    body = EARNING_RULES.answer(rules, query, lambda r: earning_rule_body(r, state.incentives[r.incentive_id], campaign_id))
    return validated(models.LoyaltyEarningRuleList, body)


def list_reward_assignments(sim: Simulator, /, *, campaign_id: str,
                            **query: object) -> models.LoyaltyRewardAssignmentList:
    """The program's assignments with a price in this campaign's points, at that price."""
    state = sim.state
    definition = _definition(state, campaign_id)
    prices = {a.id: c.points for a in state.reward_assignments.values() if a.program_id == definition.program_id
              for c in a.costs if c.card_definition_id == definition.id}
    offered = [state.reward_assignments[aid] for aid in prices]
    wanted = query.get("assignment_id")
    if isinstance(wanted, str):
        offered = [a for a in offered if a.id == wanted]
    body = REWARD_ASSIGNMENTS.answer(offered, query, lambda a: reward_assignment_body(a, campaign_id, prices[a.id]))
    return validated(models.LoyaltyRewardAssignmentList, body)


def list_members(sim: Simulator, /, *, campaign_id: str, **query: object) -> models.LoyaltyMemberList:
    """The cards of this campaign's card definition, each with its member (`customer`: an id or a source id)."""
    state = sim.state
    definition = _definition(state, campaign_id)
    tallies = card_tallies(state)
    held = [MemberCard(c, state.members[c.member_id], tallies.get(c.id) or _UNCHANGED)
            for c in state.cards.values() if c.card_definition_id == definition.id]
    wanted = query.get("customer")
    if isinstance(wanted, str):
        found = state.customers.get(wanted)
        holder = found.id if found is not None else next(
            (c.id for c in state.customers.values() if c.source_id == wanted), None)
        held = [h for h in held if h.member.customer_id == holder]
    name = campaign_name(state.programs[definition.program_id], definition)
    body = MEMBERS.answer(held, query, lambda h: member_card_body(h, name, sim.seed))
    return validated(models.LoyaltyMemberList, body)


LIST_LOYALTY_PROGRAMS = bind(loyalty_reads.LIST_LOYALTY_PROGRAMS, list_loyalty_programs, write=False)
GET_LOYALTY_PROGRAM = bind(loyalty_reads.GET_LOYALTY_PROGRAM, get_loyalty_program, write=False)
LIST_LOYALTY_TIERS = bind(loyalty_reads.LIST_LOYALTY_TIERS, list_loyalty_tiers, write=False)
LIST_EARNING_RULES = bind(loyalty_reads.LIST_EARNING_RULES, list_earning_rules, write=False)
LIST_REWARD_ASSIGNMENTS = bind(loyalty_reads.LIST_REWARD_ASSIGNMENTS, list_reward_assignments, write=False)
LIST_MEMBERS = bind(loyalty_reads.LIST_MEMBERS, list_members, write=False)

#: This family's operations, in the order of `loyalty_reads.READS`.
READS = (LIST_LOYALTY_PROGRAMS, GET_LOYALTY_PROGRAM, LIST_LOYALTY_TIERS, LIST_EARNING_RULES, LIST_REWARD_ASSIGNMENTS,
         LIST_MEMBERS)
