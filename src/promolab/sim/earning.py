"""Earning rules: points credited to loyalty cards when a custom event arrives.

For an event named E, every earning rule bound to E is considered, in
creation order. A rule credits when:

- the rule is active, its incentive is ACTIVE with stock left (each credit
  uses one unit of stock), and its program is ACTIVE and within its validity
  window;
- its `validation_rules` pass (see `rules_pass` below);
- there is a card to credit: the card of the incentive's card definition held
  by the event customer's membership in the rule's program (an ACTIVE member).
  With `loyalty: {code}` the event names the card (by card id): only rules of
  that card's program whose incentive credits that card's definition apply,
  and they credit that card;
- the points are > 0.

Points: POINTS incentives give `points.value`. POINTS_PROPORTIONAL incentives
give `value * floor(x / every)` where x is:

| calculation_type            | x                                                        |
|-----------------------------|----------------------------------------------------------|
| CUSTOMER_METADATA_VALUE     | customer metadata `customer.metadata.property`           |
| ORDER_METADATA_VALUE        | event metadata `order.metadata.property`                 |
| PRE_DISCOUNT_ORDER_AMOUNT   | event metadata `amount`                                  |
| POST_DISCOUNT_ORDER_AMOUNT  | event metadata `total_amount`, else `amount`             |
| ORDER_ITEMS_* (3 kinds)     | none: an event carries no order items, 0 points          |

A missing, non-numeric or negative x gives 0 points. Numbers may be JSON
numbers or numeric strings; the floor is exact, whatever the size of x.

A card holds at most 2^63-1 points (the bound of every integer of the
interface): an event whose credits would take a card past it (a huge
`amount`, or a balance already near the bound) is refused, 400
`invalid_payload`, before anything changes. One check per credit, on the
planned result; the arithmetic itself is exact, so nothing is lost before it.

Validation rules on an earning rule use the pricing engine's rule compiler
with an empty cart: `customer.metadata` / `customer.segment` read the event
customer, `order.metadata` and `redemption.metadata` read the event metadata,
`order.amount` is the event metadata `amount` (0 when absent), and
`custom_event.metadata` (the service's own name) is read as the event
metadata too. A stored rule's validation rules are compiled once per state
object (`_compiled`), not once per event.

Everything is planned first (`plan_credits`, no change) and applied after
(`apply_credits`, through `ledger.post` as POINTS_EARNED transactions).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, NamedTuple

from ..engine import (
    AUDIENCE_FAMILIES,
    CustomerContext,
    NormalizedOrder,
    RuleSet,
    compile_rules,
    lookup,
)
from .loyalty import ledger
from .loyalty.lookups import loyalty_lookups, member_card
from .records import Card, CardTransaction, EarningRule, Incentive, Program
from .refusals import BadRequest, InvalidPayload, NotFound
from .state import derived

if TYPE_CHECKING:
    from .simulator import Simulator
    from .state import State

__all__ = ["Credit", "apply_credits", "card_named", "incentive_points", "plan_credits", "rules_pass"]


class Credit(NamedTuple):
    """One planned credit (a tuple: an event plans one per earning rule that credits)."""

    rule: EarningRule
    incentive: Incentive
    card: Card
    points: int


# -- arithmetic ---------------------------------------------------------------------------------
#: The most points a card (and so one credit) can hold.
_MAX_POINTS = ledger.MAX_BALANCE


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | Decimal | str):
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def _proportional(every_value: Mapping[str, Any] | None, x: Any) -> int:
    if not every_value:
        return 0
    every = int(every_value.get("every") or 0)
    value = int(every_value.get("value") or 0)
    if every <= 0:
        return 0
    if type(x) is int:  # the usual amount: exact at any size
        return value * (x // every) if x >= 0 else 0
    number = _number(x)
    if number is None or number < 0:
        return 0
    # Not `number // every`: a decimal division whose quotient has more digits
    # than the context's precision (28) raises. floor(x / every) is
    # floor(floor(x) / every) for a whole `every`, and `int()` of a decimal
    # truncates exactly; an x so large that the quotient passes any card's
    # bound counts as that bound + 1 (the credit is refused either way, and
    # `1e999999` is not expanded to a million digits).
    if number >= (_MAX_POINTS + 1) * every:
        return value * (_MAX_POINTS + 1)
    return value * (int(number) // every)


def incentive_points(
    incentive: Incentive, customer_metadata: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> int:
    """Points one credit of `incentive` gives for this event (see the table)."""
    kind = incentive.type
    detail = incentive.points if kind == "POINTS" else incentive.points_proportional
    return _points(kind, detail, customer_metadata, event_metadata)


def _points(
    kind: str, detail: Mapping[str, Any] | None, customer_metadata: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> int:
    """`incentive_points` from the incentive's type and its `points` (POINTS)
    or `points_proportional` (any other type) mapping, read once by the planner."""
    if kind == "POINTS":
        return int((detail or {}).get("value") or 0)
    if kind != "POINTS_PROPORTIONAL" or detail is None:
        return 0
    calculation = detail.get("calculation_type")
    if calculation == "ORDER_METADATA_VALUE" or calculation == "CUSTOMER_METADATA_VALUE":
        of_order = calculation == "ORDER_METADATA_VALUE"
        spec = (detail.get("order" if of_order else "customer") or {}).get("metadata") or {}
        metadata = event_metadata if of_order else customer_metadata
        name = spec.get("property", "")
        if type(name) is str and name in metadata:  # a flat key (the usual one), read at once
            return _proportional(spec, metadata[name])
        return _proportional(spec, lookup(metadata, str(name)))
    if calculation == "PRE_DISCOUNT_ORDER_AMOUNT":
        return _proportional((detail.get("order") or {}).get("amount"), event_metadata.get("amount"))
    if calculation == "POST_DISCOUNT_ORDER_AMOUNT":
        x = event_metadata.get("total_amount")
        return _proportional(
            (detail.get("order") or {}).get("total_amount"), x if x is not None else event_metadata.get("amount")
        )
    return 0


def incentive_card_definition(incentive: Incentive) -> str | None:
    detail = incentive.points if incentive.type == "POINTS" else incentive.points_proportional
    return None if detail is None else detail.get("card_definition_id")


# -- validation rules -----------------------------------------------------------------------------
def _rewrite(rules: Mapping[str, Any]) -> dict[str, Any]:
    """`custom_event.metadata` -> `redemption.metadata` (fed the event metadata)."""
    out = dict(rules)
    inner = rules.get("rules")
    if isinstance(inner, Mapping):
        rewritten: dict[str, Any] = {}
        for key, rule in inner.items():
            if isinstance(rule, Mapping) and rule.get("name") == "custom_event.metadata":
                rule = {**rule, "name": "redemption.metadata"}
            rewritten[key] = rule
        out["rules"] = rewritten
    return out


def rules_pass(
    sim: Simulator,
    validation_rules: Mapping[str, Any] | None,
    customer: Mapping[str, Any],
    event_metadata: Mapping[str, Any],
) -> bool:
    """Evaluate an earning rule's validation rules for an event.

    `customer` holds the event customer's id, source_id, name, email and
    metadata (a customer about to be created has no id and no segments).
    """
    if not validation_rules:
        return True
    return _evaluate(sim, compile_rules(_rewrite(validation_rules)), customer, event_metadata)


def _rule_passes(
    sim: Simulator, rule: EarningRule, customer: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> bool:
    """`rules_pass` for a stored earning rule, its rules compiled once (`_compiled`)."""
    if not rule.validation_rules:
        return True
    caches = _caches(sim)
    compiled = _compiled(caches, rule)
    inputs = _rule_inputs(sim, caches, customer, event_metadata, compiled.reads_segments, compiled.reads_event)
    return _passes(compiled.rules, inputs, sim.now)


class _Compiled(NamedTuple):
    #: The mapping the rules were compiled from (the rule's own, by identity).
    source: Mapping[str, Any]
    rules: RuleSet
    #: Whether a rule may read the customer's segments.
    reads_segments: bool
    #: Whether a rule may read the event (its order or metadata): not when
    #: every rule reads the customer only (`customer.metadata`, `customer.segment`).
    reads_event: bool


class _StateCaches:
    """What earning keeps per state object (`derived`: a restore or reset
    starts over), each entry checked on use against the records it was made
    from (see the function that uses it). One object, fetched once per event."""

    __slots__ = ("blank_order", "compiled", "contexts", "windows")

    def __init__(self, state: State) -> None:
        #: earning rule id -> `_compiled`
        self.compiled: dict[str, _Compiled] = {}
        #: customer id -> (context, the metadata mapping it holds): `_customer_context`
        self.contexts: dict[str, tuple[CustomerContext, Any]] = {}
        #: program id -> `_Window`: `_open_now`
        self.windows: dict[str, _Window] = {}
        #: `_blank_order`
        self.blank_order: NormalizedOrder | None = None


def _caches(sim: Simulator) -> _StateCaches:
    return derived(sim, "earning", _StateCaches)


def _compiled(caches: _StateCaches, rule: EarningRule) -> _Compiled:
    """The rule's validation rules compiled, cached per state object and
    earning rule: compiling costs more than evaluating, and every event
    would otherwise compile the rules of every rule bound to it. An entry is
    used while the rule still holds the very mapping it was compiled from
    (replacing `validation_rules` recompiles); a restore/reset starts over."""
    cache = caches.compiled
    entry = cache.get(rule.id)
    rules = rule.validation_rules
    assert rules is not None
    if entry is None or entry.source is not rules:
        rewritten = _rewrite(rules)
        compiled = compile_rules(rewritten)  # raises on a rule it cannot evaluate
        families = _families(rewritten)
        entry = cache[rule.id] = _Compiled(
            rules,
            compiled,
            reads_segments=families is None or any("segment" in name for name in families),
            reads_event=families is None or not families <= AUDIENCE_FAMILIES,
        )
    return entry


def _families(rules: Any) -> frozenset[str] | None:
    """Every rule family named anywhere in `rules` (sub-rules included), or
    None when a name is not a string. What the planner may leave out of a
    rule's inputs follows from it: the `customer.segment` family is the only
    reader of segments, and the audience families (`pricing.rules`) read
    nothing of the order or the event's metadata."""
    names: set[str] = set()
    stack = [rules]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if "name" in item:
                name = item["name"]
                if not isinstance(name, str):
                    return None
                names.add(name)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return frozenset(names)


