"""How many redeemables of a stack may apply: in all, per category, from exclusive categories.

Counted in application order over the redeemables applied so far; the first
limit a redeemable would pass is its SKIPPED reason (the service's keys and
messages). A limit of `None` is "no limit". Joint (always stackable)
redeemables count like the others: "always stackable" is about exclusivity,
not about the limits (decision: docs/decisions.md § Stacking).

A redeemable counts in each of its categories, and each category has its own
limit (`category_limits`): the project's override for it
(`applicable_redeemables_category_limits`) if there is one, else, for a
category of `exclusive_categories`, the exclusive per-category limit, else
`applicable_redeemables_per_category_limit`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ...models import StackingRules
from ..rule_evaluation import RuleFailure
from .stack_entry import StackEntry, StackKind

__all__ = ["LIMIT_FAILURES", "ApplicationLimits", "CategoryLimit", "category_limits"]

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

#: Every limit's refusal: the total, the exclusive total, then the categories' (`category_limits`).
LIMIT_FAILURES = (_TOTAL, _EXCLUSIVE, _EXCLUSIVE_PER_CATEGORY, _PER_CATEGORY)


@dataclass(frozen=True, slots=True)
class CategoryLimit:
    """How many redeemables of one category may apply, and the refusal past it."""

    category: str
    limit: int
    failure: RuleFailure


def category_limits(entry: StackEntry, rules: StackingRules) -> tuple[CategoryLimit, ...]:
    """The limits `entry`'s categories set, in its categories' order (the
    first one reached is the refusal); a category without a limit is left out.
    The one statement of which limit holds for a category: the analysis
    layer's vectorized comparison reads it too."""
    overrides = rules.applicable_redeemables_category_limits
    out = []
    for category in entry.categories:
        if category.id in rules.exclusive_categories:
            default, failure = rules.applicable_exclusive_redeemables_per_category_limit, _EXCLUSIVE_PER_CATEGORY
        else:
            default, failure = rules.applicable_redeemables_per_category_limit, _PER_CATEGORY
        limit = overrides.get(category.id, default)
        if limit is not None:
            out.append(CategoryLimit(category.id, limit, failure))
    return tuple(out)


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
        if kind == "EXCLUSIVE" and self._exclusive >= rules.applicable_exclusive_redeemables_limit:
            return _EXCLUSIVE
        if not entry.categories:
            return None
        for limit in category_limits(entry, rules):
            if self._per_category[limit.category] >= limit.limit:
                return limit.failure
        return None

    def record(self, entry: StackEntry, kind: StackKind) -> None:
        """Count `entry` as applied."""
        self._total += 1
        if kind == "EXCLUSIVE":
            self._exclusive += 1
        for category in entry.categories:
            self._per_category[category.id] += 1
