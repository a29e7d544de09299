"""Building validation orders from line items: a DataFrame, records, or plain Python.

A *line-items frame* has one row per order line (docs/analysis.md, "Orders"):

| column | required | meaning |
|---|---|---|
| `order_id` | yes | any hashable id; rows with the same id form one order |
| `product_id` | one of the two | catalogue product id (`prod_…`) |
| `sku_id` | one of the two | catalogue SKU id (`sku_…`); wins over `product_id` |
| `quantity` | no (1) | units, an integer >= 1 |
| `price` | no | unit price in cents; empty = the catalogue's |
| `customer_source_id` | no | the customer; the value on the order's first line counts |
| `placed_at` | no | when the order was placed: timezone-aware datetimes or ISO strings with an offset; every line of an order must agree |
| `channel` | no | the sales channel (first line counts); also the request metadata's `channel` |
| `metadata.<key>` | no | the request's top-level metadata `<key>` (first line counts; empty = absent) |

Lines keep the frame's row order inside each order; orders come out in order of
first appearance. Numbers may arrive as floats (a CSV column with blanks); they
must hold whole values. Everything here is catalogue-free: the requests built
are what a client sends to `validate_promotions`, against the simulator or the
real service alike.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import numpy as np
import pandas as pd

from .order_fields import (
    PLACED_AT_COLUMN,
    iso_instant,
    line_instants,
    metadata_codes,
    plain,
    row_of,
    utc_datetime,
)

__all__ = [
    "CHANNEL_COLUMN",
    "CUSTOMER_COLUMN",
    "METADATA_PREFIX",
    "ORDER_COLUMN",
    "PLACED_AT_COLUMN",
    "PRICE_COLUMN",
    "PRODUCT_COLUMN",
    "QUANTITY_COLUMN",
    "SKU_COLUMN",
    "LineColumns",
    "as_requests",
    "line_columns",
    "order_request",
    "orders_from_frame",
    "orders_from_records",
    "utc_datetime",
]

ORDER_COLUMN = "order_id"
PRODUCT_COLUMN = "product_id"
SKU_COLUMN = "sku_id"
QUANTITY_COLUMN = "quantity"
PRICE_COLUMN = "price"
CUSTOMER_COLUMN = "customer_source_id"
CHANNEL_COLUMN = "channel"
METADATA_PREFIX = "metadata."

#: Sentinel for "no price given" in the int64 price column.
NO_PRICE = -1


def _whole(values: Any, column: str, *, missing: int, minimum: int) -> np.ndarray:
    """A numeric column as int64, NA -> `missing`; refuses fractions and values < minimum.

    Errors name the first offending row by its index label, so a user can find
    the line in the frame they passed (positions change once lines are grouped).
    """
    series = pd.Series(values) if not isinstance(values, pd.Series) else values
    if series.dtype.kind in "iu" and not isinstance(series.dtype, pd.api.extensions.ExtensionDtype):
        out: np.ndarray = series.to_numpy(dtype=np.int64, copy=False)
        na = None
    else:
        numeric = pd.to_numeric(series, errors="coerce")
        bad = (numeric.isna() & series.notna()).to_numpy(dtype=bool)
        if bad.any():
            row, value = row_of(series, bad)
            raise ValueError(f"row {row!r}, column {column!r}: not a number: {value!r}")
        floats = numeric.to_numpy(dtype=np.float64, na_value=np.nan)
        na = np.isnan(floats)
        filled = np.where(na, float(missing), floats)
        fractional = filled != np.floor(filled)
        if fractional.any():
            row, value = row_of(series, fractional)
            raise ValueError(f"row {row!r}, column {column!r}: must be a whole number (cents / units), got {value!r}")
        huge = np.abs(filled) >= 2.0**53
        if huge.any():
            row, value = row_of(series, huge)
            raise ValueError(f"row {row!r}, column {column!r}: {value!r} is too large to be exact")
        out = filled.astype(np.int64)
    low = out < minimum
    if na is not None:
        low &= ~na
    if low.any():
        row, _ = row_of(series, low)
        raise ValueError(f"row {row!r}, column {column!r}: must be >= {minimum}, got {int(out[low][0])}")
    return out


def _ids(series: pd.Series | None) -> tuple[np.ndarray, list[str | None]] | None:
    """Codes and uniques of an optional id column (code -1 = empty)."""
    if series is None:
        return None
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    names: list[str | None] = []
    for value in list(uniques):
        text = str(value)
        names.append(text if text else None)
    return codes.astype(np.int64, copy=False), names


@dataclass(frozen=True)
class LineColumns:
    """A line-items frame, normalised to arrays, lines grouped by order.

    `starts[i]:starts[i+1]` are the lines of order `order_ids[i]`;
    `product`/`sku` are codes into `product_names`/`sku_names` (-1 = empty),
    None when the frame has no such column; `price` is -1 where no price was
    given, None without a price column; `customer` holds per-order codes into
    `customer_names` (-1 = none), None without a customer column.
    """

    order_ids: pd.Index
    starts: np.ndarray
    product: np.ndarray | None
    product_names: list[str | None]
    sku: np.ndarray | None
    sku_names: list[str | None]
    quantity: np.ndarray
    price: np.ndarray | None
    customer: np.ndarray | None
    customer_names: list[str]
    #: Per order, when it was placed: int64 UTC nanoseconds (None: no such column).
    placed_at: np.ndarray | None = None
    #: Per-order codes into `channel_names` (-1 = none); None without the column.
    channel: np.ndarray | None = None
    channel_names: tuple[str, ...] = ()
    #: Per-order codes into `metadata_sets`, the distinct request metadata
    #: (channel included); None when the frame carries no metadata.
    metadata_code: np.ndarray | None = None
    metadata_sets: tuple[dict[str, Any], ...] = ()
    #: The frame's index, and each grouped line's position in the frame (None:
    #: the frame's own order): kept so an error found after grouping (an unknown
    #: product, ...) still names the row the user can find in their frame.
    row_labels: pd.Index | None = None
    line_rows: np.ndarray | None = None

    @property
    def n_orders(self) -> int:
        return len(self.order_ids)

    def row_label(self, j: int) -> Hashable:
        """The frame's index label of grouped line `j` (its position when unknown)."""
        pos = int(self.line_rows[j]) if self.line_rows is not None else j
        return plain(self.row_labels[pos]) if self.row_labels is not None else pos

    def items(self, i: int) -> list[dict[str, Any]]:
        """The request items of order `i` (position, not id)."""
        out = []
        for j in range(int(self.starts[i]), int(self.starts[i + 1])):
            item: dict[str, Any] = {}
            p = int(self.product[j]) if self.product is not None else -1
            s = int(self.sku[j]) if self.sku is not None else -1
            if p >= 0 and self.product_names[p] is not None:
                item["product_id"] = self.product_names[p]
            if s >= 0 and self.sku_names[s] is not None:
                item["sku_id"] = self.sku_names[s]
            item["quantity"] = int(self.quantity[j])
            if self.price is not None and self.price[j] != NO_PRICE:
                item["price"] = int(self.price[j])
            out.append(item)
        return out

    def customer_of(self, i: int) -> str | None:
        if self.customer is None or self.customer[i] < 0:
            return None
        return self.customer_names[int(self.customer[i])]

    def channel_of(self, i: int) -> str | None:
        if self.channel is None or self.channel[i] < 0:
            return None
        return self.channel_names[int(self.channel[i])]

    def metadata_of(self, i: int) -> dict[str, Any]:
        """Order i's request metadata (a fresh dict; empty when none)."""
        if self.metadata_code is None:
            return {}
        return dict(self.metadata_sets[int(self.metadata_code[i])])

    def placed_at_of(self, i: int) -> datetime | None:
        """When order i was placed, as a UTC datetime (None without a `placed_at` column)."""
        if self.placed_at is None:
            return None
        return utc_datetime(int(self.placed_at[i]))


