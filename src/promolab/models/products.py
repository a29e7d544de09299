"""Products, SKUs and product collections as the service's read endpoints show them.

The fields and their order are the service's (list and get products, SKUs,
collections): a product carries its SKUs
as a small list of its own, a SKU names its product, a collection lists the
products and SKUs it holds. Fields the simulator has no value for
(`image_url`, `updated_at`, a SKU's `currency`) are sent as `null`, as the
service sends them for an object that never had one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ._base import WireModel
from .common import Metadata, Money, NonNegativeInt64, Timestamp

__all__ = [
    "BareProduct",
    "CollectionItem",
    "CollectionProductList",
    "CollectionSku",
    "Product",
    "ProductCollection",
    "ProductCollectionList",
    "ProductList",
    "ProductSkus",
    "Sku",
    "SkuList",
]


class Sku(WireModel):
    id: str
    source_id: str | None
    product_id: str
    sku: str | None
    price: Money | None
    currency: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    image_url: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["sku"] = "sku"


class ProductSkus(WireModel):
    """A product's own SKUs, inside the product (`skus: {data, total}`)."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[Sku]
    total: NonNegativeInt64


class BareProduct(WireModel):
    """A product without its SKUs: how a collection's list shows one."""

    id: str
    source_id: str | None
    name: str | None
    price: Money | None
    attributes: list[str] = Field(default_factory=list)
    metadata: Metadata = Field(default_factory=dict)
    image_url: str | None = None
    #: Always sent by promolab; the service leaves it out of the product a
    #: collection's SKU carries.
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    object: Literal["product"] = "product"

    __omit_if_none__ = frozenset({"created_at"})


class Product(BareProduct):
    skus: ProductSkus


class CollectionSku(Sku):
    """A SKU in a collection's list, with the product it belongs to."""

    product: BareProduct


class ProductList(WireModel):
    """A page of products; `total` counts every match."""

    object: Literal["list"] = "list"
    data_ref: Literal["products"] = "products"
    products: list[Product]
    total: NonNegativeInt64


class SkuList(WireModel):
    """A page of one product's SKUs."""

    object: Literal["list"] = "list"
    data_ref: Literal["skus"] = "skus"
    skus: list[Sku]
    total: NonNegativeInt64


class CollectionItem(WireModel):
    """One member of a static collection: a product, or a SKU with its product."""

    id: str
    product_id: str | None = None
    object: Literal["product", "sku"]

    __omit_if_none__ = frozenset({"product_id"})


class ProductCollection(WireModel):
    id: str
    name: str
    type: Literal["STATIC", "AUTO_UPDATE"] = "STATIC"
    #: The rule of an AUTO_UPDATE collection (the simulator's are all STATIC).
    filter: dict[str, Any] | None = None
    #: The members of a STATIC collection (the service leaves them out of an AUTO_UPDATE one).
    products: list[CollectionItem] | None = None
    created_at: Timestamp
    object: Literal["products_collection"] = "products_collection"

    __omit_if_none__ = frozenset({"filter", "products"})


class ProductCollectionList(WireModel):
    """A page of product collections."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[ProductCollection]
    total: NonNegativeInt64


class CollectionProductList(WireModel):
    """A page of a collection's members: its products and SKUs, mixed."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[Annotated[BareProduct | CollectionSku, Field(discriminator="object")]]
    total: NonNegativeInt64
