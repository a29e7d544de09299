"""The `order.total_amount` rule ("total amount after discounts"): the
order's total once the redeemable being checked applied its own discount.

Its verdict depends on that redeemable's discount, so its leaf is neither
interned nor memoized (like a budget rule's): two tiers with the same rule
see two totals. What it reads, first found: the caller's `RuleEnv.after`
(a stack: the running total less this redeemable's step; a gift card: less
its credits), else `own_total` of the order the rules read (`compile_tier`:
the tier's discount alone, what a single validation settles), else the
order's amount (a rule set compiled with neither: nothing taken off).
Decision: docs/decisions.md § Stacked validations and redemptions.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from .lines import NormalizedOrder
from .rule_evaluation import Pred, RuleEnv, RuleFailure

__all__ = ["TOTAL_AMOUNT", "OwnTotal", "total_amount_leaf"]

TOTAL_AMOUNT = "order.total_amount"

#: The order's total after the redeemable's own discount, computed from the
#: order it is priced on (`compile_tier` gives one per tier).
OwnTotal = Callable[[NormalizedOrder], int]


def total_amount_leaf(check: Callable[[Any, datetime], bool], failure: RuleFailure, own_total: OwnTotal | None) -> Pred:
    """The rule's leaf: `check` (its conditions) on the total it reads."""

    def leaf(env: RuleEnv) -> bool:
        budget = env.budget
        if budget is not None and TOTAL_AMOUNT in budget.ignored:
            return True
        after = env.after
        if after is not None:
            total = after()
        else:
            total = own_total(env.order) if own_total is not None else env.order.amount
        if check(total, env.now):
            return True
        if env.failure is None:
            env.failure = failure
        return False

    return leaf
