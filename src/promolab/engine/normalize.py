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
- Bounds: a price, amount or quantity above 2^63-1 is refused, and so is an
  order whose amounts, as computed, would pass it (`PricingOverflowError`):
  `price * quantity` of a line, and the sum of the lines when it becomes the
  order amount. One comparison on the sum covers every line (amounts are
  never negative); the lines are looked at only when the sum is over.

Performance: everything an item's catalogue ids determine (the product and
SKU, their wire shapes, collections, merged metadata, the catalogue price) is
resolved once per catalogue and id combination and cached on the catalogue
(`item_resolution.resolve_item`); per item only the request's own values are
checked. A plain
item (every value a string, an integer or null: ids, quantity, price, amount)
is normalized once per catalogue, position and content: the `Line` is shared
by every order holding such an item there (`_plain_line`), and with it the
line's order-item template (`Line.wire_item`), built once instead of per
request. Lines are therefore read-only, their metadata included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalogue import Catalogue
from .errors import INT64_MAX, PricingInputError, PricingOverflowError
from .item_resolution import resolve_item
from .lines import Line, NormalizedOrder

__all__ = ["normalize_order"]

#: Shared lines of plain items per catalogue before the cache is emptied:
#: requests may hold any number of distinct items.
_CACHE_LIMIT = 4096
#: Orders (their lines, amounts and shared results) kept per catalogue: fewer,
#: as each holds the wire orders of the tiers read for it.
_ORDER_CACHE_LIMIT = 1024


def _non_negative_int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PricingInputError(field, f"must be an integer number of cents, got {value!r}")
    if value < 0:
        raise PricingInputError(field, f"must not be negative, got {value}")
    if value > INT64_MAX:
        raise PricingInputError(field, f"must be at most {INT64_MAX}")
    return value


def _quantity(value: Any, field: str) -> int:
    if value is None:
        return 1
    number: int
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit()):  # not `int()`'s wider reading ("+1", "1_0", "١")
            raise PricingInputError(field, f"must be a non-negative integer, got {value[:40]!r}")
        if len(text.lstrip("0")) > len(str(INT64_MAX)):  # before int(): no 5000-digit conversion
            raise PricingInputError(field, f"must be at most {INT64_MAX}")
        number = int(text)
    elif isinstance(value, bool) or not isinstance(value, int):
        raise PricingInputError(field, f"must be a non-negative integer, got {value!r}")
    else:
        number = value
    if number < 0:
        raise PricingInputError(field, f"must not be negative, got {number}")
    if number > INT64_MAX:
        raise PricingInputError(field, f"must be at most {INT64_MAX}")
    return number


