"""The shop the engine prices against: products, SKUs and collections.

Entries are frozen; amounts are integer cents. The `Catalogue` indexes them by
id and by source_id, and also holds the engine's per-catalogue caches (item
resolution, normalized lines and orders: `item_resolution`, `normalize`),
which live and die with the catalogue they are about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .item_resolution import ResolvedItem
    from .lines import Line
    from .normalize import OrderCore

__all__ = ["SHIPPING_PRODUCT", "Catalogue", "CatalogueCollection", "CatalogueProduct", "CatalogueSku"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class CatalogueProduct:
    id: str
    source_id: str | None = None
    name: str | None = None
    price: int | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class CatalogueSku:
    id: str
    source_id: str | None = None
    sku: str | None = None
    product_id: str | None = None
    price: int | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class CatalogueCollection:
    """A static products collection. `all_products=True` holds every product and SKU."""

    id: str
    name: str | None = None
    product_ids: frozenset[str] = frozenset()
    sku_ids: frozenset[str] = frozenset()
    all_products: bool = False


#: The service's built-in free-shipping "product" (docs/pricing.md): UNIT discounts
#: with unit_type `prod_5h1pp1ng` add it. It has no price unless the catalogue
#: defines one under the same id.
SHIPPING_PRODUCT = CatalogueProduct(id="prod_5h1pp1ng", source_id="5h1pp1ng", name="Shipping")


class Catalogue:
    """Products, SKUs and collections indexed by id and by source_id. Read-only."""

    __slots__ = (
        "_collections",
        "_lines",
        "_membership_cache",
        "_orders",
        "_products",
        "_products_by_source",
        "_resolved_items",
        "_skus",
        "_skus_by_source",
        "_unit_targets",
    )

    def __init__(
        self,
        products: Iterable[CatalogueProduct] = (),
        skus: Iterable[CatalogueSku] = (),
        collections: Iterable[CatalogueCollection] = (),
    ) -> None:
        self._products: dict[str, CatalogueProduct] = {p.id: p for p in products}
        self._skus: dict[str, CatalogueSku] = {s.id: s for s in skus}
        self._collections: dict[str, CatalogueCollection] = {c.id: c for c in collections}
        self._products_by_source = {
            p.source_id: p for p in self._products.values() if p.source_id is not None
        }
        self._skus_by_source = {
            s.source_id: s for s in self._skus.values() if s.source_id is not None
        }
        self._membership_cache: dict[tuple[str | None, str | None], frozenset[str]] = {}
        #: item_resolution's resolution of an item's ids against this catalogue, by ids
        self._resolved_items: dict[tuple[Any, ...], ResolvedItem] = {}
        #: normalize's lines of plain items, by position and content
        self._lines: dict[tuple[Any, ...], Line] = {}
        #: normalize's order lines, amounts and shared results of plain orders
        self._orders: dict[tuple[Any, ...], OrderCore] = {}
        self._unit_targets: dict[str, tuple[CatalogueProduct, CatalogueSku | None]] = {}

    # -- lookups ---------------------------------------------------------------
    def product(self, product_id: str) -> CatalogueProduct | None:
        return self._products.get(product_id)

    def sku(self, sku_id: str) -> CatalogueSku | None:
        return self._skus.get(sku_id)

    def collection(self, collection_id: str) -> CatalogueCollection | None:
        return self._collections.get(collection_id)

    def product_by_source_id(self, source_id: str) -> CatalogueProduct | None:
        return self._products_by_source.get(source_id)

    def sku_by_source_id(self, source_id: str) -> CatalogueSku | None:
        return self._skus_by_source.get(source_id)

    @property
    def products(self) -> Mapping[str, CatalogueProduct]:
        return MappingProxyType(self._products)

    @property
    def skus(self) -> Mapping[str, CatalogueSku]:
        return MappingProxyType(self._skus)

    @property
    def collections(self) -> Mapping[str, CatalogueCollection]:
        return MappingProxyType(self._collections)

    # -- derived -----------------------------------------------------------------
    def resolve_item(
        self,
        *,
        product_id: str | None = None,
        sku_id: str | None = None,
        source_id: str | None = None,
        related_object: str | None = None,
    ) -> tuple[CatalogueProduct | None, CatalogueSku | None]:
        """The catalogue entries an order item refers to (either may be None).

        `sku_id` wins over `product_id`; a SKU brings its parent product. A
        `source_id` is looked up among SKUs when `related_object == "sku"`, else
        among products.
        """
        sku: CatalogueSku | None = None
        product: CatalogueProduct | None = None
        if sku_id is not None:
            sku = self._skus.get(sku_id)
        elif source_id is not None and related_object == "sku":
            sku = self._skus_by_source.get(source_id)
        if sku is not None and sku.product_id is not None:
            product = self._products.get(sku.product_id)
        if product is None:
            if product_id is not None:
                product = self._products.get(product_id)
            elif source_id is not None and related_object != "sku":
                product = self._products_by_source.get(source_id)
        return product, sku

    def unit_target(self, unit_type: str) -> tuple[CatalogueProduct, CatalogueSku | None]:
        """The product (and SKU) a UNIT discount adds; unknown ids become bare products.

        Memoised: unit types come from tiers (a bounded set), and this runs for
        every UNIT tier of every request.
        """
        found = self._unit_targets.get(unit_type)
        if found is None:
            found = self._unit_targets[unit_type] = self._find_unit_target(unit_type)
        return found

    def _find_unit_target(self, unit_type: str) -> tuple[CatalogueProduct, CatalogueSku | None]:
        sku = self._skus.get(unit_type)
        if sku is not None:
            parent = self._products.get(sku.product_id) if sku.product_id else None
            return (parent or CatalogueProduct(id=sku.product_id or "")), sku
        product = self._products.get(unit_type)
        if product is not None:
            return product, None
        if unit_type == SHIPPING_PRODUCT.id:
            return SHIPPING_PRODUCT, None
        return CatalogueProduct(id=unit_type), None

    def collections_of(self, product_id: str | None, sku_id: str | None) -> frozenset[str]:
        """Ids of the collections holding this product/SKU (a SKU is in its product's)."""
        key = (product_id, sku_id)
        found = self._membership_cache.get(key)
        if found is None:
            if len(self._membership_cache) >= 4096:  # requests may name any unknown id
                self._membership_cache.clear()
            found = frozenset(
                c.id
                for c in self._collections.values()
                if c.all_products
                or (product_id is not None and product_id in c.product_ids)
                or (sku_id is not None and sku_id in c.sku_ids)
            )
            self._membership_cache[key] = found
        return found
