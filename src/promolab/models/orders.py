"""Orders: the computed order of a validation response, and the order a client sends.

Response side: every amount is "present only when applicable" (docs/interface.md), so each
is omitted when None; the simulator's pricing engine decides which apply. Only
``customer_id`` and ``referrer_id`` are sent as null. Field order follows the service's
examples so that dumps read like the real thing.

Request side: money is integer cents, and a float is rejected ("non-integer amount")
rather than rounded; ``quantity`` accepts the digit string ``"1"`` because the real
service does (its own request examples send it).
"""

from __future__ import annotations

import re
from numbers import Integral
from typing import Annotated, Any, Literal, Self

from pydantic import BeforeValidator, Field, StrictBool, model_validator
from pydantic_core import PydanticCustomError

from ._base import RequestModel, WireModel, checked_after, fail, require_one_of
from .common import INT64_MAX, Metadata, Money, NonNegativeInt64

__all__ = [
    "Order",
    "OrderInput",
    "OrderItem",
    "OrderItemInput",
    "OrderItemProduct",
    "OrderItemProductInput",
    "OrderItemSku",
    "OrderItemSkuInput",
    "Quantity",
]

_DIGITS = re.compile(r"[0-9]+")


def _quantity(value: Any) -> Any:
    if type(value) is int:  # the usual quantity, asked first: this runs for every line of every request
        return value
    if isinstance(value, bool | float):
        raise PydanticCustomError("int_type", "quantity should be a whole number")
    if isinstance(value, str):
        if not _DIGITS.fullmatch(value):
            raise PydanticCustomError("int_parsing", "quantity should be a whole number")
        return int(value)
    if not isinstance(value, int) and isinstance(value, Integral):
        return int(value)
    return value


#: Units of an order line on input: int >= 1, or its decimal string ("1").
Quantity = Annotated[int, BeforeValidator(_quantity), Field(strict=True, ge=1, le=INT64_MAX)]


def _identified(reference: OrderItemProduct | OrderItemSku) -> None:
    require_one_of(reference, "id", "source_id")


class OrderItemProduct(WireModel):
    """The product of a computed line. `id` is absent when the line named a
    product by `source_id` only and the catalogue does not know it: the
    answer then echoes `{"source_id": ...}` (the service's own schema
    requires neither; one of the two always names it)."""

    __omit_if_none__ = frozenset({"id", "source_id", "name", "price"})

    id: str | None = None
    source_id: str | None = None
    name: str | None = None
    price: Money | None = None

    _identified = checked_after(_identified)


class OrderItemSku(WireModel):
    """The SKU of a computed line; like `OrderItemProduct`, without `id` for
    a SKU named by an unknown `source_id` (`related_object: "sku"`)."""

    __omit_if_none__ = frozenset({"id", "source_id", "sku", "price"})

    id: str | None = None
    source_id: str | None = None
    sku: str | None = None
    price: Money | None = None

    _identified = checked_after(_identified)


_ITEM_OPTIONAL = frozenset(
    {
        "product_id",
        "sku_id",
        "discount_quantity",
        "initial_quantity",
        "amount",
        "discount_amount",
        "initial_amount",
        "applied_discount_amount",
        "price",
        "subtotal_amount",
        "product",
        "sku",
    }
)


class OrderItem(WireModel):
    """A computed order line; discount fields appear only on discounted lines."""

    __omit_if_none__ = _ITEM_OPTIONAL

    object: Literal["order_item"] = "order_item"
    product_id: str | None = None
    sku_id: str | None = None
    quantity: NonNegativeInt64
    discount_quantity: NonNegativeInt64 | None = None
    initial_quantity: NonNegativeInt64 | None = None
    amount: Money | None = None
    discount_amount: Money | None = None
    initial_amount: Money | None = None
    applied_discount_amount: Money | None = None
    price: Money | None = None
    subtotal_amount: Money | None = None
    product: OrderItemProduct | None = None
    sku: OrderItemSku | None = None


