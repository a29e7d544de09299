"""What evaluating a validation rule is made of, shared by every rule family.

`RuleEnv` (what one evaluation reads, and the first failing rule seen),
`RuleFailure` (a rule's reason key and message), `RuleConfigError` (a rule
the engine cannot compile), and the helpers the families build with:
`lookup` (a metadata property, flat or dotted), `checker` (a rule's
conditions as one predicate) and `require_property`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .budget_rules import Usage, UsageQuery
from .conditions import compile_predicates
from .context import CustomerContext
from .lines import Line, NormalizedOrder

__all__ = [
    "BudgetScope",
    "GroupPred",
    "Pred",
    "RuleConfigError",
    "RuleEnv",
    "RuleFailure",
    "checker",
    "lookup",
    "require_property",
]


class RuleConfigError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class RuleFailure:
    key: str
    message: str


class RuleEnv:
    """What one evaluation reads, plus the first failing rule seen.

    `results` holds each rule leaf's verdict for this (order, customer, now,
    redemption metadata): the tiers of one request that share a rule (leaves
    are interned by their JSON, see rules.py) evaluate it once. A fresh dict
    by default, i.e. no sharing.
    """

    __slots__ = ("after", "budget", "customer", "failure", "now", "order", "redemption_metadata", "results")

    def __init__(
        self,
        order: NormalizedOrder,
        customer: CustomerContext | None,
        now: datetime,
        redemption_metadata: Mapping[str, Any],
        results: dict[Any, bool] | None = None,
        budget: BudgetScope | None = None,
    ) -> None:
        self.order = order
        self.customer = customer
        self.now = now
        self.redemption_metadata = redemption_metadata
        self.failure: RuleFailure | None = None
        self.results: dict[Any, bool] = {} if results is None else results
        #: What budget rules count and which rules are ignored (None: nothing
        #: to count, nothing ignored: the common case, one slot to read).
        self.budget = budget
        #: The order's total once the redeemable being checked applied, as
        #: its caller computes it (a stack: on the running order); what an
        #: `order.total_amount` rule reads. None: the rule computes it
        #: itself (rules.py, `_total_amount_leaf`). Called only by such a
        #: rule: the discount is priced only when a rule asks.
        self.after: Callable[[], int] | None = None

    def used(self, query: UsageQuery) -> int:
        """The total a budget rule compares: 0 without a usage or subject."""
        budget = self.budget
        if budget is None or budget.usage is None or budget.subject is None:
            return 0
        customer_id = self.customer.id if self.customer is not None else None
        return budget.usage.value(query, budget.subject[0], budget.subject[1], customer_id, self.now)


@dataclass(slots=True)
class BudgetScope:
    """What budget rules read (a `Usage` and the redeemable it counts for:
    (redeemable id, campaign id), set per tier by callers evaluating several)
    and the rule names taken as satisfied (what qualifications ignore)."""

    usage: Usage | None = None
    subject: tuple[str, str] | None = None
    ignored: frozenset[str] = frozenset()


Pred = Callable[[RuleEnv], bool]
GroupPred = Callable[[Sequence[Line], datetime], bool]


def lookup(data: Mapping[str, Any] | None, prop: str) -> Any:
    """`data[prop]`, or a nested path `a.b` when there is no such flat key."""
    if not data:
        return None
    if prop in data:
        return data[prop]
    value: Any = data
    for part in prop.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def checker(conditions: Mapping[str, Any]) -> Callable[[Any, datetime], bool]:
    """`(value, now) -> bool`: every condition holds for `value`."""
    predicates = compile_predicates(conditions)
    if len(predicates) == 1:
        return predicates[0]

    def all_of(value: Any, now: datetime) -> bool:
        return all(p(value, now) for p in predicates)

    return all_of


def require_property(rule: Mapping[str, Any], name: str) -> str:
    prop = rule.get("property")
    if not isinstance(prop, str) or not prop:
        raise RuleConfigError(f"rule {name} needs a 'property'")
    return prop
