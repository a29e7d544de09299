"""The catalogue of a pulled project: products with their SKUs, static collections.

A product's SKUs come with the product (the service answers them all in
`skus`), so the products list is the only walk. An `AUTO_UPDATE` collection's
rule (`filter`) is not a scenario's: its members cannot be listed here from
the collection object, so it is reported and left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import models
from .unexpressed import Unexpressed, leftovers, spec

__all__ = ["Catalogue", "catalogue_part"]

_PRODUCT_KEPT = ("id", "source_id", "name", "price", "metadata", "skus")
_SKU_KEPT = ("id", "source_id", "sku", "price", "metadata")
#: What the service sets itself: times, and the SKU's product (the scenario nests SKUs under it).
_DERIVED = ("created_at", "updated_at", "product_id")


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The scenario's `catalogue` section, and what it could not hold."""

    section: dict[str, Any]
    unexpressed: list[Unexpressed]


def _named(kind: str, oid: str, field: str, value: str | None, out: list[Unexpressed]) -> str:
    """A name the scenario requires; where the target has none, the id stands in (and says so)."""
    if value is not None:
        return value
    out.append(Unexpressed(kind, oid, field, f"a scenario's {kind} needs a {field}; its id stands in"))
    return oid


def _sku(sku: models.Sku, out: list[Unexpressed]) -> dict[str, Any]:
    out += leftovers("sku", sku, _SKU_KEPT, (*_DERIVED, "currency"))
    return spec({"id": sku.id, "source_id": sku.source_id, "sku": _named("sku", sku.id, "sku", sku.sku, out),
                   "price": sku.price,
                   "metadata": sku.metadata})


def _product(product: models.Product, out: list[Unexpressed]) -> dict[str, Any]:
    out += leftovers("product", product, _PRODUCT_KEPT, _DERIVED)
    name = _named("product", product.id, "name", product.name, out)
    return spec({"id": product.id, "source_id": product.source_id, "name": name, "price": product.price,
                   "metadata": product.metadata, "skus": [_sku(s, out) for s in product.skus.data]})


def _collection(collection: models.ProductCollection, out: list[Unexpressed]) -> dict[str, Any] | None:
    if collection.type != "STATIC":
        out.append(Unexpressed("products_collection", collection.id, "filter",
                               "an AUTO_UPDATE collection's rule is not a scenario's; left out"))
        return None
    members = collection.products or []
    return spec({"id": collection.id, "name": collection.name,
                   "products": [m.id for m in members if m.object == "product"],
                   "skus": [m.id for m in members if m.object == "sku"]})


def catalogue_part(products: Sequence[models.Product], collections: Sequence[models.ProductCollection]) -> Catalogue:
    """The catalogue section of the products and collections the target listed."""
    out: list[Unexpressed] = []
    section = spec({
        "products": [_product(p, out) for p in products],
        "collections": [c for c in (_collection(c, out) for c in collections) if c is not None],
    })
    return Catalogue(section, out)
