"""Building a scenario's catalogue: products and their SKUs, collections.

Built first, in the order of the file: a collection names products (by id
or source_id) and SKUs, which must be built before it.
"""

from __future__ import annotations

from ..records import Collection, Product, Sku
from . import schema
from .builder import Builder

__all__ = ["CatalogueBuilder"]


class CatalogueBuilder(Builder):
    """The `catalogue:` section of a scenario."""

    def _catalogue(self, spec: schema.CatalogueSpec) -> None:
        st = self.state
        for i, p in enumerate(spec.products):
            with self.entity(f"catalogue.products[{i}]", "product", p.id, p.source_id):
                pid = self.new_id("product", p.id, st.products)
                st.products[pid] = Product(
                    id=pid, source_id=p.source_id, name=p.name, price=p.price,
                    metadata=p.metadata, created_at=self.now,
                )
                for j, s in enumerate(p.skus):
                    with self.entity(f"catalogue.products[{i}].skus[{j}]", "sku", s.id):
                        sid = self.new_id("sku", s.id, st.skus)
                        st.skus[sid] = Sku(
                            id=sid, source_id=s.source_id, product_id=pid, sku=s.sku,
                            price=s.price, metadata=s.metadata, created_at=self.now,
                        )
        for i, c in enumerate(spec.collections):
            with self.entity(f"catalogue.collections[{i}]"):
                cid = self.new_id("collection", c.id, st.collections)
                products = [self._product_ref(ref, f"products[{k}]") for k, ref in enumerate(c.products)]
                skus = [self.resolve("sku", st.skus, ref, f"skus[{k}]") for k, ref in enumerate(c.skus)]
                st.collections[cid] = Collection(id=cid, name=c.name, products=products, skus=skus, created_at=self.now)

    def _product_ref(self, ref: str, field: str) -> str:
        if ref in self.state.products:
            return ref
        for product in self.state.products.values():
            if product.source_id == ref:
                return product.id
        raise self.missing("product", ref, field)
