"""How many redeemables of a stack may apply: in all, per category, from exclusive categories.

Counted in application order over the redeemables applied so far; the first
limit a redeemable would pass is its SKIPPED reason (the service's keys and
messages). A limit of `None` is "no limit". Joint (always stackable)
redeemables count like the others: "always stackable" is about exclusivity,
not about the limits (decision: docs/decisions.md § Stacking).
"""

from __future__ import annotations

from collections import Counter

from ...models import StackingRules
from ..rule_evaluation import RuleFailure
from .stack_entry import StackEntry, StackKind

__all__ = ["LIMIT_FAILURES", "ApplicationLimits"]

_TOTAL = RuleFailure("applicable_redeemables_limit_exceeded", "Applicable redeemables limit exceeded")
_PER_CATEGORY = RuleFailure(
    "applicable_redeemables_per_category_limit_exceeded", "Applicable redeemables limit per category exceeded"
)
_EXCLUSIVE = RuleFailure(
    "applicable_exclusive_redeemables_limit_exceeded", "Applicable exclusive redeemables limit exceeded"
)
_EXCLUSIVE_PER_CATEGORY = RuleFailure(
    "applicable_exclusive_redeemables_per_category_limit_exceeded",
    "Applicable exclusive redeemables limit per category exceeded",
)

#: Every limit's refusal, in the order `refusal` checks them.
LIMIT_FAILURES = (_TOTAL, _EXCLUSIVE, _EXCLUSIVE_PER_CATEGORY, _PER_CATEGORY)


class ApplicationLimits:
    """The counts of one stack's applied redeemables, against the rules' limits."""

    __slots__ = ("_exclusive", "_per_category", "_rules", "_total")

    def __init__(self, rules: StackingRules) -> None:
        self._rules = rules
        self._total = 0
        self._exclusive = 0
        self._per_category: Counter[str] = Counter()

    def refusal(self, entry: StackEntry, kind: StackKind) -> RuleFailure | None:
        """Why `entry` may not apply now (None: it may)."""
        rules = self._rules
        if self._total >= rules.applicable_redeemables_limit:
            return _TOTAL
        if kind == "EXCLUSIVE":
            if self._exclusive >= rules.applicable_exclusive_redeemables_limit:
                return _EXCLUSIVE
            limit = rules.applicable_exclusive_redeemables_per_category_limit
            if limit is not None and any(self._per_category[c.id] >= limit for c in entry.categories):
                return _EXCLUSIVE_PER_CATEGORY
            return None
        overrides = rules.applicable_redeemables_category_limits
        default = rules.applicable_redeemables_per_category_limit
        for category in entry.categories:
            limit = overrides.get(category.id, default)
            if limit is not None and self._per_category[category.id] >= limit:
                return _PER_CATEGORY
        return None

    def record(self, entry: StackEntry, kind: StackKind) -> None:
        """Count `entry` as applied."""
        self._total += 1
        if kind == "EXCLUSIVE":
            self._exclusive += 1
        for category in entry.categories:
            self._per_category[category.id] += 1
