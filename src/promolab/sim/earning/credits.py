"""An event's credits: planned (nothing changes), then applied.

`plan_credits` goes through the earning rules bound to the event, in creation
order, and keeps those that credit (the rules in `promolab.sim.earning`);
`apply_credits` posts them through `ledger.post` as APPROVED POINTS_EARNED
transactions, each using one unit of its incentive's stock.

A card holds at most 2^63-1 points (the bound of every integer of the
interface): an event whose credits would take a card past it (a huge
`amount`, or a balance already near the bound) is refused, 400
`invalid_payload`, before anything changes. One check per credit, on the
planned result; the arithmetic itself is exact, so nothing is lost before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from ..loyalty import ledger
from ..loyalty.lookups import loyalty_lookups, member_card
from ..records import Card, CardTransaction, EarningRule, Incentive
from ..refusals import BadRequest, InvalidPayload, NotFound
from ..state import derived
from .caches import CACHE_KEY, StateCaches, Window
from .points import MAX_POINTS, points_for
from .validation import RuleInputs, compiled_rules, covers, passes, rule_inputs

if TYPE_CHECKING:
    from ..simulator import Simulator
    from ..state import State

__all__ = ["Credit", "apply_credits", "card_named", "plan_credits"]


class Credit(NamedTuple):
    """One planned credit (a tuple: an event plans one per earning rule that credits)."""

    rule: EarningRule
    incentive: Incentive
    card: Card
    points: int


def card_named(sim: Simulator, code: str, customer_id: str | None) -> Card:
    """The card a request's `loyalty.code` names: 404 when unknown, 400
    `invalid_customer` when it is not the event customer's."""
    card = sim.state.cards.get(code)
    if card is None:
        raise NotFound("loyalty_card", code)
    member = sim.state.members.get(card.member_id)
    if member is None or member.customer_id != customer_id:
        raise BadRequest(
            f"Loyalty card {code} does not belong to customer {customer_id or '(new customer)'}",
            key="invalid_customer",
            message="Invalid customer",
            resource_id=code,
            resource_type="loyalty_card",
        )
    return card


def _program_open(st: State, program_id: str, now: datetime) -> bool:
    program = st.programs.get(program_id)
    if program is None or program.status != "ACTIVE":
        return False
    if program.start_date is not None and now < program.start_date:
        return False
    return not (program.expiration_date is not None and now > program.expiration_date)


def _open_now(caches: StateCaches, st: State, program_id: str, now: datetime) -> bool:
    """`_program_open`, comparing UTC instants: stored dates carry the tzinfo
    they were parsed with, and comparing datetimes of two tzinfos asks both
    for their offset (about a microsecond a comparison). The UTC copies are
    kept per state object and program, and used while the program record
    still holds the very dates they were made from."""
    program = st.programs.get(program_id)
    if program is None or program.status != "ACTIVE":
        return False
    windows = caches.windows
    window = windows.get(program_id)
    if (
        window is None
        or window.program is not program
        or window.start_date is not program.start_date
        or window.expiration_date is not program.expiration_date
    ):
        window = windows[program_id] = Window(
            program,
            program.start_date,
            program.expiration_date,
            None if program.start_date is None else program.start_date.astimezone(UTC),
            None if program.expiration_date is None else program.expiration_date.astimezone(UTC),
        )
    if window.start_utc is not None and now < window.start_utc:
        return False
    return not (window.expiration_utc is not None and now > window.expiration_utc)


