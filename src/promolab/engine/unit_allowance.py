"""What is left of a tier's unit budgets for one request (`allowance_of`).

The one place every pricing path (a single tier's settlement, a stack's
step, qualifications through either) asks how many units of each product a
budgeted tier may still discount, so that they all trim alike.
"""

from __future__ import annotations

from .compiled_tier import CompiledTier
from .lines import NormalizedOrder
from .unit_budgets import BudgetSubject, UnitSpent, budgets_by_product, unit_allowance

__all__ = ["allowance_of"]


def allowance_of(
    tier: CompiledTier, order: NormalizedOrder, usage: object, spent: UnitSpent | None = None
) -> dict[str, int] | None:
    """Units left per budgeted product the tier reaches on `order`; None for
    a tier without unit budgets (its settlement depends on the order alone).
    `usage`: the pricing context's usage (a ledger counting units, or
    anything else: nothing spent yet); `spent`: what a stack applied before."""
    if not tier.scope.budgeted:
        return None
    reached = tier.scope.reached(order.lines)
    by_product = budgets_by_product((line, line_scope.unit_budgets) for _, line, line_scope in reached)
    who = BudgetSubject(tier.id, tier.spec.campaign.id, order.customer_id)
    return unit_allowance(by_product, who, usage, spent)
