"""What the catalogue says about an order item's ids, resolved once per catalogue.

An item names its product or SKU by `sku_id`, `product_id` or `source_id`
(with `related_object`); everything those ids determine (the product and SKU,
their wire shapes, collections, merged catalogue metadata, the catalogue
price, the identity scopes and rule targets match on) is the same in every
request, so it is computed once per catalogue and id combination and cached
on the catalogue (`resolve_item`). Per item, `normalize` only checks the
request's own values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .catalogue import Catalogue, CatalogueProduct, CatalogueSku

__all__ = ["ResolvedItem", "entry_wire", "product_wire", "resolve_item", "sku_wire"]

#: Resolution cache entries per catalogue before it is emptied: requests may
#: name any number of unknown (priced) products, the cache must not grow forever.
_CACHE_LIMIT = 4096


def product_wire(product: CatalogueProduct | None, product_id: str | None) -> dict[str, Any] | None:
    """`{id, source_id, name, price}` with absent values omitted (as the service does)."""
    return _wire(product, product_id, ("source_id", "name", "price"))


def sku_wire(sku: CatalogueSku | None, sku_id: str | None) -> dict[str, Any] | None:
    """`{id, source_id, sku, price}` with absent values omitted."""
    return _wire(sku, sku_id, ("source_id", "sku", "price"))


def _wire(
    entry: CatalogueProduct | CatalogueSku | None, given_id: str | None, fields: tuple[str, ...]
) -> dict[str, Any] | None:
    """A catalogue entry's wire shape; an id the catalogue lacks stands alone."""
    if entry is None:
        return {"id": given_id} if given_id is not None else None
    return entry_wire(entry, fields)


def entry_wire(entry: CatalogueProduct | CatalogueSku, fields: tuple[str, ...]) -> dict[str, Any]:
    """`{id, *fields}` of a catalogue entry, the fields that are None omitted
    (the service's way with a product or SKU reference)."""
    out: dict[str, Any] = {"id": entry.id}
    for name in fields:
        value = getattr(entry, name)
        if value is not None:
            out[name] = value
    return out


@dataclass(frozen=True, slots=True)
class ResolvedItem:
    """What the catalogue says about one (product_id, sku_id, source_id,
    related_object) combination; shared by every line naming it."""

    product: CatalogueProduct | None
    sku: CatalogueSku | None
    product_id: str | None
    sku_id: str | None
    #: the request's product_id is not the SKU's product (an error, raised per line)
    mismatch: bool
    #: the catalogue knows the item (an unknown one needs a price or amount)
    known: bool
    catalogue_price: int | None
    #: catalogue product metadata overlaid by the SKU's (never mutated: copied per line)
    metadata: Mapping[str, Any]
    wire_product: dict[str, Any] | None
    wire_sku: dict[str, Any] | None
    collection_ids: frozenset[str]
    match_key: tuple[Any, ...]


def resolve_item(
    catalogue: Catalogue,
    product_id: str | None,
    sku_id: str | None,
    source_id: str | None,
    related_object: Any,
) -> ResolvedItem:
    key = (product_id, sku_id, source_id, related_object)
    cache = catalogue._resolved_items
    found = cache.get(key)
    if found is not None:
        return found
    product, sku = catalogue.resolve_item(
        product_id=product_id, sku_id=sku_id, source_id=source_id, related_object=related_object
    )
    mismatch = False
    if sku is not None:
        mismatch = (
            product_id is not None and sku.product_id is not None and product_id != sku.product_id
        )
        sku_id = sku.id
        product_id = sku.product_id or product_id
    elif product is not None:
        product_id = product.id
    known = (
        sku is not None if (sku_id is not None or related_object == "sku") else product is not None
    )
    if sku is not None and sku.price is not None:
        price = sku.price
    elif product is not None and product.price is not None:
        price = product.price
    else:
        price = None
    metadata: dict[str, Any] = {}
    if product is not None:
        metadata.update(product.metadata)
    if sku is not None:
        metadata.update(sku.metadata)
    wire_product = product_wire(product, product_id)
    if wire_product is None and source_id is not None and related_object != "sku":
        wire_product = {"source_id": source_id}
    wire_sku = sku_wire(sku, sku_id)
    if wire_sku is None and source_id is not None and related_object == "sku":
        wire_sku = {"source_id": source_id}
    collection_ids = catalogue.collections_of(product_id, sku_id)
    match_key = (
        product_id,
        sku_id,
        product.source_id if product is not None else None,
        sku.source_id if sku is not None else None,
        collection_ids,
    )
    resolved = ResolvedItem(
        product,
        sku,
        product_id,
        sku_id,
        mismatch,
        known,
        price,
        metadata,
        wire_product,
        wire_sku,
        collection_ids,
        match_key,
    )
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = resolved
    return resolved