def plan_credits(
    sim: Simulator,
    *,
    event: str,
    customer: Mapping[str, Any],
    event_metadata: Mapping[str, Any],
    card: Card | None = None,
) -> list[Credit]:
    """The credits an event earns, changing nothing (stock use is counted
    within the event: two rules on one incentive with one unit left credit once).

    Planning changes nothing, so the conditions of a rule are tested cheapest
    first (the card before the program's window and the validation rules),
    and what all rules of the event share is asked once: the loyalty lookups,
    each program's window, the order and customer the validation rules read."""
    cid = customer.get("id")
    if cid is None:
        return []  # a customer created by this event is nobody's member yet
    st = sim.state
    look = loyalty_lookups(sim) if card is None else None
    if look is not None and cid not in look.member_customers:
        return []  # a member of no program holds no card (`member_card` finds none)
    now = sim.now
    incentives = st.incentives
    caches = derived(sim, CACHE_KEY, StateCaches)  # `state_caches`, one call less (every event)
    stock_used: dict[str, int] = {}
    credits: list[Credit] = []
    program_open: dict[str, bool] = {}
    inputs: RuleInputs | None = None
    for rule in st.earning_rules.values():
        # The records' fields are read from their `__dict__` (where pydantic
        # keeps them): an attribute read on a pydantic model passes through its
        # `__getattr__` hook and costs several dict reads; this loop reads many.
        fields = rule.__dict__
        if fields["event"] != event or not fields["active"]:
            continue
        incentive = incentives.get(fields["incentive_id"])
        if incentive is None:
            continue
        offer = incentive.__dict__
        if offer["status"] != "ACTIVE":
            continue
        incentive_id = offer["id"]
        if offer["stock"] - (stock_used.get(incentive_id, 0) if stock_used else 0) <= 0:
            continue
        kind = offer["type"]  # the detail object `incentive_points` reads, and its card definition
        detail = offer["points"] if kind == "POINTS" else offer["points_proportional"]
        definition = None if detail is None else detail.get("card_definition_id")
        if definition is None:
            continue
        program_id = fields["program_id"]
        if card is None:
            target = member_card(sim, cid, program_id, definition, synced=look)
            if target is None:
                continue
        else:
            member = st.members.get(card.member_id)
            if (
                card.program_id != program_id
                or card.card_definition_id != definition
                or member is None
                or member.status != "ACTIVE"
            ):
                continue
            target = card
        is_open = program_open.get(program_id)
        if is_open is None:
            is_open = program_open[program_id] = _open_now(caches, st, program_id, now)
        if not is_open:
            continue
        if fields["validation_rules"]:
            compiled = compiled_rules(caches, rule)
            if inputs is None or not covers(inputs, compiled):
                inputs = rule_inputs(
                    sim,
                    caches,
                    customer,
                    event_metadata,
                    compiled.reads_segments or (inputs is not None and inputs.with_segments),
                    compiled.reads_event or (inputs is not None and inputs.with_event),
                )
            if not passes(compiled.rules, inputs, now):
                continue
        points = points_for(kind, detail, customer.get("metadata") or {}, event_metadata)
        if points <= 0:
            continue
        stock_used[incentive_id] = stock_used.get(incentive_id, 0) + 1
        credits.append(Credit(rule, incentive, target, points))
    if credits:
        _check_room(credits)
    return credits


def _check_room(credits: list[Credit]) -> None:
    """Refuse (400 `invalid_payload`) credits that would take a card past
    `MAX_POINTS`, counting every credit of the event to the same card."""
    planned: dict[str, int] = {}
    for rule, incentive, card, points in credits:
        total = planned.get(card.id, 0) + points
        planned[card.id] = total
        if not ledger.fits(card, total):
            shown = f"{points}" if points <= MAX_POINTS else f"more than {MAX_POINTS}"
            raise InvalidPayload(
                f"Earning rule {rule.id} (incentive {incentive.id}) would credit {shown} points to loyalty "
                f"card {card.id}, whose balance is {card.balance}: a card holds at most {MAX_POINTS} points",
                resource_id=card.id,
                resource_type="loyalty_card",
            )


def apply_credits(sim: Simulator, credits: list[Credit], *, event: str, event_id: str) -> list[CardTransaction]:
    """Post the planned credits as APPROVED POINTS_EARNED transactions."""
    posted = []
    reason = f"custom event {event}"
    now = sim.now
    for rule, incentive, card, points in credits:
        incentive_id = incentive.id
        incentive.stock -= 1
        incentive.updated_at = now  # its stock changed: GET incentive says when
        details = {
            "reason": reason,
            "metadata": {
                "event": event,
                "event_id": event_id,
                "earning_rule_id": rule.id,
                "incentive_id": incentive_id,
            },
        }
        posted.append(ledger.post(sim, card, type="POINTS_EARNED", points=points, details=details))
    return posted
