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
numbers or numeric strings; the floor is exact (decimal arithmetic).

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
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from . import ledger
from .errors import BadRequest, NotFound
from .loyalty.lookups import member_card
from .pricing.items import NormalizedOrder
from .pricing.rulebase import lookup
from .pricing.rules import RuleSet, compile_rules
from .pricing.types import CustomerContext
from .records import Card, CardTransaction, EarningRule, Incentive
from .state import derived

if TYPE_CHECKING:
    from .simulator import Simulator
    from .state import State

__all__ = ["Credit", "apply_credits", "card_named", "incentive_points", "plan_credits", "rules_pass"]


@dataclass(frozen=True, slots=True)
class Credit:
    rule: EarningRule
    incentive: Incentive
    card: Card
    points: int


# -- arithmetic ---------------------------------------------------------------------------------
#: Below this, `x // every` on ints equals the decimal floor (28 significant
#: digits by default; beyond them the decimal division refuses, and keeps
#: refusing: such values still take the decimal path).
_EXACT_INT = 10**18


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
    if type(x) is int and 0 <= x < _EXACT_INT:
        return value * (x // every)  # the usual amount: what the decimal path computes
    number = _number(x)
    if number is None or number < 0:
        return 0
    return value * int(number // every)


def incentive_points(
    incentive: Incentive, customer_metadata: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> int:
    """Points one credit of `incentive` gives for this event (see the table)."""
    if incentive.type == "POINTS":
        return int((incentive.points or {}).get("value") or 0)
    if incentive.type != "POINTS_PROPORTIONAL" or incentive.points_proportional is None:
        return 0
    pp = incentive.points_proportional
    kind = pp.get("calculation_type")
    order = pp.get("order") or {}
    if kind == "CUSTOMER_METADATA_VALUE":
        spec = (pp.get("customer") or {}).get("metadata") or {}
        return _proportional(spec, lookup(customer_metadata, str(spec.get("property", ""))))
    if kind == "ORDER_METADATA_VALUE":
        spec = order.get("metadata") or {}
        return _proportional(spec, lookup(event_metadata, str(spec.get("property", ""))))
    if kind == "PRE_DISCOUNT_ORDER_AMOUNT":
        return _proportional(order.get("amount"), event_metadata.get("amount"))
    if kind == "POST_DISCOUNT_ORDER_AMOUNT":
        x = event_metadata.get("total_amount")
        return _proportional(order.get("total_amount"), x if x is not None else event_metadata.get("amount"))
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
    return _evaluate(sim, _compiled(sim, rule), customer, event_metadata)


def _compiled(sim: Simulator, rule: EarningRule) -> RuleSet:
    """The rule's validation rules compiled, cached per state object and
    earning rule: compiling costs more than evaluating, and every event
    would otherwise compile the rules of every rule bound to it. An entry is
    used while the rule still holds the very mapping it was compiled from
    (replacing `validation_rules` recompiles); a restore/reset starts over."""
    cache: dict[str, tuple[Mapping[str, Any], RuleSet]] = derived(sim, "earning_compiled_rules", _new_cache)
    entry = cache.get(rule.id)
    rules = rule.validation_rules
    assert rules is not None
    if entry is None or entry[0] is not rules:
        entry = cache[rule.id] = (rules, compile_rules(_rewrite(rules)))
    return entry[1]


def _new_cache(state: State) -> dict[str, Any]:
    return {}


def _evaluate(
    sim: Simulator, compiled: RuleSet, customer: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> bool:
    cid = customer.get("id")
    segments = frozenset(s.id for s in sim.state.segments.values() if cid is not None and cid in s.customers)
    context = CustomerContext(
        id=cid,
        source_id=customer.get("source_id"),
        name=customer.get("name"),
        email=customer.get("email"),
        metadata=dict(customer.get("metadata") or {}),
        segment_ids=segments,
    )
    amount = event_metadata.get("amount")
    amount_int = amount if isinstance(amount, int) and not isinstance(amount, bool) else 0
    order = NormalizedOrder(
        lines=(),
        amount=amount_int,
        initial_amount=amount_int,
        items_amount=0,
        total_quantity=0,
        metadata=dict(event_metadata),
        customer_id=cid,
        referrer_id=None,
    )
    return compiled.evaluate(order, context, sim.now, dict(event_metadata), False) is None


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


def plan_credits(
    sim: Simulator,
    *,
    event: str,
    customer: Mapping[str, Any],
    event_metadata: Mapping[str, Any],
    card: Card | None = None,
) -> list[Credit]:
    """The credits an event earns, changing nothing (stock use is counted
    within the event: two rules on one incentive with one unit left credit once)."""
    cid = customer.get("id")
    if cid is None:
        return []  # a customer created by this event is nobody's member yet
    st = sim.state
    now = sim.now
    customer_metadata = customer.get("metadata") or {}
    stock_used: dict[str, int] = {}
    credits: list[Credit] = []
    for rule in st.earning_rules.values():
        if rule.event != event or not rule.active:
            continue
        incentive = st.incentives.get(rule.incentive_id)
        if incentive is None or incentive.status != "ACTIVE":
            continue
        if incentive.stock - stock_used.get(incentive.id, 0) <= 0:
            continue
        definition = incentive_card_definition(incentive)
        if definition is None or not _program_open(st, rule.program_id, now):
            continue
        if card is not None:
            member = st.members.get(card.member_id)
            if (
                card.program_id != rule.program_id
                or card.card_definition_id != definition
                or member is None
                or member.status != "ACTIVE"
            ):
                continue
            target: Card | None = card
        else:
            target = member_card(sim, cid, rule.program_id, definition)
        if target is None:
            continue
        if rule.validation_rules and not _evaluate(sim, _compiled(sim, rule), customer, event_metadata):
            continue
        points = incentive_points(incentive, customer_metadata, event_metadata)
        if points <= 0:
            continue
        stock_used[incentive.id] = stock_used.get(incentive.id, 0) + 1
        credits.append(Credit(rule, incentive, target, points))
    return credits


def apply_credits(sim: Simulator, credits: list[Credit], *, event: str, event_id: str) -> list[CardTransaction]:
    """Post the planned credits as APPROVED POINTS_EARNED transactions."""
    posted = []
    for credit in credits:
        credit.incentive.stock -= 1
        posted.append(
            ledger.post(
                sim,
                credit.card,
                type="POINTS_EARNED",
                points=credit.points,
                details={
                    "reason": f"custom event {event}",
                    "metadata": {
                        "event": event,
                        "event_id": event_id,
                        "earning_rule_id": credit.rule.id,
                        "incentive_id": credit.incentive.id,
                    },
                },
            )
        )
    return posted
