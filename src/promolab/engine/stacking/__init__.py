"""Stacking: several redeemables applied to one order, one after the other.

The single-tier engine (`price_normalized`) answers "what does this tier do
to this cart"; stacking answers "what do these codes, gift cards and tiers
do together", under a project's `StackingRules`:

- `stack_entry`: what the caller tells the engine about each redeemable
  (its compiled discount or gift credits, its categories, or why the caller
  already refused it), and what the engine answers for each;
- `application_order`: in which order they are tried (exclusive categories
  first, always-stackable ones last, requested order or category hierarchy
  in between);
- `running_order`: the order as the discounts so far left it, and what one
  more discount does to it (the base of a percentage per calculation mode,
  products discounted once or many times);
- `running_units`: what a UNIT (free item) discount does to it (the units
  it adds, on the lines as the redeemables before it left them);
- `limits`: how many may apply, in all, per category, from exclusive
  categories;
- `evaluation`: the loop that puts them together (`evaluate_stack`).

Decisions where the service's documents are silent are written in
docs/decisions.md § Stacking and each is made in one place here.
"""

from .application_order import application_order, initial_amount_mode, skips_no_effect
from .evaluation import FIXED_REASONS, StackResult, alone_failure, evaluate_stack, why_rules_failed
from .limits import CategoryLimit, category_limits
from .stack_entry import StackCategory, StackedRedeemable, StackEntry, StackKind

__all__ = [
    "FIXED_REASONS", "CategoryLimit", "StackCategory", "StackEntry", "StackKind", "StackResult", "StackedRedeemable",
    "alone_failure", "application_order", "category_limits", "evaluate_stack", "initial_amount_mode", "skips_no_effect",
    "why_rules_failed",
]
