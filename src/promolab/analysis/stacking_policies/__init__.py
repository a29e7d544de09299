"""Comparing stacking policies: the same orders and redeemables re-priced under several stacking rules.

`compare_stacking_policies(sim, orders, redeemables, policies)` returns a
`StackingComparison` (`.orders`, `.redeemables`, `.summary()`,
`.reason_counts()`, `.difference(a, b)`, `.paths`, `.plot()`). Each order is
priced as the engine's `evaluate_stack` prices it, vectorized across orders
where that is exact and by the engine where not. Modules: `policy_rules`
(policies and redeemables checked), `stack_plan` (per redeemable: masks,
kernels; per policy: the engine's application order), `running_arrays` (one
policy over a chunk in numpy), `stack_runner` (chunks, the engine path),
`reason_table` (reasons as codes), `stack_outputs` (arrays),
`comparison` (frames), `comparison_summary` (its repr and
notebook summary), `chart`.
"""

from .api import compare_stacking_policies
from .chart import plot_policy_discounts
from .comparison import ORDER_COLUMNS, REDEEMABLE_COLUMNS, SUMMARY_COLUMNS, StackingComparison
from .policy_rules import DEFAULT_POLICIES

__all__ = [
    "DEFAULT_POLICIES",
    "ORDER_COLUMNS",
    "REDEEMABLE_COLUMNS",
    "SUMMARY_COLUMNS",
    "StackingComparison",
    "compare_stacking_policies",
    "plot_policy_discounts",
]
