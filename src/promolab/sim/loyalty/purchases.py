"""The rules a reward purchase must pass, in the order they are checked.

The same checks run twice: when the purchase is requested (a failure answers
the request with its status and key, and nothing is stored) and when the
PENDING purchase is processed on the simulated clock (a failure REJECTS the
transaction with `details.rejection.reason` = the same key). So a rejection
reason always names the rule a new request would have failed on.

Order of the checks (the first failure wins; docs/loyalty.md):

1. 404 `not_found`: program, then member (also a member of another program),
   then reward.
2. 400 `reward_not_assigned`: the reward is not offered by the program.
3. 423 `non_active_program`, `program_outside_validity_window`,
   `non_active_member`, `non_active_reward` (DRAFT / INACTIVE / DELETED).
4. 423 `reward_out_of_stock`: no unit left once PENDING purchases have
   taken theirs.
5. The price: a cost of 0 points is free (`NO_SPENT_ON_REWARD`); otherwise
   423 `no_target_card`, `zero_card_balance`, `insufficient_card_balance`
   (points held by the card's PENDING purchases are not available).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple

from ..clock import format_instant
from ..records import Card, Member, Program, Reward, RewardAssignment
from ..refusals import BadRequest, Locked, NotFound
from ..state import derived
from .lookups import assignment_of, card_for
from .reservations import PendingPurchases, pending_index

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = [
    "Price",
    "Target",
    "assignment_of",
    "check_card",
    "check_open",
    "check_request",
    "check_stock",
    "choose_price",
    "resolve",
]


class Target(NamedTuple):
    """What a purchase is about, all ids resolved."""

    program: Program
    member: Member
    reward: Reward
    assignment: RewardAssignment


class Price(NamedTuple):
    """The cost chosen for a purchase; `card` is None for a free reward."""

    card_definition_id: str
    points: int
    card: Card | None


def resolve(sim: Simulator, program_id: str, member_id: str, reward_id: str) -> Target:
    st = sim.state
    program = st.programs.get(program_id)
    if program is None:
        raise NotFound("program", program_id)
    member = st.members.get(member_id)
    if member is None or member.program_id != program_id:
        raise NotFound("member", member_id)
    reward = st.rewards.get(reward_id)
    if reward is None:
        raise NotFound("reward", reward_id)
    assignment = assignment_of(sim, program_id, reward_id)
    if assignment is None:
        raise BadRequest(
            f"Reward {reward_id} is not assigned to program {program_id}",
            key="reward_not_assigned",
            message="Reward not assigned to the program",
            resource_id=reward_id,
            resource_type="reward",
        )
    return Target(program, member, reward, assignment)


def check_open(sim: Simulator, program: Program, member: Member, reward: Reward) -> None:
    """The program, the member and the reward must all be active now."""
    if program.status != "ACTIVE":
        raise Locked(
            f"Program {program.id} is {program.status}",
            key="non_active_program", message="Program is not active",
            resource_id=program.id, resource_type="program",
        )
    now = sim.now
    if _outside_window(sim, program, now):
        window = (
            f"from {_when(program.start_date, 'the beginning')} "
            f"until {_when(program.expiration_date, 'no end')}"
        )
        raise Locked(
            f"Program {program.id} is valid {window}; now is {format_instant(now)}",
            key="program_outside_validity_window", message="Program is outside its validity window",
            resource_id=program.id, resource_type="program",
        )
    if member.status != "ACTIVE":
        raise Locked(
            f"Member {member.id} is {member.status}",
            key="non_active_member", message="Member is not active",
            resource_id=member.id, resource_type="member",
        )
    if reward.status != "ACTIVE":
        raise Locked(
            f"Reward {reward.id} is {reward.status}",
            key="non_active_reward", message="Reward is not active",
            resource_id=reward.id, resource_type="reward",
        )


def _outside_window(sim: Simulator, program: Program, now: datetime) -> bool:
    """Whether `now` is before the program's start or after its expiration.

    Compared with UTC copies of the bounds: a record's instants carry
    pydantic's tzinfo, and comparing one with the clock's UTC instant calls
    back into it, at ten times the cost of the comparison itself. The copies
    are kept per program and state (`derived`) with the very bound objects
    they were made from, so a changed bound is noticed."""
    windows: dict[str, _Window] = derived(sim, _WINDOWS_KEY, _no_windows)
    start, end = program.start_date, program.expiration_date
    window = windows.get(program.id)
    if window is None or window[0] is not start or window[1] is not end:
        window = windows[program.id] = (start, end, _utc(start), _utc(end))
    utc_start, utc_end = window[2], window[3]
    return (utc_start is not None and now < utc_start) or (utc_end is not None and now > utc_end)


#: (start, expiration, the same in UTC) of a program's validity window.
_Window = tuple[datetime | None, datetime | None, datetime | None, datetime | None]
_WINDOWS_KEY = "loyalty.program_windows"


def _no_windows(state: object) -> dict[str, _Window]:
    return {}


def _utc(moment: datetime | None) -> datetime | None:
    return None if moment is None else moment.astimezone(UTC)


def check_stock(assignment: RewardAssignment, reserved: int) -> None:
    """At least one unit must be left beyond those promised to pending purchases."""
    if assignment.stock is None or assignment.stock - reserved >= 1:
        return
    held = f", {reserved} held by pending purchases" if reserved else ""
    raise Locked(
        f"Reward {assignment.reward_id} is out of stock in program {assignment.program_id} "
        f"(assignment {assignment.id}: {assignment.stock} left{held})",
        key="reward_out_of_stock", message="Reward out of stock",
        resource_id=assignment.id, resource_type="reward_assignment",
    )


def check_card(card: Card, points: int, reserved: int) -> None:
    """The card must cover `points` (> 0) beyond the `reserved` points."""
    if card.balance == 0:
        raise Locked(
            f"Card {card.id} has a balance of 0 points; the reward costs {points}",
            key="zero_card_balance", message="Card balance is zero",
            resource_id=card.id, resource_type="card",
        )
    available = card.balance - reserved
    if available < points:
        held = f" ({card.balance} balance, {reserved} held by pending purchases)"
        raise Locked(
            f"Card {card.id} has {available} points available{held if reserved else ''}; "
            f"the reward costs {points}",
            key="insufficient_card_balance", message="Operation exceeds the available card balance",
            resource_id=card.id, resource_type="card",
        )


def choose_price(
    sim: Simulator, member: Member, assignment: RewardAssignment, *, pending: PendingPurchases | None = None
) -> Price:
    """Pick the cost the member pays, in the assignment's order of costs.

    A cost of 0 points makes the reward free (no card needed). Otherwise the
    first cost whose card covers it is chosen; when none does, the refusal
    is the one of the first cost the member holds a card for. `pending`: the
    simulator's `pending_index`, when the caller has it at hand.
    """
    for cost in assignment.costs:
        if cost.points == 0:
            return Price(cost.card_definition_id, 0, None)
    held = (pending_index(sim) if pending is None else pending).points_held
    refusal: Locked | None = None
    for cost in assignment.costs:
        card = card_for(sim, member.id, cost.card_definition_id)
        if card is None:
            continue
        try:
            check_card(card, cost.points, held.get(card.id, 0))
        except Locked as exc:
            refusal = refusal or exc
            continue
        return Price(cost.card_definition_id, cost.points, card)
    if refusal is not None:
        raise refusal
    wanted = ", ".join(c.card_definition_id for c in assignment.costs)
    raise Locked(
        f"Member {member.id} has no card of card definition {wanted}, "
        f"in which reward {assignment.reward_id} is priced",
        key="no_target_card", message="Member has no card to pay for the reward",
        resource_id=member.id, resource_type="member",
    )


def check_request(
    sim: Simulator, program_id: str, member_id: str, reward_id: str
) -> tuple[Target, Price]:
    """Every request-time rule; raises the first failure, changes nothing."""
    target = resolve(sim, program_id, member_id, reward_id)
    check_open(sim, target.program, target.member, target.reward)
    pending = pending_index(sim)
    check_stock(target.assignment, pending.units_held.get(target.assignment.id, 0))
    return target, choose_price(sim, target.member, target.assignment, pending=pending)


def _when(value: datetime | None, default: str) -> str:
    return default if value is None else format_instant(value)
