"""The pricing engine: one promotion tier, one order, one customer, one instant.

Pure functions and the single source of truth for amounts (docs/pricing.md).
It imports nothing of promolab but the standard library (import-linter holds
the simulator above it and the wire models below). Typical use in a
validation request::

    order = normalize_order(catalogue, request["order"], customer_id=None)
    outcomes = [price_normalized(catalogue, compiled, order, customer, ctx)
                for compiled in compiled_tiers]          # compile_tier(...) once, cached
    outcomes[0].pricing                                  # typed: OrderPricing, its lines
    outcome_wire(outcomes[0]).order                      # rendered: the wire order

The engine computes typed results (`TierOutcome`, `OrderPricing` and its
`LinePricing`, `StackResult` and its `StackedRedeemable`); `render` writes
them as the wire JSON and no computing module imports it (a contract).

This module is the engine's one public face: the simulator, the analysis
layer and the widgets import from `promolab.engine`, never from its modules
(a contract forbids it for analysis and widgets).

Rounding policy (docs/pricing.md). Every amount is an integer number of cents and
no float ever touches one: percentages are exact fractions, and a fractional
cent is rounded half up, once, per line (12.5 -> 13). A proportional split
(APPLY_TO_ITEMS_PROPORTIONALLY[_BY_QUANTITY]) rounds each share and hands the
remainder to the line with the largest amount (the first such line on ties), so
the shares add up exactly to the split amount. A line discount never exceeds
its line amount, an order discount never exceeds the order amount, and the
order's `total_amount` never goes below zero.

Field-presence policy. The service's responses omit fields rather than send
zeros, and clients (ours included) tell an order-level discount from an
item-level one by which fields exist; so we reproduce the examples' presence
exactly instead of always emitting every field: `amount` and `total_amount`
always; order-level `discount_amount`/`applied_discount_amount` only when an
order-level effect gave something; `items_*` only when item discounts are
> 0; `total_*discount_amount` when either exists; `initial_amount` only when a
UNIT effect added priced units. Items: discount fields only on discounted
lines, UNIT bookkeeping (`discount_quantity`, `initial_quantity`,
`initial_amount`) only on lines a UNIT effect touched, and no amounts on a
line without a price. The tier's `discount_amount`/`applied_discount_amount`
are present when the discount is monetary (always for AMOUNT/PERCENT/FIXED,
for UNIT when a discounted unit has a price) and equal the order's
`total_discount_amount`. Details: `render.order`.

Where things are: the inputs (`catalogue`, `tier_spec`, `context`), the
order (`normalize`, `item_resolution`, `lines`), the tier (`compiled_tier`:
`campaign`, `rules` with `item_rules`, `conditions`, `logic_parser` and
`rule_evaluation`, `total_amount`, `scope`, `amount_discounts`,
`unit_discounts`, `unit_budgets`), pricing (`pricing`, `settle`, `schedule`,
`money`, `unit_allowance`), several redeemables on one order under a
project's stacking rules (`stacking`), the typed answer (`outcome`,
`order_pricing`), its rendering (`render`: `order`, `tier`, `stack`) and the
refusals (`errors`).
"""

from .amount_discounts import AmountBenefit
from .budget_rules import (
    BUDGET_FAMILIES,
    QUALIFICATION_IGNORED,
    Period,
    Usage,
    UsageQuery,
    WeekStart,
    period_start,
)
from .campaign import parse_duration
from .catalogue import (
    SHIPPING_PRODUCT,
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
)
from .compiled_tier import EFFECTS, CompiledTier, compile_tier
from .conditions import NOW_OPERATORS, OPERATORS, compile_conditions, numeric_value
from .context import CustomerContext, PricingContext
from .errors import INT64_MAX, PricingInputError, PricingOverflowError, TierConfigError
from .lines import Line, NormalizedOrder
from .money import round_half_up, split_proportionally
from .normalize import normalize_order
from .order_pricing import LinePricing, OrderPricing
from .outcome import TierOutcome
from .pricing import passing_tiers, price_normalized, price_running, price_tier
from .render import (
    OutcomeWire,
    copy_order,
    order_wire,
    outcome_wire,
    promotion_entries,
    promotion_entry,
    promotion_tier_wire,
    redeemable_order,
    stack_order,
    static_wire,
    wire_instant,
)
from .rule_evaluation import BudgetScope, RuleFailure, checker, lookup
from .rules import AUDIENCE_FAMILIES, RULE_FAMILIES, RuleSet, compile_rules
from .schedule import RunningTiers
from .stacking import (
    FIXED_REASONS,
    CategoryLimit,
    StackCategory,
    StackedRedeemable,
    StackEntry,
    StackKind,
    StackResult,
    alone_failure,
    application_order,
    category_limits,
    evaluate_stack,
    initial_amount_mode,
    skips_no_effect,
    why_rules_failed,
)
from .tier_spec import CampaignInfo, TierSpec
from .total_amount import TOTAL_AMOUNT
from .usage_ledger import UsageLedger, period_key_arrays, period_keys, period_slot

__all__ = [
    "AUDIENCE_FAMILIES",
    "BUDGET_FAMILIES",
    "EFFECTS",
    "FIXED_REASONS",
    "INT64_MAX",
    "NOW_OPERATORS",
    "OPERATORS",
    "QUALIFICATION_IGNORED",
    "RULE_FAMILIES",
    "SHIPPING_PRODUCT",
    "TOTAL_AMOUNT",
    "AmountBenefit",
    "BudgetScope",
    "CampaignInfo",
    "Catalogue",
    "CatalogueCollection",
    "CatalogueProduct",
    "CatalogueSku",
    "CategoryLimit",
    "CompiledTier",
    "CustomerContext",
    "Line",
    "LinePricing",
    "NormalizedOrder",
    "OrderPricing",
    "OutcomeWire",
    "Period",
    "PricingContext",
    "PricingInputError",
    "PricingOverflowError",
    "RuleFailure",
    "RuleSet",
    "RunningTiers",
    "StackCategory",
    "StackEntry",
    "StackKind",
    "StackResult",
    "StackedRedeemable",
    "TierConfigError",
    "TierOutcome",
    "TierSpec",
    "Usage",
    "UsageLedger",
    "UsageQuery",
    "WeekStart",
    "alone_failure",
    "application_order",
    "category_limits",
    "checker",
    "compile_conditions",
    "compile_rules",
    "compile_tier",
    "copy_order",
    "evaluate_stack",
    "initial_amount_mode",
    "lookup",
    "normalize_order",
    "numeric_value",
    "order_wire",
    "outcome_wire",
    "parse_duration",
    "passing_tiers",
    "period_key_arrays",
    "period_keys",
    "period_slot",
    "period_start",
    "price_normalized",
    "price_running",
    "price_tier",
    "promotion_entries",
    "promotion_entry",
    "promotion_tier_wire",
    "redeemable_order",
    "round_half_up",
    "skips_no_effect",
    "split_proportionally",
    "stack_order",
    "static_wire",
    "why_rules_failed",
    "wire_instant",
]
