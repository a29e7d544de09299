"""The two ways pricing refuses to work: bad request data, bad tier configuration.

`PricingInputError` is the caller's fault (the request's order); the HTTP layer
maps it to 400 `invalid_payload`, using `field` as the dotted path of the
offending value (`order.items[2].price`).

`TierConfigError` is the scenario author's fault (a tier whose discount or
validation rules this engine cannot evaluate). It is raised by `compile_tier`,
so a scenario fails when it is loaded, not in the middle of a validation.
"""

from __future__ import annotations

__all__ = ["PricingInputError", "TierConfigError"]


class PricingInputError(ValueError):
    """The order in the request cannot be priced."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class TierConfigError(ValueError):
    """A tier's discount, rules or applicable_to cannot be compiled."""

    def __init__(self, tier_id: str, message: str) -> None:
        super().__init__(f"tier {tier_id}: {message}")
        self.tier_id = tier_id
        self.message = message