def line_columns(frame: pd.DataFrame, *, order_column: str = ORDER_COLUMN) -> LineColumns:
    """Normalise a line-items frame (see the module docstring); raises ValueError."""
    if order_column not in frame.columns:
        raise ValueError(f"the line-items frame needs an {order_column!r} column")
    if PRODUCT_COLUMN not in frame.columns and SKU_COLUMN not in frame.columns:
        raise ValueError(f"the line-items frame needs a {PRODUCT_COLUMN!r} or {SKU_COLUMN!r} column")
    order_codes, uniques = pd.factorize(frame[order_column], use_na_sentinel=True)
    if len(order_codes) and order_codes.min() < 0:
        raise ValueError(f"column {order_column!r} has empty values")
    order_codes = order_codes.astype(np.int64, copy=False)
    n = len(uniques)
    perm = None
    if len(order_codes) > 1 and np.any(order_codes[1:] < order_codes[:-1]):
        perm = np.argsort(order_codes, kind="stable")
    counts = np.bincount(order_codes, minlength=n)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])

    def take(a: np.ndarray) -> np.ndarray:
        return a if perm is None else a[perm]

    size = len(frame)
    products = _ids(frame[PRODUCT_COLUMN] if PRODUCT_COLUMN in frame.columns else None)
    skus = _ids(frame[SKU_COLUMN] if SKU_COLUMN in frame.columns else None)
    product, product_names = products if products is not None else (None, [])
    sku, sku_names = skus if skus is not None else (None, [])
    if product is None:
        # Not None: line_columns requires a product or a sku column.
        identified = cast(np.ndarray, sku) >= 0
    elif sku is None:
        identified = product >= 0
    else:
        identified = (product >= 0) | (sku >= 0)
    if not identified.all():
        row = int(np.flatnonzero(~identified)[0])
        raise ValueError(f"row {plain(frame.index[row])!r} (order {plain(frame[order_column].iloc[row])!r}): "
                         f"no product_id or sku_id")
    quantity = (
        _whole(frame[QUANTITY_COLUMN], QUANTITY_COLUMN, missing=1, minimum=1)
        if QUANTITY_COLUMN in frame.columns
        else np.ones(size, dtype=np.int64)
    )
    price = (
        _whole(frame[PRICE_COLUMN], PRICE_COLUMN, missing=NO_PRICE, minimum=0)
        if PRICE_COLUMN in frame.columns
        else None
    )
    # the frame position of each order's first line (stable sort: first appearance first)
    first_line = (perm[starts[:-1]] if perm is not None else starts[:-1]) if n else starts[:0]

    def firsts(column: str) -> np.ndarray:
        # the first lines first: converting every line to Python objects costs a string per line
        values: np.ndarray = frame[column].iloc[first_line].to_numpy(dtype=object)
        return values

    def first_codes(column: str) -> tuple[np.ndarray, list[str]]:
        # each order's value numbered in order of first appearance (-1: none), and the names; a
        # categorical column is numbered through its codes (no Python string per order)
        series = frame[column]
        if isinstance(series.dtype, pd.CategoricalDtype):
            codes, uniques = pd.factorize(series.array.take(first_line), use_na_sentinel=True)
        else:
            codes, uniques = pd.factorize(pd.Series(firsts(column), dtype=object), use_na_sentinel=True)
        return codes.astype(np.int32), [str(c) for c in uniques]

    customer = None
    customer_names: list[str] = []
    if CUSTOMER_COLUMN in frame.columns:
        customer, customer_names = first_codes(CUSTOMER_COLUMN)
    placed_at = None
    if PLACED_AT_COLUMN in frame.columns:
        lines = line_instants(frame[PLACED_AT_COLUMN])
        placed_at = lines[first_line]
        differs = lines != placed_at[order_codes]
        if differs.any():
            pos = int(np.flatnonzero(differs)[0])
            order = int(order_codes[pos])
            raise ValueError(
                f"row {plain(frame.index[pos])!r}, column {PLACED_AT_COLUMN!r}: order {plain(uniques[order])!r} was placed at "
                f"{iso_instant(placed_at[order])} on its first line but {iso_instant(lines[pos])} here"
            )
    channel = None
    channel_names: tuple[str, ...] = ()
    meta_columns: dict[str, np.ndarray] = {}
    if CHANNEL_COLUMN in frame.columns:
        channel, names = first_codes(CHANNEL_COLUMN)
        channel_names = tuple(names)
        meta_columns["channel"] = np.array([None, *channel_names], dtype=object)[channel + 1]
    for column in frame.columns:
        if isinstance(column, str) and column.startswith(METADATA_PREFIX) and len(column) > len(METADATA_PREFIX):
            meta_columns[column[len(METADATA_PREFIX):]] = firsts(column)
    metadata_code, metadata_sets = metadata_codes(meta_columns, n)
    return LineColumns(
        order_ids=pd.Index(uniques),
        starts=starts,
        product=take(product) if product is not None else None,
        product_names=product_names,
        sku=take(sku) if sku is not None else None,
        sku_names=sku_names,
        quantity=take(quantity),
        price=take(price) if price is not None else None,
        customer=customer,
        customer_names=customer_names,
        placed_at=placed_at,
        channel=channel,
        channel_names=channel_names,
        metadata_code=metadata_code,
        metadata_sets=metadata_sets,
        row_labels=frame.index,
        line_rows=perm,
    )


