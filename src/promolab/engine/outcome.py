"""`TierOutcome`: one tier priced against one order, the verdict and the amounts.

The engine's typed answer per tier: valid or not and why (`reason_key`,
`reason`), and for a valid tier its `OrderPricing` (the order with the tier
applied, every line's figures) and the amounts a caller reads most
(`discount_amount`, `total_amount`). No wire shape here: `engine.render`
renders an outcome (`outcome_wire`, `promotion_entry`), which is why an
outcome keeps what rendering needs to find (the tier, the catalogue, the
normalized order with the request's own values, and whether the request
expands categories) but never builds a dict itself. The analysis layer
(compare_tiers, the sweep's engine fallback) reads the verdict and the
amounts only, and so never pays for the wire.

The tier's `discount_amount` / `applied_discount_amount` are present when the
discount is monetary (always for AMOUNT/PERCENT/FIXED, for UNIT when a
discounted unit has a price) and equal the order's total discount.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .catalogue import Catalogue
    from .compiled_tier import CompiledTier
    from .lines import NormalizedOrder
    from .order_pricing import OrderPricing
    from .rule_evaluation import RuleFailure

__all__ = ["TierOutcome"]


class TierOutcome:
    """One tier priced against one order.

    Not a frozen dataclass on purpose: one is built per tier per request, and
    a frozen dataclass's __init__ sets each field through object.__setattr__.
    Read-only by convention: nothing changes an outcome once made.
    """

    __slots__ = (
        "applied_discount_amount",
        "catalogue",
        "discount_amount",
        "expand_category",
        "normalized",
        "pricing",
        "reason",
        "reason_key",
        "tier",
        "tier_id",
        "total_amount",
        "valid",
    )

    tier_id: str
    valid: bool
    #: machine key when not valid, e.g. "order_rules_violated", "promotion_inactive"
    reason_key: str | None
    #: human text when not valid, e.g. "order.amount must be more than 10000"
    reason: str | None
    #: None when not valid or when the discount has no monetary value (price-less UNIT)
    discount_amount: int | None
    applied_discount_amount: int | None
    #: the order's total_amount with this tier applied (None when not valid)
    total_amount: int | None
    #: the order with this tier applied, line by line (None when not valid)
    pricing: OrderPricing | None
    #: what rendering reads: the tier, the catalogue it was priced against,
    #: the order as normalized (the request's metadata, customer, referrer)
    #: and whether the request expands the campaign's categories
    tier: CompiledTier
    catalogue: Catalogue
    normalized: NormalizedOrder
    expand_category: bool

    def __init__(
        self,
        tier: CompiledTier,
        catalogue: Catalogue,
        normalized: NormalizedOrder,
        expand_category: bool,
        failure: RuleFailure | None,
        pricing: OrderPricing | None,
    ) -> None:
        """A failed outcome (`failure` set, `pricing` None) or a valid one."""
        self.tier = tier
        self.tier_id = tier.spec.id
        self.catalogue = catalogue
        self.normalized = normalized
        self.expand_category = expand_category
        self.valid = failure is None
        self.reason_key = failure.key if failure is not None else None
        self.reason = failure.message if failure is not None else None
        self.pricing = pricing
        if pricing is not None:
            self.discount_amount = self.applied_discount_amount = pricing.discount
            self.total_amount = pricing.total
        else:
            self.discount_amount = self.applied_discount_amount = self.total_amount = None

    def _fields(self) -> tuple[Any, ...]:
        order = self.normalized
        return (
            self.tier_id, self.valid, self.reason_key, self.reason, self.discount_amount,
            self.applied_discount_amount, self.total_amount, self.pricing, self.expand_category,
            dict(order.metadata), order.customer_id, order.referrer_id,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        """The same verdict, amounts and pricing for the same request values
        (the tier compared by id: equal outcomes render to equal wire)."""
        if not isinstance(other, TierOutcome):
            return NotImplemented
        return self._fields() == other._fields()

    # No __hash__: a class that defines __eq__ alone is unhashable.

    def __repr__(self) -> str:
        if self.valid:
            return (
                f"TierOutcome(tier_id={self.tier_id!r}, valid=True, "
                f"discount_amount={self.discount_amount!r}, total_amount={self.total_amount!r})"
            )
        return (
            f"TierOutcome(tier_id={self.tier_id!r}, valid=False, "
            f"reason_key={self.reason_key!r}, reason={self.reason!r})"
        )
