"""An earning rule's validation rules, evaluated for a custom event.

Validation rules on an earning rule use the pricing engine's rule compiler
with an empty cart: `customer.metadata` / `customer.segment` read the event
customer, `order.metadata` and `redemption.metadata` read the event metadata,
`order.amount` is the event metadata `amount` (0 when absent), and
`custom_event.metadata` (the service's own name) is read as the event
metadata too. A stored rule's validation rules are compiled once per state
object (`compiled_rules`, kept in `caches`), not once per event, and the
inputs they read (`RuleInputs`) are built once per event and only as far as
its rules read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from ...engine import AUDIENCE_FAMILIES, CustomerContext, NormalizedOrder, RuleSet, compile_rules
from ..records import EarningRule
from .caches import Compiled, StateCaches, state_caches

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["RuleInputs", "compiled_rules", "covers", "passes", "rule_inputs", "rules_pass"]


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
    """`rules_pass` for a stored earning rule, its rules compiled once (`compiled_rules`)."""
    if not rule.validation_rules:
        return True
    caches = state_caches(sim)
    compiled = compiled_rules(caches, rule)
    inputs = rule_inputs(sim, caches, customer, event_metadata, compiled.reads_segments, compiled.reads_event)
    return passes(compiled.rules, inputs, sim.now)


def compiled_rules(caches: StateCaches, rule: EarningRule) -> Compiled:
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
        entry = cache[rule.id] = Compiled(
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
    return passes(compiled, rule_inputs(sim, state_caches(sim), customer, event_metadata, True, True), sim.now)


class RuleInputs(NamedTuple):
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


def covers(inputs: RuleInputs, compiled: Compiled) -> bool:
    return (inputs.with_segments or not compiled.reads_segments) and (inputs.with_event or not compiled.reads_event)


def rule_inputs(
    sim: Simulator,
    caches: StateCaches,
    customer: Mapping[str, Any],
    event_metadata: Mapping[str, Any],
    with_segments: bool,
    with_event: bool,
) -> RuleInputs:
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
        return RuleInputs(_blank_order(caches), context, dict(event_metadata), with_segments, with_event)
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
    return RuleInputs(order, context, event_metadata, with_segments, with_event)


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
    sim: Simulator, caches: StateCaches, cid: str, customer: Mapping[str, Any]
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


def _blank_order(caches: StateCaches) -> NormalizedOrder:
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


def passes(compiled: RuleSet, inputs: RuleInputs, now: datetime) -> bool:
    return compiled.evaluate(inputs.order, inputs.customer, now, inputs.redemption_metadata, False) is None
