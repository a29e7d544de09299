"""Validation rules: rule families, their subjects, and compiling a rule set.

A tier's rules use the service's validation-rule object::

    {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [10000]}},
               "2": {"name": "customer.metadata", "property": "tier",
                     "conditions": {"$is": ["gold"]}},
               "logic": "1 and 2"},
     "error": {"message": "optional fallback message"}}

`logic` may sit inside `rules` (as the service stores it) or next to it; when
absent every rule is AND-ed. A rule may carry `error.message`, reported when it
is the first rule found failing. Conditions: see `conditions.py`.

Rule families (the names the service uses):

Order, evaluated on the cart as sent (before this tier's own effect):
- `order.amount` (amount before discounts), `order.initial_amount`,
- `order.total_amount` (the service's "total amount after discounts"): the
  order's total once this redeemable's own discount applied, on the order
  it is priced on (a stack: the running order). Its caller says that total
  (`RuleSet.evaluate(after=...)`); else the rule set computes it with
  `own_total` (`compile_tier`: the tier's discount alone); a rule set with
  neither reads the amount. Never shared between redeemables.
- `order.items.count` (number of lines), `order.items.quantity` (total units),
- `order.items.price_each` (every priced line's unit price; fails on a cart
  with no priced line), `order.items.price_any` (some line's unit price),
- `order.metadata` and `order.items.metadata` (some line) with `property`.

Products in the cart. Targets are ids (`"prod_…"`, `"sku_…"`, `"pc_…"`; the
kind is read from the prefix, an unprefixed id matches any kind) or objects
`{"id", "object": "product"|"sku"|"products_collection", "source_id"?}`. A
product target matches its SKU lines too; a collection target matches lines
whose product or SKU is in the collection.
- `order.items.any` / `order.items.every` / `order.items.none` with
  `$in`/`$is` (line matches a target) or `$not_in`/`$is_not` (line matches
  none): some / all (non-empty cart) / no line satisfies it.
- `product.id`, `sku.id`, `products_collection.id` with `$in`/`$is` (the cart
  has such a line) or `$not_in`/`$is_not` (it has none).
- Sub-rules (`rules` inside such a rule) restrict the matched lines: the rule
  passes only if the matched lines also satisfy them. Sub-rule names end in
  `.price`, `.quantity`, `.amount`, `.subtotal_amount` or `.metadata` (true
  when SOME matched line satisfies it), `.aggregated_quantity` /
  `.aggregated_amount` (sums over the matched lines), or
  `.discount_applicable` (always true; it only marks discountable products).

Audience (the only rules evaluated when `audience_only=True`, see
`AUDIENCE_FAMILIES`): `customer.metadata` (with `property`) and
`customer.segment` (`$in`/`$is`/`$not_in`/`$is_not` segment ids; our
"customer lists").

Redemption: `redemption.metadata` (with `property`): the request's top-level
`metadata`.

With `audience_only=True` a non-audience rule counts as satisfied ("ignored"),
so `"1 or 2"` with 1 = order rule passes. Rules defined but not named by the
logic string are not evaluated. Failure keys: `customer_rules_violated` for
`customer.*`, `redemption_rules_violated` for `redemption.*` and `campaign.*`,
otherwise `order_rules_violated`. Unknown rule names or operators raise at
compile time.

Budgets and limits (`campaign.redemptions.count`, `redemption.count.per_customer`,
…: `budget_rules.BUDGET_FAMILIES`) compare what was redeemed so far, which the
caller's `Usage` knows (the engine holds no state).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .budget_rules import BUDGET_FAMILIES, Usage, UsageQuery
from .conditions import NOW_OPERATORS, describe_conditions
from .context import CustomerContext
from .item_rules import ITEM_FAMILIES
from .lines import NormalizedOrder
from .logic_parser import LogicError, and_all, compile_logic
from .rule_evaluation import (
    BudgetScope,
    Pred,
    RuleConfigError,
    RuleEnv,
    RuleFailure,
    checker,
    lookup,
    require_property,
)
from .total_amount import TOTAL_AMOUNT, OwnTotal, total_amount_leaf

__all__ = [
    "AUDIENCE_FAMILIES",
    "RULE_FAMILIES",
    "RuleConfigError",
    "RuleEnv",
    "RuleFailure",
    "RuleSet",
    "compile_rules",
]

#: The families checked when `audienceRulesOnly=true`.
AUDIENCE_FAMILIES = frozenset({"customer.metadata", "customer.segment"})


# -- scalar families: subject(env) -> value ------------------------------------------------
def _customer_segments(env: RuleEnv) -> list[str]:
    return sorted(env.customer.segment_ids) if env.customer is not None else []


ScalarSubject = Callable[[Mapping[str, Any], str], Callable[[RuleEnv], Any]]


def _order_metadata(rule: Mapping[str, Any], name: str) -> Callable[[RuleEnv], Any]:
    prop = require_property(rule, name)
    return lambda env: lookup(env.order.metadata, prop)


def _customer_metadata(rule: Mapping[str, Any], name: str) -> Callable[[RuleEnv], Any]:
    prop = require_property(rule, name)
    return lambda env: lookup(env.customer.metadata if env.customer is not None else None, prop)


def _redemption_metadata(rule: Mapping[str, Any], name: str) -> Callable[[RuleEnv], Any]:
    prop = require_property(rule, name)
    return lambda env: lookup(env.redemption_metadata, prop)


_SCALARS: dict[str, ScalarSubject] = {
    "order.amount": lambda rule, name: lambda env: env.order.amount,
    "order.initial_amount": lambda rule, name: lambda env: env.order.initial_amount,
    "order.items.count": lambda rule, name: lambda env: len(env.order.lines),
    "order.items.quantity": lambda rule, name: lambda env: env.order.total_quantity,
    "order.metadata": _order_metadata,
    "customer.metadata": _customer_metadata,
    "customer.segment": lambda rule, name: _customer_segments,
    "redemption.metadata": _redemption_metadata,
}


RULE_FAMILIES = frozenset(_SCALARS) | frozenset(ITEM_FAMILIES) | frozenset(BUDGET_FAMILIES) | {TOTAL_AMOUNT}

#: Families that read nothing but the order's lines and amounts (and the
#: instant, through a few operators: see `_order_only`).
_LINE_FAMILIES = frozenset(
    {"order.amount", "order.initial_amount", "order.items.count", "order.items.quantity"}
) | frozenset(ITEM_FAMILIES)


def _order_only(rule: Mapping[str, Any], name: str) -> bool:
    """The rule's verdict depends on nothing but the order's lines and
    amounts: a line family, and no operator reading the instant anywhere in
    it (conditions or sub-rules)."""
    return name in _LINE_FAMILIES and not _mentions(rule, NOW_OPERATORS)


def _mentions(value: Any, keys: frozenset[str]) -> bool:
    if isinstance(value, Mapping):
        return any(k in keys or _mentions(v, keys) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_mentions(v, keys) for v in value)
    return False


def _reason_key(name: str) -> str:
    if name.startswith("customer."):
        return "customer_rules_violated"
    if name.startswith(("redemption.", "campaign.")):
        return "redemption_rules_violated"
    return "order_rules_violated"


def _message(rule: Mapping[str, Any], name: str, fallback: str | None) -> str:
    error = rule.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        return str(error["message"])
    if fallback:
        return fallback
    subject = name
    if isinstance(rule.get("property"), str):
        subject = f"{name}.{rule['property']}"
    conditions = rule.get("conditions") or {}
    verb = (
        "must be"
        if not name.startswith(
            (
                "order.items.any",
                "order.items.every",
                "order.items.none",
                "product.",
                "sku.",
                "products_collection.",
            )
        )
        else "must match"
    )
    text = f"{subject} {verb} {describe_conditions(conditions)}".rstrip()
    if rule.get("rules"):
        text += " (with sub-rules)"
    return text


def _leaf(rule: Mapping[str, Any], fallback: str | None) -> tuple[Pred, bool]:
    name = rule.get("name")
    if not isinstance(name, str):
        raise RuleConfigError(f"rule without a name: {rule!r}")
    conditions = rule.get("conditions") or {}
    if not isinstance(conditions, Mapping):
        raise RuleConfigError(f"rule {name}: conditions must be an object")
    try:
        if name in _SCALARS:
            subject = _SCALARS[name](rule, name)
            check = checker(conditions)
            test: Pred = lambda env: check(subject(env), env.now)
        elif name in ITEM_FAMILIES:
            test = ITEM_FAMILIES[name](rule, name)
        elif name in BUDGET_FAMILIES:
            return _budget_leaf(rule, name, BUDGET_FAMILIES[name], fallback)
        else:
            raise RuleConfigError(f"unsupported rule {name}")
    except KeyError as exc:
        raise RuleConfigError(f"unknown operator {exc.args[0]} in rule {name}") from None
    failure = RuleFailure(_reason_key(name), _message(rule, name, fallback))
    # Verdicts are kept per request (`env.results`), or, for a rule that reads
    # the order's lines and amounts only, with the order's shared results: the
    # orders with the same lines (a shop's frequent carts) evaluate it once.
    order_only = _order_only(rule, name)

    def leaf(env: RuleEnv) -> bool:
        budget = env.budget
        if budget is not None and name in budget.ignored:
            return True
        results = env.order.shared if order_only else env.results
        passed = results.get(leaf)
        if passed is None:
            passed = results[leaf] = bool(test(env))
        if passed:
            return True
        if env.failure is None:
            env.failure = failure
        return False

    return leaf, name in AUDIENCE_FAMILIES


def _budget_leaf(rule: Mapping[str, Any], name: str, query: UsageQuery, fallback: str | None) -> tuple[Pred, bool]:
    """A budget rule's leaf: it compares what the env's `budget.usage` says was spent for
    the redeemable being checked, so its verdict is never shared between
    redeemables (no `results` memo: the same rule JSON on two tiers counts
    two budgets)."""
    try:
        check = checker(rule.get("conditions") or {})
    except KeyError as exc:
        raise RuleConfigError(f"unknown operator {exc.args[0]} in rule {name}") from None
    failure = RuleFailure(_reason_key(name), _message(rule, name, fallback))

    def leaf(env: RuleEnv) -> bool:
        budget = env.budget
        if (budget is not None and name in budget.ignored) or check(env.used(query), env.now):
            return True
        if env.failure is None:
            env.failure = failure
        return False

    return leaf, False


def _total_amount_leaf(rule: Mapping[str, Any], fallback: str | None, own_total: OwnTotal | None) -> Pred:
    conditions = rule.get("conditions") or {}
    if not isinstance(conditions, Mapping):
        raise RuleConfigError(f"rule {TOTAL_AMOUNT}: conditions must be an object")
    try:
        check = checker(conditions)
    except KeyError as exc:
        raise RuleConfigError(f"unknown operator {exc.args[0]} in rule {TOTAL_AMOUNT}") from None
    failure = RuleFailure(_reason_key(TOTAL_AMOUNT), _message(rule, TOTAL_AMOUNT, fallback))
    return total_amount_leaf(check, failure, own_total)


#: Compiled leaves by (rule JSON, fallback message): equal rules of different
#: tiers are one leaf, so a request's `RuleEnv.results` answers them once.
_INTERNED: dict[tuple[str, str | None], tuple[Pred, bool]] = {}
_INTERN_LIMIT = 4096


def _interned_leaf(rule: Mapping[str, Any], fallback: str | None) -> tuple[Pred, bool]:
    try:
        key = (json.dumps(rule, sort_keys=True), fallback)
    except (TypeError, ValueError):  # not plain JSON: a leaf of its own
        return _leaf(rule, fallback)
    found = _INTERNED.get(key)
    if found is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            _INTERNED.clear()
        found = _INTERNED[key] = _leaf(rule, fallback)
    return found


#: Key of the shared leaf results in `NormalizedOrder.memo`.
_RESULTS = object()


def _always(env: RuleEnv) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A tier's compiled rules: the full check and the audience-only check."""

    full: Pred | None
    audience: Pred | None
    generic: RuleFailure
    #: Every rule reads the order's lines and amounts only (`_order_only`):
    #: the full check's verdict is one per order lines and amounts, kept in
    #: `NormalizedOrder.shared` under `token` by the callers that want it.
    order_only: bool = False
    #: Some rule is a budget rule (`budget_rules`): its verdict depends on
    #: the redeemable it is evaluated for, which callers then say (`subject`).
    reads_usage: bool = False
    #: Some rule reads `order.total_amount`: a caller that knows the total
    #: after the redeemable says it (`evaluate(after=...)`).
    reads_total: bool = False
    token: object = field(default_factory=object, repr=False, compare=False)
    #: The validation-rule object compiled (what a second execution strategy,
    #: the analysis layer's masks, compiles again).
    source: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)

    def evaluate(
        self,
        order: NormalizedOrder,
        customer: CustomerContext | None,
        now: datetime,
        redemption_metadata: Mapping[str, Any],
        audience_only: bool,
        *,
        usage: Usage | None = None,
        subject: tuple[str, str] | None = None,
        ignored: frozenset[str] = frozenset(),
    ) -> RuleFailure | None:
        """The first failing rule (None: they pass). Budget rules count what
        `usage` says `subject` (redeemable id, campaign id) spent; rules named
        in `ignored` count as satisfied."""
        budget = BudgetScope(usage, subject, ignored) if usage is not None or ignored else None
        return self.evaluate_after(None, order, customer, now, redemption_metadata, audience_only, budget)

    def evaluate_after(
        self,
        after: Callable[[], int] | None,
        order: NormalizedOrder,
        customer: CustomerContext | None,
        now: datetime,
        redemption_metadata: Mapping[str, Any],
        audience_only: bool,
        budget: BudgetScope | None,
    ) -> RuleFailure | None:
        """`evaluate` by a caller that knows the order's total once the
        redeemable applied: `order.total_amount` rules read `after()`
        (`RuleEnv.after`; a stack's running order, a gift card's credits)."""
        pred = self.audience if audience_only else self.full
        if pred is None:
            return None
        # One verdict per rule leaf per request: the results dict is kept on
        # the order's memo for as long as the same customer, instant and
        # metadata objects come with it (the tiers of one request).
        memo = order.memo
        shared = memo.get(_RESULTS)
        if (
            shared is None
            or shared[0] is not customer
            or shared[1] is not now
            or shared[2] is not redemption_metadata
        ):
            shared = memo[_RESULTS] = (customer, now, redemption_metadata, {})
        env = RuleEnv(order, customer, now, redemption_metadata, shared[3], budget)
        env.after = after
        if pred(env):
            return None
        return env.failure or self.generic