def order_request(
    items: Sequence[Mapping[str, Any]],
    customer: str | Mapping[str, Any] | None = None,
    *,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A validation request: `{"customer": {...}?, "order": {"items": [...]}}`.

    `customer` is a source_id or a customer object.
    """
    request: dict[str, Any] = {}
    if customer is not None:
        request["customer"] = {"source_id": customer} if isinstance(customer, str) else dict(customer)
    request["order"] = {"items": [dict(item) for item in items]}
    if metadata:
        request["metadata"] = dict(metadata)
    return request


def orders_from_frame(
    frame: pd.DataFrame, *, order_column: str = ORDER_COLUMN
) -> dict[Hashable, dict[str, Any]]:
    """`{order_id: validation request}` from a line-items frame, in order of first appearance."""
    cols = line_columns(frame, order_column=order_column)
    out: dict[Hashable, dict[str, Any]] = {}
    for i, order_id in enumerate(cols.order_ids):
        out[plain(order_id)] = order_request(cols.items(i), cols.customer_of(i), metadata=cols.metadata_of(i))
    return out


def orders_from_records(records: Iterable[Mapping[str, Any]]) -> dict[Hashable, dict[str, Any]]:
    """Like `orders_from_frame`, from line-item records (dicts with the same keys)."""
    return orders_from_frame(pd.DataFrame(list(records)))


def _as_request(value: Any) -> dict[str, Any]:
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_none=True)
    if not isinstance(value, Mapping):
        raise TypeError(f"an order must be a mapping (order or validation request), got {type(value).__name__}")
    if "order" in value or "customer" in value:
        return dict(value)
    if "items" in value:
        return {"order": dict(value)}
    raise ValueError(f"not an order or a validation request: {dict(value)!r}")


def as_requests(orders: Any) -> list[tuple[Hashable, dict[str, Any]]]:
    """Any order input as `[(order_id, validation request), ...]`.

    Accepts a line-items DataFrame; a mapping `{order_id: order | request}`; a
    list of orders/requests (ids: `order["id"]`/`order["source_id"]` when
    present, else the position); a single order or request.
    """
    if isinstance(orders, pd.DataFrame):
        return list(orders_from_frame(orders).items())
    if isinstance(orders, Mapping) and not ("order" in orders or "items" in orders or "customer" in orders):
        return [(plain(k), _as_request(v)) for k, v in orders.items()]
    if isinstance(orders, Mapping) or hasattr(orders, "model_dump"):
        orders = [orders]
    out: list[tuple[Hashable, dict[str, Any]]] = []
    for position, value in enumerate(orders):
        request = _as_request(value)
        order = request.get("order") or {}
        order_id = order.get("id") or order.get("source_id") or position
        out.append((order_id, request))
    return out
