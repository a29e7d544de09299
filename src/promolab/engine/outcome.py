"""`TierOutcome`: one tier priced against one order, the verdict and the amounts.

The amounts are settled when the outcome is made; the wire parts are built
when first read (see the class). The tier's `discount_amount` /
`applied_discount_amount` are present when the discount is monetary (always
for AMOUNT/PERCENT/FIXED, for UNIT when a discounted unit has a price) and
equal the order's `total_discount_amount`; the order's own field presence is
`wire_order`'s.
"""

from __future__ import annotations

from typing import Any

from .lines import NormalizedOrder
from .settle import Settlement
from .tier_wire import StaticWire

__all__ = ["TierOutcome"]


class TierOutcome:
    """One tier priced against one order: the verdict and the amounts, with
    the wire parts (order, applicable_to, inapplicable_to, discount, campaign)
    built on first access.

    Why lazy: the amounts are the engine's answer, the wire objects are their
    presentation, and building them is most of a tier's cost (fresh dicts for
    every item, product and list entry). The validate operation reads them for
    the valid tiers it answers with; the analysis layer (compare_tiers, the
    sweep's engine fallback) reads only `valid`, the amounts and the reason,
    and so never pays for them. What a part shows is fixed when the outcome is
    made (its inputs are immutable), so building it later gives the same
    bytes; each part is built once per outcome and then owned by the caller,
    who may mutate it.

    Not a frozen dataclass on purpose: one is built per tier per request.
    """

    __slots__ = (
        "_assembly",
        "_expand",
        "_order",
        "_parts",
        "_static",
        "applied_discount_amount",
        "discount_amount",
        "reason",
        "reason_key",
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

    def __init__(
        self,
        tier_id: str,
        valid: bool,
        reason_key: str | None,
        reason: str | None,
        discount_amount: int | None,
        total_amount: int | None,
        static: StaticWire,
        expand_category: bool,
        assembly: tuple[Settlement, NormalizedOrder] | None,
    ) -> None:
        self.tier_id = tier_id
        self.valid = valid
        self.reason_key = reason_key
        self.reason = reason
        self.discount_amount = discount_amount
        self.applied_discount_amount = discount_amount
        self.total_amount = total_amount
        self._static = static
        self._expand = expand_category
        self._assembly = assembly
        self._order: dict[str, Any] | None = None
        self._parts: tuple[dict[str, Any], ...] | None = None

    @property
    def order(self) -> dict[str, Any] | None:
        """The wire order as if only this tier applied (None when not valid)."""
        if self._order is None and self._assembly is not None:
            settlement, order = self._assembly
            self._order = settlement.wire_order(order)
        return self._order

    def _part(self, k: int) -> dict[str, Any]:
        parts = self._parts
        if parts is None:
            parts = self._parts = self._static.fresh(self._expand)
        return parts[k]

    @property
    def applicable_to(self) -> dict[str, Any]:
        return self._part(0)

    @property
    def inapplicable_to(self) -> dict[str, Any]:
        return self._part(1)

    @property
    def discount(self) -> dict[str, Any]:
        return self._part(2)

    @property
    def campaign(self) -> dict[str, Any]:
        return self._part(3)

    def entry(self, tracking_id: str) -> dict[str, Any]:
        """This valid outcome as a `promotions[]` entry of a validation
        response: `wire.promotion_tier_wire(spec, self, tracking_id)`, built
        from the tier's planned template (fresh copies of its parts, not the
        ones `applicable_to` & co. hand out) plus the order and the amounts."""
        if not self.valid:
            raise ValueError(f"tier {self.tier_id} is not valid: it has no promotions[] entry")
        return self._static.entry(self._expand, tracking_id, self.order, self.discount_amount)

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.tier_id, self.valid, self.reason_key, self.reason, self.order,
            self.discount_amount, self.applied_discount_amount, self.total_amount,
            self.applicable_to, self.inapplicable_to, self.discount, self.campaign,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TierOutcome):
            return NotImplemented
        return self._fields() == other._fields()

    # No __hash__: a class that defines __eq__ alone is unhashable (its parts
    # are mutable), like the dataclass it replaces.

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
