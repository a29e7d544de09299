"""Normalising the request's order into priced lines (done once per request).

Identification of an item, in this order: `sku_id`; `product_id`; `source_id`
with `related_object` ("product", the default, or "sku"). A SKU brings its
parent product. Price: the item's `price`, else the SKU's catalogue price, else
the product's. `amount` is echoed when sent, else `price * quantity`. The
order's `amount` is kept as sent, else it is the sum of item amounts.

Decisions where the docs are silent:
- `quantity` defaults to 1 when absent; integer strings such as "1" are
  accepted; floats, booleans, negatives are refused.
- A product or SKU that is not in the catalogue is accepted when the item
  carries a `price` (or an `amount`); without either it is refused.
- A known product without any price and without `amount` gives a line with no
  price and no amount (it counts as 0 and the wire line omits the amount fields,
  like the service's price-less shipping line).
- Metadata seen by item rules is the catalogue product's, overlaid by the SKU's,
  by the request's `item.product.metadata`, `item.sku.metadata` and
  `item.metadata`, in that order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import PricingInputError
from .types import Catalogue, Product, Sku

__all__ = ["Line", "NormalizedOrder", "normalize_order", "product_wire", "sku_wire"]


@dataclass(frozen=True, slots=True)
class Line:
    index: int
    product_id: str | None
    sku_id: str | None
    source_id: str | None
    product: Product | None
    sku: Sku | None
    quantity: int
    price: int | None
    amount: int | None
    collection_ids: frozenset[str]
    metadata: Mapping[str, Any]
    wire_product: Mapping[str, Any] | None
    wire_sku: Mapping[str, Any] | None

    @property
    def amount_or_zero(self) -> int:
        return self.amount if self.amount is not None else 0


@dataclass(frozen=True, slots=True)
class NormalizedOrder:
    lines: tuple[Line, ...]
    #: order.amount as sent, else the sum of line amounts
    amount: int
    #: order.initial_amount as sent, else `amount`
    initial_amount: int
    items_amount: int
    total_quantity: int
    metadata: Mapping[str, Any]
    customer_id: str | None
    referrer_id: str | None


def product_wire(product: Product | None, product_id: str | None) -> dict[str, Any] | None:
    """`{id, source_id, name, price}` with absent values omitted (as the service does)."""
    if product is None:
        return {"id": product_id} if product_id is not None else None
    out: dict[str, Any] = {"id": product.id}
    if product.source_id is not None:
        out["source_id"] = product.source_id
    if product.name is not None:
        out["name"] = product.name
    if product.price is not None:
        out["price"] = product.price
    return out


def sku_wire(sku: Sku | None, sku_id: str | None) -> dict[str, Any] | None:
    if sku is None:
        return {"id": sku_id} if sku_id is not None else None
    out: dict[str, Any] = {"id": sku.id}
    if sku.source_id is not None:
        out["source_id"] = sku.source_id
    if sku.sku is not None:
        out["sku"] = sku.sku
    if sku.price is not None:
        out["price"] = sku.price
    return out


def _non_negative_int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PricingInputError(field, f"must be an integer number of cents, got {value!r}")
    if value < 0:
        raise PricingInputError(field, f"must not be negative, got {value}")
    return value


def _quantity(value: Any, field: str) -> int:
    if value is None:
        return 1
    if isinstance(value, str):
        text = value.strip()
        if not text.isdigit():
            raise PricingInputError(field, f"must be a non-negative integer, got {value!r}")
        return int(text)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PricingInputError(field, f"must be a non-negative integer, got {value!r}")
    if value < 0:
        raise PricingInputError(field, f"must not be negative, got {value}")
    return value


def _optional_str(item: Mapping[str, Any], key: str, field: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise PricingInputError(f"{field}.{key}", f"must be a non-empty string, got {value!r}")
    return value


def _mapping(value: Any, field: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise PricingInputError(field, "must be an object")
    return value


def _line(catalogue: Catalogue, index: int, item: Any) -> Line:
    field = f"order.items[{index}]"
    if not isinstance(item, Mapping):
        raise PricingInputError(field, "must be an object")
    product_id = _optional_str(item, "product_id", field)
    sku_id = _optional_str(item, "sku_id", field)
    source_id = _optional_str(item, "source_id", field)
    related_object = item.get("related_object")
    if related_object is not None and related_object not in ("product", "sku"):
        raise PricingInputError(
            f"{field}.related_object", f"must be 'product' or 'sku', got {related_object!r}"
        )
    if product_id is None and sku_id is None and source_id is None:
        raise PricingInputError(field, "needs product_id, sku_id or source_id")

    product, sku = catalogue.resolve_item(
        product_id=product_id, sku_id=sku_id, source_id=source_id, related_object=related_object
    )
    if sku is not None:
        sku_id = sku.id
        if product_id is not None and sku.product_id is not None and product_id != sku.product_id:
            raise PricingInputError(
                f"{field}.product_id",
                f"{product_id} is not the product of SKU {sku.id} ({sku.product_id})",
            )
        product_id = sku.product_id or product_id
    elif product is not None:
        product_id = product.id

    quantity = _quantity(item.get("quantity"), f"{field}.quantity")
    price: int | None = None
    if item.get("price") is not None:
        price = _non_negative_int(item["price"], f"{field}.price")
    elif sku is not None and sku.price is not None:
        price = sku.price
    elif product is not None and product.price is not None:
        price = product.price
    amount: int | None
    if item.get("amount") is not None:
        amount = _non_negative_int(item["amount"], f"{field}.amount")
    else:
        amount = price * quantity if price is not None else None

    known = (
        sku is not None if (sku_id is not None or related_object == "sku") else product is not None
    )
    if not known and price is None and amount is None:
        what = sku_id or product_id or source_id
        raise PricingInputError(
            f"{field}.price", f"{what} is not in the catalogue and the item has no price"
        )

    metadata: dict[str, Any] = {}
    if product is not None:
        metadata.update(product.metadata)
    if sku is not None:
        metadata.update(sku.metadata)
    req_product = _mapping(item.get("product"), f"{field}.product")
    req_sku = _mapping(item.get("sku"), f"{field}.sku")
    metadata.update(_mapping(req_product.get("metadata"), f"{field}.product.metadata"))
    metadata.update(_mapping(req_sku.get("metadata"), f"{field}.sku.metadata"))
    metadata.update(_mapping(item.get("metadata"), f"{field}.metadata"))

    wire_product = product_wire(product, product_id)
    if wire_product is None and source_id is not None and related_object != "sku":
        wire_product = {"source_id": source_id}
    wire_sku = sku_wire(sku, sku_id)
    if wire_sku is None and source_id is not None and related_object == "sku":
        wire_sku = {"source_id": source_id}
    return Line(
        index=index,
        product_id=product_id,
        sku_id=sku_id,
        source_id=source_id,
        product=product,
        sku=sku,
        quantity=quantity,
        price=price,
        amount=amount,
        collection_ids=catalogue.collections_of(product_id, sku_id),
        metadata=metadata,
        wire_product=wire_product,
        wire_sku=wire_sku,
    )


def normalize_order(
    catalogue: Catalogue, order_input: Mapping[str, Any] | None, customer_id: str | None = None
) -> NormalizedOrder:
    """Validate and price the request's order once; raises `PricingInputError`."""
    if order_input is None:
        order_input = {}
    if not isinstance(order_input, Mapping):
        raise PricingInputError("order", "must be an object")
    raw_items = order_input.get("items")
    if raw_items is None:
        raw_items = ()
    if isinstance(raw_items, str | bytes) or not isinstance(raw_items, Sequence):
        raise PricingInputError("order.items", "must be an array")
    lines = tuple(_line(catalogue, i, item) for i, item in enumerate(raw_items))
    items_amount = sum(line.amount for line in lines if line.amount is not None)
    if order_input.get("amount") is not None:
        amount = _non_negative_int(order_input["amount"], "order.amount")
    else:
        amount = items_amount
    if order_input.get("initial_amount") is not None:
        initial_amount = _non_negative_int(order_input["initial_amount"], "order.initial_amount")
    else:
        initial_amount = amount
    metadata = _mapping(order_input.get("metadata"), "order.metadata")
    referrer_id = order_input.get("referrer_id")
    if referrer_id is not None and not isinstance(referrer_id, str):
        raise PricingInputError("order.referrer_id", "must be a string")
    return NormalizedOrder(
        lines=lines,
        amount=amount,
        initial_amount=initial_amount,
        items_amount=items_amount,
        total_quantity=sum(line.quantity for line in lines),
        metadata=metadata,
        customer_id=customer_id,
        referrer_id=referrer_id,
    )