def compile_rules(validation_rule: Mapping[str, Any] | None, own_total: OwnTotal | None = None) -> RuleSet:
    """Compile a validation-rule object; raises `RuleConfigError`.
    `own_total`: what an `order.total_amount` rule reads when its caller
    does not say (see the module docstring)."""
    generic = RuleFailure("order_rules_violated", "order does not match validation rules")
    if not validation_rule:
        return RuleSet(None, None, generic)
    rules = validation_rule.get("rules")
    if rules is None:
        rules = {}
    if not isinstance(rules, Mapping):
        raise RuleConfigError("'rules' must be an object")
    error = validation_rule.get("error")
    fallback = error.get("message") if isinstance(error, Mapping) else None
    ids = [k for k in rules if k != "logic"]
    if not ids:
        return RuleSet(None, None, generic)
    full_leaves: dict[str, Pred] = {}
    audience_leaves: dict[str, Pred] = {}
    any_audience = False
    order_only = True
    reads_usage = reads_total = False
    for rid in ids:
        raw = rules[rid]
        if not isinstance(raw, Mapping):
            raise RuleConfigError(f"rule {rid} must be an object")
        message = fallback if isinstance(fallback, str) else None
        if raw.get("name") == TOTAL_AMOUNT:
            leaf, is_audience = _total_amount_leaf(raw, message, own_total), False
            reads_total = True
        else:
            leaf, is_audience = _interned_leaf(raw, message)
        full_leaves[rid] = leaf
        audience_leaves[rid] = leaf if is_audience else _always
        any_audience = any_audience or is_audience
        order_only = order_only and _order_only(raw, raw["name"])
        reads_usage = reads_usage or raw["name"] in BUDGET_FAMILIES
    logic = rules.get("logic") or validation_rule.get("logic") or and_all(ids)
    if not isinstance(logic, str):
        raise RuleConfigError("'logic' must be a string")
    try:
        full = compile_logic(logic, full_leaves)
        audience = compile_logic(logic, audience_leaves) if any_audience else None
    except LogicError as exc:
        raise RuleConfigError(str(exc)) from None
    return RuleSet(full, audience, generic, order_only, reads_usage, reads_total, source=validation_rule)
