"""A tier's budget rules, taken out of its rules so the rest can be swept.

A budget or limit rule (`engine.budget_rules`) reads what was redeemed
before, so its verdict changes as a forecast spends; every other rule reads
the order, the customer and the instant, which a sweep evaluates for all
orders at once. `BudgetedTier` splits a tier into the two: its budget
leaves, and one *variant* of the tier per combination of their verdicts,
each leaf replaced by a rule that always holds or never does. Sweeping the
variants gives, for each order, the tier's verdict under every combination;
the forecast then only has to tell which combination holds at the order's
moment (a few integer comparisons) and read the answer: exact whatever the
rules' logic (`and`, `or`, nesting) and with no rule evaluated twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ...engine import (
    BUDGET_FAMILIES,
    NOW_OPERATORS,
    CompiledTier,
    UsageQuery,
    checker,
    compile_tier,
)

__all__ = ["MAX_BUDGET_LEAVES", "BudgetLeaf", "BudgetedTier", "budgeted"]

#: More budget rules than this on one tier would need 2^k variants: refused.
MAX_BUDGET_LEAVES = 4

#: A rule that always holds and one that never does, on the order amount
#: (never negative): every path of the sweep evaluates them as masks.
_ALWAYS = {"name": "order.amount", "conditions": {"$more_than_or_equal": [0]}}
_NEVER = {"name": "order.amount", "conditions": {"$less_than": [0]}}


@dataclass(frozen=True)
class BudgetLeaf:
    """One budget rule of a tier: what it counts and the test it puts on the total."""

    rule_id: str
    name: str
    query: UsageQuery
    conditions: Mapping[str, Any]
    check: Callable[[Any, datetime], bool]

    @property
    def stays_spent(self) -> bool:
        """Once it fails it fails until its period turns: it only bounds the
        total from above (`$less_than` / `$less_than_or_equal`) and the total
        of everyone only grows while a forecast walks (no rollbacks)."""
        return (not self.query.per_customer and bool(self.conditions)
                and set(self.conditions) <= {"$less_than", "$less_than_or_equal"})

    @property
    def limit(self) -> int | None:
        """The bound of a `$less_than` / `$less_than_or_equal` rule (what "budget left" counts down to)."""
        for op in ("$less_than", "$less_than_or_equal"):
            args = self.conditions.get(op)
            if isinstance(args, list | tuple) and len(args) == 1 and isinstance(args[0], int | float):
                return int(args[0]) + (1 if op == "$less_than_or_equal" else 0)
        return None


@dataclass(frozen=True)
class BudgetedTier:
    """A tier with budget rules: its leaves and its 2^k variants (bit j of a
    variant's index set: leaf j holds)."""

    tier: CompiledTier
    leaves: tuple[BudgetLeaf, ...]
    variants: tuple[CompiledTier, ...]


def budget_leaves(tier: CompiledTier) -> tuple[BudgetLeaf, ...]:
    rules = (tier.spec.rules or {}).get("rules") or {}
    out = []
    for rule_id, rule in rules.items():
        if rule_id == "logic" or not isinstance(rule, Mapping):
            continue
        name = rule.get("name")
        if name in BUDGET_FAMILIES:
            conditions = rule.get("conditions") or {}
            dated = NOW_OPERATORS & set(conditions)
            if dated:  # a total is a number: a date test on it never holds, and would need each order's instant
                raise ValueError(f"tier {tier.id}: budget rule {rule_id} ({name}) compares its total with {min(dated)}")
            out.append(BudgetLeaf(str(rule_id), str(name), BUDGET_FAMILIES[name], conditions, checker(conditions)))
    return tuple(out)


def budgeted(tier: CompiledTier) -> BudgetedTier | None:
    """The tier split for a forecast, None when it has no budget rule; raises
    ValueError past `MAX_BUDGET_LEAVES`."""
    leaves = budget_leaves(tier)
    if not leaves:
        return None
    if len(leaves) > MAX_BUDGET_LEAVES:
        raise ValueError(f"tier {tier.id} has {len(leaves)} budget rules; a forecast handles up to {MAX_BUDGET_LEAVES}")
    spec = tier.spec
    validation = dict(spec.rules or {})
    variants = []
    for bits in range(1 << len(leaves)):
        rules = dict(validation.get("rules") or {})
        for j, leaf in enumerate(leaves):
            rules[leaf.rule_id] = _ALWAYS if bits >> j & 1 else _NEVER
        variants.append(compile_tier(replace(spec, id=f"{spec.id}@{bits}", rules={**validation, "rules": rules})))
    return BudgetedTier(tier, leaves, tuple(variants))
