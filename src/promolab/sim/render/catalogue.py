"""Catalogue records -> the product, SKU and collection objects of the read endpoints.

Bodies are plain data in the service's field order; a list validates them
once as part of its answer (`validated(models.ProductList, ...)`), which
gives the same models as validating each on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records import Collection, Product, Sku
from ._time import iso

__all__ = ["bare_product_body", "collection_body", "product_body", "sku_body"]


def sku_body(record: Sku) -> dict[str, Any]:
    return {
        "id": record.id,
        "source_id": record.source_id,
        "product_id": record.product_id,
        "sku": record.sku,
        "price": record.price,
        "currency": None,
        "attributes": {},
        "image_url": None,
        "metadata": record.metadata,
        "created_at": iso(record.created_at),
        "updated_at": None,
        "object": "sku",
    }


def bare_product_body(record: Product) -> dict[str, Any]:
    """A product without its SKUs (how a collection's list shows it)."""
    return {
        "id": record.id,
        "source_id": record.source_id,
        "name": record.name,
        "price": record.price,
        "attributes": [],
        "metadata": record.metadata,
        "image_url": None,
        "created_at": iso(record.created_at),
        "updated_at": None,
        "object": "product",
    }


def product_body(record: Product, skus: list[Sku]) -> dict[str, Any]:
    """A product with its SKUs, all of them (the service does not page them)."""
    body = bare_product_body(record)
    body["skus"] = {"object": "list", "data_ref": "data", "data": [sku_body(s) for s in skus], "total": len(skus)}
    return body


def collection_body(record: Collection, skus: Mapping[str, Sku]) -> dict[str, Any]:
    """A static collection: its products, then its SKUs, each SKU with its product."""
    return {
        "id": record.id,
        "name": record.name,
        "type": "STATIC",
        "products": [{"id": pid, "object": "product"} for pid in record.products]
        + [{"id": sid, "product_id": skus[sid].product_id, "object": "sku"} for sid in record.skus if sid in skus],
        "created_at": iso(record.created_at),
        "object": "products_collection",
    }