class Order(WireModel):
    """The order as it would look with one tier applied (amounts in cents)."""

    __omit_if_none__ = frozenset(
        {
            "amount",
            "initial_amount",
            "discount_amount",
            "items_discount_amount",
            "total_discount_amount",
            "total_amount",
            "applied_discount_amount",
            "items_applied_discount_amount",
            "total_applied_discount_amount",
        }
    )

    amount: Money | None = None
    initial_amount: Money | None = None
    discount_amount: Money | None = None
    items_discount_amount: Money | None = None
    total_discount_amount: Money | None = None
    total_amount: Money | None = None
    applied_discount_amount: Money | None = None
    items_applied_discount_amount: Money | None = None
    total_applied_discount_amount: Money | None = None
    items: list[OrderItem] = Field(default_factory=list)
    metadata: Metadata = Field(default_factory=dict)
    customer_id: str | None = None
    referrer_id: str | None = None
    object: Literal["order"] = "order"


class OrderItemProductInput(RequestModel):
    """Product data sent with a line (its metadata feeds product validation rules)."""

    __omit_if_none__ = frozenset({"id", "source_id", "name", "price", "override", "metadata"})

    id: str | None = None
    source_id: str | None = None
    name: str | None = None
    price: Money | None = None
    override: StrictBool | None = None
    metadata: Metadata | None = None


class OrderItemSkuInput(RequestModel):
    __omit_if_none__ = frozenset({"id", "source_id", "sku", "price", "override", "metadata"})

    id: str | None = None
    source_id: str | None = None
    sku: str | None = None
    price: Money | None = None
    override: StrictBool | None = None
    metadata: Metadata | None = None


class OrderItemInput(RequestModel):
    """One cart line: identified by ``product_id``, ``sku_id`` or ``source_id`` +
    ``related_object``; price and amount are optional (taken from the catalogue)."""

    __omit_if_none__ = frozenset(
        {
            "product_id",
            "sku_id",
            "source_id",
            "related_object",
            "price",
            "amount",
            "product",
            "sku",
            "metadata",
            "discount_quantity",
            "initial_quantity",
            "discount_amount",
            "initial_amount",
        }
    )

    product_id: str | None = Field(default=None, min_length=1)
    sku_id: str | None = Field(default=None, min_length=1)
    source_id: str | None = Field(default=None, min_length=1)
    related_object: Literal["product", "sku"] | None = None
    quantity: Quantity
    price: Money | None = None
    amount: Money | None = None
    product: OrderItemProductInput | None = None
    sku: OrderItemSkuInput | None = None
    metadata: Metadata | None = None
    #: Fields of a computed line that the service's request schema also
    #: allows (its SDKs send them, as null when unset): accepted, not read.
    discount_quantity: NonNegativeInt64 | None = None
    initial_quantity: NonNegativeInt64 | None = None
    discount_amount: Money | None = None
    initial_amount: Money | None = None

    @model_validator(mode="after")
    def _identifies_itself(self) -> Self:
        if self.product_id is not None or self.sku_id is not None:
            return self
        if self.source_id is None:
            fail(
                "product_id",
                "an order item needs product_id, sku_id, or source_id with related_object",
                kind="missing_item_identifier",
            )
        if self.related_object is None:
            fail(
                "related_object",
                "related_object (product or sku) is required with source_id",
                kind="missing_item_identifier",
            )
        return self


class OrderInput(RequestModel):
    """The cart sent for validation; ``amount``, when given, is used as-is (§1.3)."""

    __omit_if_none__ = frozenset(
        {"id", "source_id", "status", "amount", "initial_amount", "discount_amount", "items", "metadata"}
    )

    id: str | None = None
    source_id: str | None = None
    #: Accepted as the service's schema allows it; a redemption's order is PAID.
    status: Literal["CREATED", "PAID", "CANCELED", "FULFILLED"] | None = None
    amount: Money | None = None
    #: The amount before any discount, when it differs from `amount`
    #: (`order.initial_amount` rules read it; default: `amount`).
    initial_amount: Money | None = None
    #: Accepted (the service's schema has it), not read: discounts are computed.
    discount_amount: Money | None = None
    items: list[OrderItemInput] | None = None
    metadata: Metadata | None = None
