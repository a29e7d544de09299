"""Promotion validation: the request, the response and its promotion tiers.

Each tier carries its own computed ``order`` (tiers do not accumulate: docs/pricing.md). The
tier's ``discount_amount``/``applied_discount_amount`` and ``banner`` are present only
when they apply (a free-shipping tier with an unpriced shipping line has neither).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, Self

from pydantic import Field, StrictBool, model_validator

from ._base import RequestModel, WireModel, fail
from .categories import Category
from .common import Int64, ListEnvelope, Metadata, Money, NonNegativeInt64, Timestamp
from .customers import CustomerInput
from .discounts import Discount
from .orders import Order, OrderInput

__all__ = [
    "ApplicableTo",
    "ApplicableToEffect",
    "ApplicableToList",
    "PromotionTier",
    "TierCampaign",
    "ValidationCustomer",
    "ValidationOptions",
    "ValidationRequest",
    "ValidationResponse",
]


class ApplicableToEffect(StrEnum):
    """Which units of a matched line the discount reaches (docs/pricing.md)."""

    APPLY_TO_EVERY = "APPLY_TO_EVERY"
    APPLY_TO_CHEAPEST = "APPLY_TO_CHEAPEST"
    APPLY_FROM_CHEAPEST = "APPLY_FROM_CHEAPEST"
    APPLY_TO_MOST_EXPENSIVE = "APPLY_TO_MOST_EXPENSIVE"
    APPLY_FROM_MOST_EXPENSIVE = "APPLY_FROM_MOST_EXPENSIVE"


#: The unit budget fields of an applicable_to entry (engine `unit_budgets`).
_UNIT_BUDGETS = (
    "product_campaign_quantity_limit",
    "product_customer_campaign_quantity_limit",
    "product_in_collection_campaign_quantity_limit",
    "product_in_collection_customer_campaign_quantity_limit",
    "product_promotion_tier_quantity_limit",
    "product_customer_promotion_tier_quantity_limit",
    "product_in_collection_promotion_tier_quantity_limit",
    "product_in_collection_customer_promotion_tier_quantity_limit",
)


class ApplicableTo(WireModel):
    """A product, SKU or collection the tier's discount may (or may never) reach."""

    __omit_if_none__ = frozenset(
        {
            "source_id",
            "product_id",
            "product_source_id",
            "price",
            "effect",
            "quantity_limit",
            "aggregated_quantity_limit",
            "amount_limit",
            "aggregated_amount_limit",
            *_UNIT_BUDGETS,
        }
    )

    object: Literal["product", "sku", "products_collection"]
    id: str = Field(min_length=1)
    source_id: str | None = None
    product_id: str | None = None
    product_source_id: str | None = None
    #: New unit price for FIXED discounts.
    price: Money | None = None
    effect: ApplicableToEffect | None = None
    quantity_limit: NonNegativeInt64 | None = None
    aggregated_quantity_limit: NonNegativeInt64 | None = None
    amount_limit: Money | None = None
    aggregated_amount_limit: Money | None = None
    #: Unit budgets: units of each product discounted over all redemptions
    #: (of the campaign or the tier; of everyone or of the customer).
    product_campaign_quantity_limit: NonNegativeInt64 | None = None
    product_customer_campaign_quantity_limit: NonNegativeInt64 | None = None
    product_in_collection_campaign_quantity_limit: NonNegativeInt64 | None = None
    product_in_collection_customer_campaign_quantity_limit: NonNegativeInt64 | None = None
    product_promotion_tier_quantity_limit: NonNegativeInt64 | None = None
    product_customer_promotion_tier_quantity_limit: NonNegativeInt64 | None = None
    product_in_collection_promotion_tier_quantity_limit: NonNegativeInt64 | None = None
    product_in_collection_customer_promotion_tier_quantity_limit: NonNegativeInt64 | None = None

    @model_validator(mode="after")
    def _parent_product_only_for_skus(self) -> Self:
        # Interface: product_id and product_source_id are "for sku" entries.
        for name in ("product_id", "product_source_id"):
            if getattr(self, name) is not None and self.object != "sku":
                fail(name, f"{name} is only sent for sku entries", getattr(self, name))
        return self


class ApplicableToList(ListEnvelope[ApplicableTo]):
    """``applicable_to`` / ``inapplicable_to`` of a tier."""


def _empty_applicable_to() -> ApplicableToList:
    return ApplicableToList(data=[], total=0)


class TierCampaign(WireModel):
    """The tier's campaign, summarised; ``categories`` only when expanded."""

    __omit_if_none__ = frozenset({"categories"})

    id: str
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    active: StrictBool
    categories: list[Category] | None = None
    object: Literal["campaign"] = "campaign"


class PromotionTier(WireModel):
    """One tier that is valid for the given customer and cart."""

    __omit_if_none__ = frozenset({"banner", "discount_amount", "applied_discount_amount"})

    valid: StrictBool
    applicable_to: ApplicableToList = Field(default_factory=_empty_applicable_to)
    inapplicable_to: ApplicableToList = Field(default_factory=_empty_applicable_to)
    tracking_id: str
    order: Order
    id: str = Field(min_length=1)
    name: str
    banner: str | None = None
    discount: Discount
    campaign: TierCampaign
    hierarchy: Int64
    discount_amount: Money | None = None
    applied_discount_amount: Money | None = None
    metadata: Metadata = Field(default_factory=dict)
    object: Literal["promotion_tier"] = "promotion_tier"


class ValidationCustomer(CustomerInput):
    """The customer context; every field optional (the interface marks the body optional)."""


class ValidationOptions(RequestModel):
    __omit_if_none__ = frozenset({"expand"})

    expand: list[str] | None = None


class ValidationRequest(RequestModel):
    __omit_if_none__ = frozenset({"customer", "order", "metadata", "options"})

    customer: ValidationCustomer | None = None
    order: OrderInput | None = None
    metadata: Metadata | None = None
    options: ValidationOptions | None = None


class ValidationResponse(WireModel):
    """``valid`` is true when at least one tier applies; ``promotions`` may be empty."""

    valid: StrictBool
    tracking_id: str
    promotions: list[PromotionTier] = Field(default_factory=list)
