"""Rendering the engine's typed results as the interface's wire JSON.

The engine computes (`pricing`, `settle`, `unit_discounts`, `stacking`) and
answers with typed results: `TierOutcome` per tier, `OrderPricing` per
priced order with its lines (`LinePricing`), `StackedRedeemable` per
redeemable of a stack. This package writes them down, each in one pass, and
is the one place of the wire's presence rules:

- `order`: an `OrderPricing` as the wire order (`order_wire`), with the
  order's and items' field presence;
- `tier`: a tier's parts that do not depend on the order (`StaticWire`,
  planned once per tier and catalogue), an outcome's parts
  (`outcome_wire`), its `promotions[]` entry (`promotion_entry`), and the
  validate operation's whole `promotions[]` (`promotion_entries`);
- `stack`: a stack's final order and each redeemable's running order.

Computing never imports this package (an import-linter contract in
pyproject.toml holds it), so amounts never depend on how they are shown.
"""

from .order import copy_order, order_wire
from .stack import redeemable_order, stack_order
from .tier import (
    OutcomeWire,
    StaticWire,
    outcome_wire,
    promotion_entries,
    promotion_entry,
    promotion_tier_wire,
    static_wire,
    wire_instant,
)

__all__ = [
    "OutcomeWire",
    "StaticWire",
    "copy_order",
    "order_wire",
    "outcome_wire",
    "promotion_entries",
    "promotion_entry",
    "promotion_tier_wire",
    "redeemable_order",
    "stack_order",
    "static_wire",
    "wire_instant",
]