def _evaluate(
    sim: Simulator, compiled: RuleSet, customer: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> bool:
    return _passes(compiled, _rule_inputs(sim, _caches(sim), customer, event_metadata, True, True), sim.now)


class _RuleInputs(NamedTuple):
    """What validation rules read of an event, built once per event and
    shared by its rules (the engine reads them, never writes; leaf verdicts
    are then shared too, see `RuleSet.evaluate`)."""

    order: NormalizedOrder
    customer: CustomerContext
    #: The rules' `redemption.metadata`: the event metadata. Also a key of the
    #: shared verdicts: a new object per planning keeps them to one event.
    redemption_metadata: Mapping[str, Any]
    with_segments: bool
    with_event: bool


def _covers(inputs: _RuleInputs, compiled: _Compiled) -> bool:
    return (inputs.with_segments or not compiled.reads_segments) and (inputs.with_event or not compiled.reads_event)


def _rule_inputs(
    sim: Simulator,
    caches: _StateCaches,
    customer: Mapping[str, Any],
    event_metadata: Mapping[str, Any],
    with_segments: bool,
    with_event: bool,
) -> _RuleInputs:
    """The event's empty-cart order and customer context, as far as rules
    that read what `with_segments` / `with_event` say need them: without
    segments the customer is in none, and without the event the order is a
    blank one (`_blank_order`); rules that read neither get the same verdict.
    A customer context without segments is reused from event to event
    (`_customer_context`)."""
    cid = customer.get("id")
    if with_segments or cid is None:
        context = _new_context(sim, customer, with_segments)
    else:
        context = _customer_context(sim, caches, cid, customer)
    if not with_event:
        return _RuleInputs(_blank_order(caches), context, dict(event_metadata), with_segments, with_event)
    amount = event_metadata.get("amount")
    amount_int = amount if isinstance(amount, int) and not isinstance(amount, bool) else 0
    order = NormalizedOrder(
        lines=(),
        amount=amount_int,
        initial_amount=amount_int,
        items_amount=0,
        total_quantity=0,
        metadata=event_metadata,
        customer_id=cid,
        referrer_id=None,
    )
    return _RuleInputs(order, context, event_metadata, with_segments, with_event)


def _new_context(sim: Simulator, customer: Mapping[str, Any], with_segments: bool) -> CustomerContext:
    cid = customer.get("id")
    segments: frozenset[str] = frozenset()
    if with_segments and cid is not None:
        segments = frozenset(s.id for s in sim.state.segments.values() if cid in s.customers)
    metadata = customer.get("metadata")
    return CustomerContext(
        id=cid,
        source_id=customer.get("source_id"),
        name=customer.get("name"),
        email=customer.get("email"),
        metadata={} if metadata is None else metadata,
        segment_ids=segments,
    )


def _customer_context(
    sim: Simulator, caches: _StateCaches, cid: str, customer: Mapping[str, Any]
) -> CustomerContext:
    """`_new_context(sim, customer, False)`, kept per state object and
    customer id while it holds the very objects `customer` gives now (the
    context holds the customer's metadata mapping itself, so a change made in
    it is seen at once; a replaced one builds anew)."""
    cache = caches.contexts
    metadata = customer.get("metadata")
    entry = cache.get(cid)
    if entry is not None:
        context, source = entry
        if (
            source is metadata
            and context.source_id is customer.get("source_id")
            and context.name is customer.get("name")
            and context.email is customer.get("email")
        ):
            return context
    context = _new_context(sim, customer, False)
    cache[cid] = (context, metadata)
    return context


def _blank_order(caches: _StateCaches) -> NormalizedOrder:
    """An empty order for rules that read none (one per state object)."""
    if caches.blank_order is None:
        caches.blank_order = NormalizedOrder(
            lines=(),
            amount=0,
            initial_amount=0,
            items_amount=0,
            total_quantity=0,
            metadata={},
            customer_id=None,
            referrer_id=None,
        )
    return caches.blank_order


def _passes(compiled: RuleSet, inputs: _RuleInputs, now: datetime) -> bool:
    return compiled.evaluate(inputs.order, inputs.customer, now, inputs.redemption_metadata, False) is None


# -- planning and applying -------------------------------------------------------------------------
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


class _Window(NamedTuple):
    """A program's validity window as stored, and the same instants in UTC."""

    program: Program
    start_date: datetime | None
    expiration_date: datetime | None
    start_utc: datetime | None
    expiration_utc: datetime | None


def _open_now(caches: _StateCaches, st: State, program_id: str, now: datetime) -> bool:
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
        window = windows[program_id] = _Window(
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
    caches = derived(sim, "earning", _StateCaches)  # `_caches`, one call less (every event)
    stock_used: dict[str, int] = {}
    credits: list[Credit] = []
    program_open: dict[str, bool] = {}
    inputs: _RuleInputs | None = None
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
        kind = offer["type"]  # what `incentive_card_definition` and `incentive_points` read
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
            compiled = _compiled(caches, rule)
            if inputs is None or not _covers(inputs, compiled):
                inputs = _rule_inputs(
                    sim,
                    caches,
                    customer,
                    event_metadata,
                    compiled.reads_segments or (inputs is not None and inputs.with_segments),
                    compiled.reads_event or (inputs is not None and inputs.with_event),
                )
            if not _passes(compiled.rules, inputs, now):
                continue
        points = _points(kind, detail, customer.get("metadata") or {}, event_metadata)
        if points <= 0:
            continue
        stock_used[incentive_id] = stock_used.get(incentive_id, 0) + 1
        credits.append(Credit(rule, incentive, target, points))
    if credits:
        _check_room(credits)
    return credits


def _check_room(credits: list[Credit]) -> None:
    """Refuse (400 `invalid_payload`) credits that would take a card past
    `_MAX_POINTS`, counting every credit of the event to the same card."""
    planned: dict[str, int] = {}
    for rule, incentive, card, points in credits:
        total = planned.get(card.id, 0) + points
        planned[card.id] = total
        if not ledger.fits(card, total):
            shown = f"{points}" if points <= _MAX_POINTS else f"more than {_MAX_POINTS}"
            raise InvalidPayload(
                f"Earning rule {rule.id} (incentive {incentive.id}) would credit {shown} points to loyalty "
                f"card {card.id}, whose balance is {card.balance}: a card holds at most {_MAX_POINTS} points",
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
