"""The pricing engine: one promotion tier, one order, one customer, one instant.

A pure function and the single source of truth for amounts (docs/pricing.md).
Typical use in a validation request::

    order = normalize_order(catalogue, request["order"], customer_id=None)
    outcomes = [price_normalized(catalogue, compiled, order, customer, ctx)
                for compiled in compiled_tiers]          # compile_tier(...) once, cached

See `engine` for the rounding and field-presence policies, `rules` for the rule
families, `discounts` / `unit_discounts` for the effects and `scope` for applicable_to.
"""

from .campaign import parse_duration
from .conditions import OPERATORS
from .engine import CompiledTier, TierOutcome, compile_tier, price_normalized, price_tier
from .input_errors import PricingInputError, TierConfigError
from .inputs import (
    SHIPPING_PRODUCT,
    CampaignInfo,
    Catalogue,
    Collection,
    CustomerContext,
    PricingContext,
    Product,
    Sku,
    TierSpec,
)
from .items import Line, NormalizedOrder, normalize_order
from .money import round_half_up, split_proportionally
from .rules import AUDIENCE_FAMILIES, RULE_FAMILIES
from .tier_wire import promotion_tier_wire

__all__ = [
    "AUDIENCE_FAMILIES",
    "OPERATORS",
    "RULE_FAMILIES",
    "SHIPPING_PRODUCT",
    "CampaignInfo",
    "Catalogue",
    "Collection",
    "CompiledTier",
    "CustomerContext",
    "Line",
    "NormalizedOrder",
    "PricingContext",
    "PricingInputError",
    "Product",
    "Sku",
    "TierConfigError",
    "TierOutcome",
    "TierSpec",
    "compile_tier",
    "normalize_order",
    "parse_duration",
    "price_normalized",
    "price_tier",
    "promotion_tier_wire",
    "round_half_up",
    "split_proportionally",
]
