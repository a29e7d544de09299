"""The two ways pricing refuses to work: bad request data, bad tier configuration.

`PricingInputError` is the caller's fault (the request's order); the HTTP layer
maps it to 400 `invalid_payload`, using `field` as the dotted path of the
offending value (`order.items[2].price`).

`TierConfigError` is the scenario author's fault (a tier whose discount or
validation rules this engine cannot evaluate). It is raised by `compile_tier`,
so a scenario fails when it is loaded, not in the middle of a validation.

`PricingOverflowError` is a `PricingInputError` for an order whose priced
amounts or quantities would pass 2^63-1, the bound every amount of the
interface has (and the served document declares). It is also the simulator's
`InvalidPayload`: a tier's free units can overflow while the tier is settled,
after the order was normalized, and the refusal must still reach the caller
as 400 `invalid_payload`, not as an error nobody maps.
"""

from __future__ import annotations

from typing import Any

from ..sim.refusals import InvalidPayload

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


class PricingOverflowError(PricingInputError, InvalidPayload):
    """The order's amounts or quantities, as priced, would pass `INT64_MAX`."""

    def __init__(self, field: str, message: str) -> None:
        PricingInputError.__init__(self, field, message)
        # The body the HTTP face sends: the same words as the validate
        # operation's own mapping of a PricingInputError.
        InvalidPayload.__init__(self, f"Property .{field}: {message}")

    def body(self) -> dict[str, Any]:
        # `message` is PricingInputError's (what was wrong); the error body's
        # title is InvalidPayload's.
        body = super().body()
        body["message"] = InvalidPayload.message
        return body


class TierConfigError(ValueError):
    """A tier's discount, rules or applicable_to cannot be compiled."""

    def __init__(self, tier_id: str, message: str) -> None:
        super().__init__(f"tier {tier_id}: {message}")
        self.tier_id = tier_id
        self.message = message