def _optional_str(item: Mapping[str, Any], key: str, field: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise PricingInputError(f"{field}.{key}", f"must be a non-empty string, got {value!r}")
    return value


def _mapping(value: Any, field: str, suffix: str = "") -> Mapping[str, Any]:
    """`value` as a mapping ({} when absent); the error names `field + suffix`
    (joined only on error: this runs five times per item)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise PricingInputError(field + suffix, "must be an object")
    return value


def _is_mapping(value: Any) -> bool:
    # `type(...) is dict` first: an ABC isinstance check costs several times more,
    # and request bodies are plain dicts.
    return type(value) is dict or isinstance(value, Mapping)


def _line(catalogue: Catalogue, index: int, item: Any) -> Line:
    field = f"order.items[{index}]"
    if not _is_mapping(item):
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

    found = resolve_item(catalogue, product_id, sku_id, source_id, related_object)
    if found.mismatch:
        assert found.sku is not None
        raise PricingInputError(
            f"{field}.product_id",
            f"{product_id} is not the product of SKU {found.sku.id} ({found.sku.product_id})",
        )
    product_id, sku_id = found.product_id, found.sku_id

    raw_quantity = item.get("quantity")
    if type(raw_quantity) is int and 0 <= raw_quantity <= INT64_MAX:
        quantity = raw_quantity  # the usual case, without building the error path's name
    else:
        quantity = _quantity(raw_quantity, f"{field}.quantity")
    raw_price = item.get("price")
    price = (
        _non_negative_int(raw_price, f"{field}.price")
        if raw_price is not None
        else found.catalogue_price
    )
    raw_amount = item.get("amount")
    amount: int | None
    if raw_amount is not None:
        amount = _non_negative_int(raw_amount, f"{field}.amount")
    else:
        amount = price * quantity if price is not None else None

    if not found.known and price is None and amount is None:
        what = sku_id or product_id or source_id
        raise PricingInputError(
            f"{field}.price", f"{what} is not in the catalogue and the item has no price"
        )

    metadata = dict(found.metadata)
    req_product, req_sku, own = item.get("product"), item.get("sku"), item.get("metadata")
    if req_product is not None or req_sku is not None or own is not None:
        req_product = _mapping(req_product, field, ".product")
        req_sku = _mapping(req_sku, field, ".sku")
        metadata.update(_mapping(req_product.get("metadata"), field, ".product.metadata"))
        metadata.update(_mapping(req_sku.get("metadata"), field, ".sku.metadata"))
        metadata.update(_mapping(own, field, ".metadata"))

    return Line(
        index,
        product_id,
        sku_id,
        source_id,
        found.product,
        found.sku,
        quantity,
        price,
        amount,
        found.collection_ids,
        metadata,
        found.wire_product,
        found.wire_sku,
        found.match_key,
    )


def _plain(value: Any) -> bool:
    """A value that is exactly a str, an int (not a bool) or None: no two
    such values of different types compare equal (unlike 1 / 1.0 / True), so
    a tuple of them is an exact cache key for what they mean."""
    kind = type(value)
    return kind is str or kind is int or value is None


def _plain_key(index: int, item: Any) -> tuple[Any, ...] | None:
    """`(index, *item.items())` for a dict item whose values are all plain,
    else None (metadata, nested product/sku objects, floats, a non-dict...)."""
    if type(item) is not dict:
        return None
    for value in item.values():
        kind = type(value)
        if kind is not str and kind is not int and value is not None:
            return None
    return (index, *item.items())


def _plain_line(catalogue: Catalogue, index: int, item: Any) -> Line:
    """`_line(catalogue, index, item)`, shared between requests for a plain item.

    A line depends on nothing but the catalogue, its position and the item's
    keys and values, all of which a plain item's key holds exactly: equal keys
    give equal lines, and the first one built serves them all, with its
    wire-item template. Any other item is normalized afresh; so is an item
    that fails (it raises, nothing is kept).
    """
    key = _plain_key(index, item)
    if key is None:
        return _line(catalogue, index, item)
    cache = catalogue._lines
    found = cache.get(key)
    if found is None:
        found = _line(catalogue, index, item)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = found
    return found


def normalize_order(
    catalogue: Catalogue, order_input: Mapping[str, Any] | None, customer_id: str | None = None
) -> NormalizedOrder:
    """Validate and price the request's order once; raises `PricingInputError`."""
    if order_input is None:
        order_input = {}
    if not _is_mapping(order_input):
        raise PricingInputError("order", "must be an object")
    raw_items = order_input.get("items")
    if raw_items is None:
        raw_items = ()
    if type(raw_items) is not list and (
        isinstance(raw_items, str | bytes) or not isinstance(raw_items, Sequence)
    ):
        raise PricingInputError("order.items", "must be an array")
    raw_amount = order_input.get("amount")
    raw_initial = order_input.get("initial_amount")
    core = _core(catalogue, raw_items, raw_amount, raw_initial)
    metadata = _mapping(order_input.get("metadata"), "order.metadata")
    referrer_id = order_input.get("referrer_id")
    if referrer_id is not None and not isinstance(referrer_id, str):
        raise PricingInputError("order.referrer_id", "must be a string")
    return NormalizedOrder(
        core.lines,
        core.amount,
        core.initial_amount,
        core.items_amount,
        core.total_quantity,
        metadata,
        customer_id,
        referrer_id,
        {},
        core.shared,
    )


# Not frozen, like Line: one is built per new cart, and nothing changes it.
@dataclass(slots=True)
class OrderCore:
    """What an order's items and amounts determine: its lines, amounts and the
    `NormalizedOrder.shared` results."""

    lines: tuple[Line, ...]
    amount: int
    initial_amount: int
    items_amount: int
    total_quantity: int
    shared: dict[Any, Any]


def _core(catalogue: Catalogue, raw_items: Any, raw_amount: Any, raw_initial: Any) -> OrderCore:
    """The order's lines and amounts, shared by orders of plain items.

    When every item is plain and the amounts are ints or absent, the items'
    keys and the amounts as sent are an exact key for the result (see
    `_plain_key`): the first such order normalized serves every later one,
    with the results its `shared` dict collects. Anything else is computed
    afresh, with a private `shared` dict.
    """
    if not (_plain(raw_amount) and _plain(raw_initial)):
        return _compute_core(catalogue, raw_items, raw_amount, raw_initial)
    keys: list[Any] = [raw_amount, raw_initial]
    for index, item in enumerate(raw_items):  # stops at the first item that is not plain
        item_key = _plain_key(index, item)
        if item_key is None:
            return _compute_core(catalogue, raw_items, raw_amount, raw_initial)
        keys.append(item_key)
    key = tuple(keys)
    cache = catalogue._orders
    found = cache.get(key)
    if found is None:
        found = _compute_core(catalogue, raw_items, raw_amount, raw_initial)
        if len(cache) >= _ORDER_CACHE_LIMIT:
            cache.clear()
        cache[key] = found
    return found


def _compute_core(
    catalogue: Catalogue, raw_items: Any, raw_amount: Any, raw_initial: Any
) -> OrderCore:
    lines = tuple([_plain_line(catalogue, i, item) for i, item in enumerate(raw_items)])
    items_amount = sum(line.amount for line in lines if line.amount is not None)
    if items_amount > INT64_MAX:
        _overflowing(lines, raw_amount is None)
    if raw_amount is not None:
        amount = _non_negative_int(raw_amount, "order.amount")
    else:
        amount = items_amount
    if raw_initial is not None:
        initial_amount = _non_negative_int(raw_initial, "order.initial_amount")
    else:
        initial_amount = amount
    total_quantity = sum(line.quantity for line in lines)
    return OrderCore(lines, amount, initial_amount, items_amount, total_quantity, {})


def _overflowing(lines: Sequence[Line], sum_is_amount: bool) -> None:
    """The lines' amounts add up past INT64_MAX: refuse a line whose own
    amount does (its `price * quantity`), else the sum when it would be the
    order amount. (With an order amount sent, the sum is never shown.)"""
    for line in lines:
        if line.amount is not None and line.amount > INT64_MAX:
            raise PricingOverflowError(
                f"order.items[{line.index}]",
                f"price {line.price} x quantity {line.quantity} is more than {INT64_MAX}, the largest amount",
            )
    if sum_is_amount:
        raise PricingOverflowError(
            "order.items", f"the items' amounts add up to more than {INT64_MAX}, the largest order amount"
        )
