"""Reading the catalogue: products, their SKUs, product collections.

Each list declares its `Listing` (sim/listing.py: which field each `order`
value sorts by, which field each filter reads); paging, ordering and the
envelope are the listing's. A product or SKU is found by its id or its
source id, as the service finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...models import read_endpoints
from ..fast_validate import validated
from ..listing import Listing, at_or_after, at_or_before, later_than
from ..operation import bind
from ..records import Collection, Product, Sku
from ..refusals import NotFound
from ..render.catalogue import bare_product_body, collection_body, product_body, sku_body

if TYPE_CHECKING:
    from ..simulator import Simulator


def _created(record: Product | Sku | Collection) -> datetime | None:
    return record.created_at


#: Products, SKUs and collections sort by their creation time; nothing
#: changes them after the scenario made them, so `updated_at` sorts them as
#: `created_at` does (docs/decisions.md, "Lists").
_BY_TIME: Mapping[str, Callable[[Product | Sku | Collection], Any]] = {"created_at": _created, "updated_at": _created}
_CREATED_BETWEEN = {"start_date": at_or_after(_created), "end_date": at_or_before(_created)}

PRODUCTS: Listing[Product] = Listing(
    read_endpoints.LIST_PRODUCTS, "products",
    sort=_BY_TIME, filters=_CREATED_BETWEEN,
)
SKUS: Listing[Sku] = Listing(
    read_endpoints.LIST_SKUS, "skus",
    sort=_BY_TIME, filters=_CREATED_BETWEEN,
)
COLLECTIONS: Listing[Collection] = Listing(
    read_endpoints.LIST_PRODUCT_COLLECTIONS, "data",
    sort=_BY_TIME,
)
COLLECTION_MEMBERS: Listing[Product | Sku] = Listing(
    read_endpoints.LIST_COLLECTION_PRODUCTS, "data",
    sort=_BY_TIME,
    filters={"starting_after": later_than(_created)},
)


def _skus_by_product(skus: Iterable[Sku]) -> dict[str, list[Sku]]:
    grouped: dict[str, list[Sku]] = {}
    for sku in skus:
        grouped.setdefault(sku.product_id, []).append(sku)
    return grouped


def _product(sim: Simulator, product_id: str) -> Product:
    products = sim.state.products
    found = products.get(product_id) or next((p for p in products.values() if p.source_id == product_id), None)
    if found is None:
        raise NotFound("product", product_id)
    return found


def list_products(sim: Simulator, /, **query: object) -> models.ProductList:
    grouped = _skus_by_product(sim.state.skus.values())
    body = PRODUCTS.answer(sim.state.products.values(), query, lambda p: product_body(p, grouped.get(p.id, [])))
    return validated(models.ProductList, body)


def get_product(sim: Simulator, *, product_id: str) -> models.Product:
    record = _product(sim, product_id)
    skus = [s for s in sim.state.skus.values() if s.product_id == record.id]
    return validated(models.Product, product_body(record, skus))


def list_skus(sim: Simulator, /, *, product_id: str, **query: object) -> models.SkuList:
    record = _product(sim, product_id)
    skus = [s for s in sim.state.skus.values() if s.product_id == record.id]
    return validated(models.SkuList, SKUS.answer(skus, query, sku_body))


def get_sku(sim: Simulator, *, sku_id: str) -> models.Sku:
    skus = sim.state.skus
    found = skus.get(sku_id) or next((s for s in skus.values() if s.source_id == sku_id), None)
    if found is None:
        raise NotFound("sku", sku_id)
    return validated(models.Sku, sku_body(found))


def list_product_collections(sim: Simulator, /, **query: object) -> models.ProductCollectionList:
    skus = sim.state.skus
    body = COLLECTIONS.answer(sim.state.collections.values(), query, lambda c: collection_body(c, skus))
    return validated(models.ProductCollectionList, body)


def list_collection_products(sim: Simulator, /, *, collection_id: str, **query: object) -> models.CollectionProductList:
    """A static collection's products, then its SKUs (each with its product), as the list pages them."""
    state = sim.state
    record = state.collections.get(collection_id)
    if record is None:
        raise NotFound("products_collection", collection_id)
    members: list[Product | Sku] = [state.products[p] for p in record.products if p in state.products]
    members += [state.skus[s] for s in record.skus if s in state.skus]

    def render(member: Product | Sku) -> dict[str, object]:
        if isinstance(member, Product):
            return bare_product_body(member)
        body = sku_body(member)
        body["product"] = bare_product_body(state.products[member.product_id])
        return body

    return validated(models.CollectionProductList, COLLECTION_MEMBERS.answer(members, query, render))


LIST_PRODUCTS = bind(read_endpoints.LIST_PRODUCTS, list_products, write=False)
GET_PRODUCT = bind(read_endpoints.GET_PRODUCT, get_product, write=False)
LIST_SKUS = bind(read_endpoints.LIST_SKUS, list_skus, write=False)
GET_SKU = bind(read_endpoints.GET_SKU, get_sku, write=False)
LIST_PRODUCT_COLLECTIONS = bind(read_endpoints.LIST_PRODUCT_COLLECTIONS, list_product_collections, write=False)
LIST_COLLECTION_PRODUCTS = bind(read_endpoints.LIST_COLLECTION_PRODUCTS, list_collection_products, write=False)

#: This family's operations, in the order of `read_endpoints.READS`.
READS = (LIST_PRODUCTS, GET_PRODUCT, LIST_SKUS, GET_SKU, LIST_PRODUCT_COLLECTIONS, LIST_COLLECTION_PRODUCTS)
