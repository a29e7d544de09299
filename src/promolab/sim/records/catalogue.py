"""Products, SKUs and collections: what the pricing engine prices."""

from __future__ import annotations

from pydantic import Field

from ._base import Instant, Metadata, Money, Record

__all__ = ["Collection", "Product", "Sku"]


class Product(Record):
    id: str
    source_id: str | None = None
    name: str
    price: Money | None = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Instant | None = None


class Sku(Record):
    id: str
    source_id: str | None = None
    product_id: str
    sku: str
    price: Money | None = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Instant | None = None


class Collection(Record):
    """A static products collection: explicit product and SKU ids."""

    id: str
    name: str
    products: list[str] = Field(default_factory=list)
    skus: list[str] = Field(default_factory=list)
    created_at: Instant | None = None
