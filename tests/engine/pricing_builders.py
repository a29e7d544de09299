"""Shared builders for the pricing tests (plain functions, no fixtures)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from promolab.engine import (
    CampaignInfo,
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    CustomerContext,
    PricingContext,
    TierSpec,
)

NOW = datetime(2026, 1, 7, 12, 0, tzinfo=UTC)  # a Wednesday
EXAMPLES_PATH = Path(__file__).parent / "data" / "promotions_validation_examples.json"


def load_examples() -> dict[str, Any]:
    return json.loads(EXAMPLES_PATH.read_text())


def ctx(**kw: Any) -> PricingContext:
    kw.setdefault("now", NOW)
    return PricingContext(**kw)


def campaign(**kw: Any) -> CampaignInfo:
    kw.setdefault("id", "camp_test")
    return CampaignInfo(**kw)


def tier(discount: Mapping[str, Any], **kw: Any) -> TierSpec:
    kw.setdefault("id", "promo_test")
    kw.setdefault("name", "test tier")
    kw.setdefault("campaign", campaign())
    return TierSpec(discount=discount, **kw)


def included(*entries: Mapping[str, Any]) -> dict[str, Any]:
    return {"included": list(entries)}


def customer(**kw: Any) -> CustomerContext:
    return CustomerContext(**kw)


# --- the $175 cart of the service's docs --------------------------------------------------------------
def adventure_catalogue() -> Catalogue:
    return Catalogue(
        products=[
            CatalogueProduct("prod_mug", "mug", "Mug", 1000),
            CatalogueProduct("prod_poster", "poster", "Poster", 1500),
            CatalogueProduct("prod_tshirt", "tshirt", "T-shirt", 2000),
            CatalogueProduct("prod_bottle", "bottle", "Bottle", 2500),
        ],
        collections=[
            CatalogueCollection(
                "pc_adventure",
                "Adventure",
                product_ids=frozenset({"prod_mug", "prod_poster", "prod_tshirt"}),
            )
        ],
    )


ADVENTURE_ORDER = {
    "items": [
        {"product_id": "prod_mug", "quantity": 2},
        {"product_id": "prod_poster", "quantity": 3},
        {"product_id": "prod_tshirt", "quantity": 3},
        {"product_id": "prod_bottle", "quantity": 2},
    ]
}
ADVENTURE_SCOPE = included({"object": "products_collection", "id": "pc_adventure"})


# --- the service's example catalogue (the OpenAPI "promotions/validation" examples) -------
def example_catalogue() -> Catalogue:
    """Products and SKUs exactly as the response examples show them."""
    return Catalogue(
        products=[
            CatalogueProduct("prod_0a9f9ab4ab019a42d5", None, "Red T-Shirt", 2900),
            CatalogueProduct("prod_0a9f9aeddb019a42db", None, "Blue T-Shirt", 3100),
            CatalogueProduct("prod_0b7d7dfb05cbe5c616", "Books", "Comic Books1", 2100),
            CatalogueProduct("prod_0b72b0bd64d198e3ae", "vase_1", "Vase - Boho Vintage", 1500),
            CatalogueProduct("prod_0b7d7c4e814be5c502", "prod_1", "Apple iPhone 12", 60000),
            CatalogueProduct("prod_0bae2dc5a090fd0184", "first_product", "Samsung Phone 1", 220000),
            CatalogueProduct("prod_0b72b00ffed198e344", "roses_1", "Bouquet - Romantic Roses", 500),
        ],
        skus=[
            CatalogueSku(
                "sku_0b7d7dfb090be5c619", "ComicBook_1", "Comics1", "prod_0b7d7dfb05cbe5c616", 1700
            ),
            CatalogueSku(
                "sku_0bae3b28f610fd0da1",
                "first_product_sku_1",
                "Samsung phone 256GB",
                "prod_0bae2dc5a090fd0184",
                210000,
            ),
        ],
        collections=[CatalogueCollection("pc_a11pr0dUc75", "All products", all_products=True)],
    )


def strip_expansion(discount: Mapping[str, Any]) -> dict[str, Any]:
    """A response's discount back to what a tier stores (no product/sku names)."""
    out = {k: v for k, v in discount.items() if k not in ("product", "sku")}
    if "units" in out:
        out["units"] = [
            {k: v for k, v in u.items() if k not in ("product", "sku")} for u in out["units"]
        ]
    return out


def tier_from_example(promo: Mapping[str, Any]) -> TierSpec:
    """A TierSpec that should reproduce one `promotions[]` entry of an example response."""
    camp = promo["campaign"]
    included_entries = [
        {k: v for k, v in e.items() if k in ("object", "id", "price", "effect")}
        for e in promo["applicable_to"]["data"]
    ]
    return TierSpec(
        id=promo["id"],
        name=promo["name"],
        banner=promo.get("banner"),
        hierarchy=promo["hierarchy"],
        campaign=CampaignInfo(
            id=camp["id"],
            active=camp["active"],
            categories=tuple(camp.get("categories", ())),
        ),
        discount=strip_expansion(promo["discount"]),
        applicable_to={"included": included_entries} if included_entries else None,
        metadata=promo["metadata"],
    )


def mutate_everything(value: Any) -> None:
    """Change every dict and list in `value`, all the way down: what a caller
    may do to what the engine hands it (later answers must not see it)."""
    if isinstance(value, dict):
        for key in list(value):
            mutate_everything(value[key])
        value["mutated"] = True
    elif isinstance(value, list):
        for v in value:
            mutate_everything(v)
        value.append("mutated")
