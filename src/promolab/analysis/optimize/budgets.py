"""The budgets a choice must keep: read from the scenario's rules, or given.

A budget is a limit on discount money: the scenario's
`campaign.orders.amount_discounted` rules (`$less_than` / `..._or_equal`, as
`forecast.budget_leaves` reads them) on a group's tier, keyed by the
campaign, or `budgets={key: cents}` given by the caller, keyed by a group's
tier id or campaign id (a given key replaces the scenario's). A budget
covers the groups of its tier or campaign; it holds for a choice when the
sum of their P90 spends is within its limit (`spread`: safe).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...engine import CompiledTier
from ..forecast.budget_leaves import budget_leaves
from .space import TierGrid

__all__ = ["Budget", "budgets_of"]

_DISCOUNT_BUDGET = "campaign.orders.amount_discounted"


@dataclass(frozen=True)
class Budget:
    """A limit (cents) on the summed P90 spend of the groups it covers."""

    key: str
    limit: int
    groups: tuple[int, ...]
    source: str


def budgets_of(groups: Sequence[TierGrid], bases: Sequence[CompiledTier],
               given: Mapping[str, int] | None) -> tuple[Budget, ...]:
    """The scenario's discount budgets on the groups' tiers, then the given ones."""
    found: dict[str, Budget] = {}
    for base in bases:
        campaign = base.spec.campaign.id
        for leaf in budget_leaves(base):
            if leaf.name == _DISCOUNT_BUDGET and leaf.limit is not None and campaign not in found:
                # the rule holds while the total is below `limit`: at most limit - 1 is spent
                found[campaign] = Budget(campaign, leaf.limit - 1, (), f"rule {leaf.rule_id} of {base.id}")
    keys = {g.tier for g in groups} | {b.spec.campaign.id for b in bases}
    for key, limit in (given or {}).items():
        if key not in keys:
            raise ValueError(f"budgets names {key!r}, neither a group's tier nor its campaign "
                             f"(groups: {', '.join(sorted(keys))})")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"budgets[{key!r}] must be whole cents >= 0, got {limit!r}")
        found[key] = Budget(key, limit, (), "given")
    out = []
    for budget in found.values():
        members = tuple(g for g, (group, base) in enumerate(zip(groups, bases, strict=True))
                        if budget.key in (group.tier, base.spec.campaign.id))
        out.append(Budget(budget.key, budget.limit, members, budget.source))
    return tuple(out)
