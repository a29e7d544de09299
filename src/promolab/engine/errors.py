"""The two ways pricing refuses to work: bad request data, bad tier configuration.

`PricingInputError` is the caller's fault (the request's order); `field` is
the dotted path of the offending value (`order.items[2].price`). The
simulator turns it into its 400 `invalid_payload` refusal wherever it hands
the engine a request's data (`sim.promotions.invalid_payload`): the engine
knows nothing of HTTP or of the simulator's refusals.

`TierConfigError` is the scenario author's fault (a tier whose discount or
validation rules this engine cannot evaluate). It is raised by `compile_tier`,
so a scenario fails when it is loaded, not in the middle of a validation.

`PricingOverflowError` is a `PricingInputError` for an order whose priced
amounts or quantities would pass 2^63-1, the bound every amount of the
interface has (and the served document declares). It can be raised after the
order was normalized, while a tier is settled (a UNIT tier's free units), so
a caller maps `PricingInputError` around the pricing calls as well as around
`normalize_order`.
"""

from __future__ import annotations

__all__ = ["INT64_MAX", "PricingInputError", "PricingOverflowError", "TierConfigError"]

#: The largest amount, price or quantity an order may hold or be given
#: (= models.INT64_MAX; not imported, so this module stays free of pydantic).
INT64_MAX = 2**63 - 1


class PricingInputError(ValueError):
    """The order in the request cannot be priced."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class PricingOverflowError(PricingInputError):
    """The order's amounts or quantities, as priced, would pass `INT64_MAX`."""


class TierConfigError(ValueError):
    """A tier's discount, rules or applicable_to cannot be compiled."""

    def __init__(self, tier_id: str, message: str) -> None:
        super().__init__(f"tier {tier_id}: {message}")
        self.tier_id = tier_id
        self.message = message
