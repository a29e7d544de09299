"""Loyalty v2 incentives (endpoint ``GET_INCENTIVE``) and their detail objects.

An incentive carries one detail object chosen by its ``type``; the models refuse the
others so that the simulator can never render an incentive that says POINTS but carries a
``material`` block. ``Material`` and ``Digital`` are shared with rewards (interface:
"same shape as incentive material/digital").
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import Field, Strict, model_validator

from ._base import WireModel, fail, require_exactly_one_of
from .common import INT32_MAX, INT64_MAX, INTEGER_ONLY, IdRef, Money, NonNegativeInt64, Timestamp

#: A ratio's divisor (bounds checked natively: see `common.Int64`).
PositiveInt64 = Annotated[int, Strict(), Field(ge=1, le=INT64_MAX), INTEGER_ONLY]
#: An incentive's stock: the service stores it as a 32-bit integer.
Stock = Annotated[int, Strict(), Field(ge=0, le=INT32_MAX), INTEGER_ONLY]

__all__ = [
    "INCENTIVE_ID_PATTERN",
    "ApplicableToObjectType",
    "CalculationType",
    "Digital",
    "DigitalType",
    "DiscountCoupons",
    "GiftVouchers",
    "Incentive",
    "IncentivePoints",
    "IncentiveStatus",
    "IncentiveType",
    "Material",
    "MaterialProduct",
    "MaterialSku",
    "MaterialType",
    "PointsProportional",
    "ProportionalApplicableTo",
    "ProportionalCustomer",
    "ProportionalEvery",
    "ProportionalItems",
    "ProportionalMetadata",
    "ProportionalOrder",
    "ProportionalOrderItems",
]

INCENTIVE_ID_PATTERN = r"^linc_[a-f0-9]+$"


class IncentiveType(StrEnum):
    POINTS = "POINTS"
    POINTS_PROPORTIONAL = "POINTS_PROPORTIONAL"
    MATERIAL = "MATERIAL"
    DIGITAL = "DIGITAL"


class IncentiveStatus(StrEnum):
    DRAFT = "DRAFT"
    ACTIVE = "ACTIVE"
    DELETED = "DELETED"


class CalculationType(StrEnum):
    PRE_DISCOUNT_ORDER_AMOUNT = "PRE_DISCOUNT_ORDER_AMOUNT"
    POST_DISCOUNT_ORDER_AMOUNT = "POST_DISCOUNT_ORDER_AMOUNT"
    PRE_DISCOUNT_ORDER_ITEMS_AMOUNT = "PRE_DISCOUNT_ORDER_ITEMS_AMOUNT"
    POST_DISCOUNT_ORDER_ITEMS_AMOUNT = "POST_DISCOUNT_ORDER_ITEMS_AMOUNT"
    ORDER_ITEMS_QUANTITY = "ORDER_ITEMS_QUANTITY"
    ORDER_METADATA_VALUE = "ORDER_METADATA_VALUE"
    CUSTOMER_METADATA_VALUE = "CUSTOMER_METADATA_VALUE"


class MaterialType(StrEnum):
    PRODUCT = "PRODUCT"
    SKU = "SKU"


class DigitalType(StrEnum):
    DISCOUNT_COUPONS = "DISCOUNT_COUPONS"
    GIFT_VOUCHERS = "GIFT_VOUCHERS"


class ApplicableToObjectType(StrEnum):
    PRODUCT = "product"
    SKU = "sku"
    PRODUCTS_COLLECTION = "products_collection"


class IncentivePoints(WireModel):
    """A fixed number of points credited to one card definition."""

    value: NonNegativeInt64
    card_definition_id: str = Field(min_length=1)


class ProportionalEvery(WireModel):
    """``value`` points for every ``every`` units; ``every`` >= 1 so the ratio is defined."""

    every: PositiveInt64
    value: NonNegativeInt64


class ProportionalMetadata(ProportionalEvery):
    """Proportional points read from a numeric metadata ``property``."""

    property: str = Field(min_length=1)


class ProportionalApplicableTo(WireModel):
    """One product, SKU or collection whose order lines count for the calculation.

    The OpenAPI also carries a ``type`` naming which reference is set; it is optional
    here (the interface does not list it) but must agree when present.
    """

    __omit_if_none__ = frozenset({"type", "product", "sku", "products_collection"})

    type: ApplicableToObjectType | None = None
    product: IdRef | None = None
    sku: IdRef | None = None
    products_collection: IdRef | None = None

    @model_validator(mode="after")
    def _one_reference(self) -> Self:
        require_exactly_one_of(self, "product", "sku", "products_collection")
        if self.type is not None and getattr(self, self.type.value) is None:
            fail("type", f"type {self.type.value} needs the {self.type.value} reference", self.type)
        return self


class ProportionalItems(ProportionalEvery):
    """Proportional points over the order lines matching ``applicable_to``."""

    applicable_to: list[ProportionalApplicableTo] = Field(min_length=1)


class ProportionalOrder(WireModel):
    __omit_if_none__ = frozenset({"amount", "total_amount", "metadata"})

    amount: ProportionalEvery | None = None
    total_amount: ProportionalEvery | None = None
    metadata: ProportionalMetadata | None = None


class ProportionalCustomer(WireModel):
    metadata: ProportionalMetadata


class ProportionalOrderItems(WireModel):
    __omit_if_none__ = frozenset({"amount", "subtotal_amount", "quantity"})

    amount: ProportionalItems | None = None
    subtotal_amount: ProportionalItems | None = None
    quantity: ProportionalItems | None = None


#: calculation_type -> (sub-object, field inside it) that the calculation reads.
REQUIRED_SUBOBJECT: dict[CalculationType, tuple[str, str]] = {
    CalculationType.PRE_DISCOUNT_ORDER_AMOUNT: ("order", "amount"),
    CalculationType.POST_DISCOUNT_ORDER_AMOUNT: ("order", "total_amount"),
    CalculationType.ORDER_METADATA_VALUE: ("order", "metadata"),
    CalculationType.CUSTOMER_METADATA_VALUE: ("customer", "metadata"),
    CalculationType.PRE_DISCOUNT_ORDER_ITEMS_AMOUNT: ("order_items", "amount"),
    CalculationType.POST_DISCOUNT_ORDER_ITEMS_AMOUNT: ("order_items", "subtotal_amount"),
    CalculationType.ORDER_ITEMS_QUANTITY: ("order_items", "quantity"),
}


class PointsProportional(WireModel):
    """Points proportional to an order/customer measure chosen by ``calculation_type``.

    Only the sub-object the calculation reads is required; others are tolerated (the
    interface does not forbid them) but ignored by the simulator.
    """

    __omit_if_none__ = frozenset({"order", "customer", "order_items"})

    calculation_type: CalculationType
    card_definition_id: str = Field(min_length=1)
    order: ProportionalOrder | None = None
    customer: ProportionalCustomer | None = None
    order_items: ProportionalOrderItems | None = None

    @model_validator(mode="after")
    def _calculation_has_its_input(self) -> Self:
        container, field = REQUIRED_SUBOBJECT[self.calculation_type]
        holder = getattr(self, container)
        if holder is None or getattr(holder, field) is None:
            fail(
                (container, field),
                f"{container}.{field} is required when calculation_type is "
                f"{self.calculation_type.value}",
                kind="missing_for_calculation_type",
            )
        return self


class MaterialProduct(WireModel):
    id: str = Field(min_length=1)


class MaterialSku(WireModel):
    product_id: str = Field(min_length=1)
    id: str = Field(min_length=1)


class Material(WireModel):
    """A physical item: exactly one of ``product`` or ``sku``."""

    __omit_if_none__ = frozenset({"type", "product", "sku"})

    type: MaterialType | None = None
    product: MaterialProduct | None = None
    sku: MaterialSku | None = None

    @model_validator(mode="after")
    def _one_item(self) -> Self:
        require_exactly_one_of(self, "product", "sku")
        if self.type is not None and getattr(self, self.type.value.lower()) is None:
            fail("type", f"type {self.type.value} needs {self.type.value.lower()}", self.type)
        return self


class DiscountCoupons(WireModel):
    campaign_id: str = Field(min_length=1)


class GiftVouchers(WireModel):
    campaign_id: str = Field(min_length=1)
    balance: Money


class Digital(WireModel):
    """A code issued from a campaign: exactly one of ``discount_coupons`` or ``gift_vouchers``."""

    __omit_if_none__ = frozenset({"type", "discount_coupons", "gift_vouchers"})

    type: DigitalType | None = None
    discount_coupons: DiscountCoupons | None = None
    gift_vouchers: GiftVouchers | None = None

    @model_validator(mode="after")
    def _one_campaign(self) -> Self:
        require_exactly_one_of(self, "discount_coupons", "gift_vouchers")
        if self.type is not None and getattr(self, self.type.value.lower()) is None:
            fail("type", f"type {self.type.value} needs {self.type.value.lower()}", self.type)
        return self


#: Incentive/reward type -> the one detail field it carries.
DETAIL_FIELD: dict[str, str] = {
    "POINTS": "points",
    "POINTS_PROPORTIONAL": "points_proportional",
    "MATERIAL": "material",
    "DIGITAL": "digital",
}


def check_detail_object(model: WireModel, type_value: str, candidates: tuple[str, ...]) -> None:
    """The ``type`` picks exactly one detail field; the others must be absent."""
    wanted = DETAIL_FIELD[type_value]
    if getattr(model, wanted) is None:
        fail(wanted, f"{wanted} is required when type is {type_value}", kind="missing_for_type")
    for name in candidates:
        if name != wanted and getattr(model, name) is not None:
            fail(
                name,
                f"{name} must be absent when type is {type_value}",
                getattr(model, name),
                kind="forbidden_for_type",
            )


class Incentive(WireModel):
    """What a member gets from an earning rule or a reward (loyalty v2)."""

    __omit_if_none__ = frozenset({"points", "points_proportional", "material", "digital"})

    id: str = Field(pattern=INCENTIVE_ID_PATTERN)
    name: str = Field(max_length=200)
    type: IncentiveType
    status: IncentiveStatus
    stock: Stock
    points: IncentivePoints | None = None
    points_proportional: PointsProportional | None = None
    material: Material | None = None
    digital: Digital | None = None
    created_at: Timestamp
    #: null (not absent) until the first update, as the interface states.
    updated_at: Timestamp | None = None
    object: Literal["incentive"] = "incentive"

    @model_validator(mode="after")
    def _type_decides_detail(self) -> Self:
        check_detail_object(
            self, self.type.value, ("points", "points_proportional", "material", "digital")
        )
        return self
