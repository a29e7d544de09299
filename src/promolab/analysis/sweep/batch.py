"""Many orders as columns: the input of the sweep kernels.

An `OrderBatch` holds the line items of N orders as flat arrays (lines of one
order contiguous, in the frame's row order) plus a *key table*: every distinct
(product_id, sku_id) pair of the batch resolved ONCE through the engine's own
`normalize_order`, so catalogue lookups, collection membership and metadata are
per key (a few dozen), never per line. It also numbers the distinct lines
(key, quantity, given price: `lineset.distinct_lines`) so per-line arithmetic
runs once per distinct line. A `Chunk` is a slice of orders with what every
tier reads: its line subjects and their codes on a padded grid (per-order
sums), the order amounts, and, built on first use, flat per-line arrays for the
kernels that need each line in its order (budgets on units, UNIT lines).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ...engine import Catalogue, CustomerContext, Line, PricingInputError, normalize_order
from ..order_fields import plain
from ..orders import NO_PRICE, PRODUCT_COLUMN, SKU_COLUMN, LineColumns
from .lineset import LineSet, chunk_lines, distinct_lines
from .padded import PaddedCodes, pad_codes

__all__ = ["Chunk", "KeyTable", "OrderBatch", "base_table", "build_batch"]


@dataclass(frozen=True)
class KeyTable:
    """Distinct (product_id, sku_id) pairs, resolved against the catalogue."""

    product_ids: tuple[str | None, ...]
    sku_ids: tuple[str | None, ...]
    #: The engine's Line for a one-unit item of this key (identity, collections, metadata).
    lines: tuple[Line, ...]
    #: Catalogue unit price (SKU's, else product's), -1 when none.
    price: np.ndarray
    #: Whether the catalogue knows the product/SKU.
    known: np.ndarray

    def __len__(self) -> int:
        return len(self.lines)


def resolve_keys(
    catalogue: Catalogue, product_ids: Sequence[str | None], sku_ids: Sequence[str | None],
    where: Callable[[int], str] | None = None,
) -> KeyTable:
    """`where(k)`: where key k first occurs ("row 3, column 'sku_id'"), for the
    message of a key the engine refuses; without it the message names the item."""
    lines: list[Line] = []
    prices = np.full(len(product_ids), -1, dtype=np.int64)
    known = np.zeros(len(product_ids), dtype=bool)
    for k, (pid, sid) in enumerate(zip(product_ids, sku_ids)):
        item: dict[str, Any] = {"quantity": 1, "price": 0}
        if pid is not None:
            item["product_id"] = pid
        if sid is not None:
            item["sku_id"] = sid
        try:
            line = normalize_order(catalogue, {"items": [item]}).lines[0]
        except PricingInputError as exc:
            place = where(k) if where is not None else f"item product_id={pid!r} sku_id={sid!r}"
            raise ValueError(f"{place}: {exc.message}") from None
        lines.append(line)
        product, sku = catalogue.resolve_item(product_id=pid, sku_id=sid)
        if sku is not None and sku.price is not None:
            prices[k] = sku.price
        elif product is not None and product.price is not None:
            prices[k] = product.price
        known[k] = sku is not None if sid is not None else product is not None
    return KeyTable(tuple(product_ids), tuple(sku_ids), tuple(lines), prices, known)


@dataclass(frozen=True)
class OrderBatch:
    """N orders' lines as flat arrays; `starts[i]:starts[i+1]` are order i's lines."""

    order_ids: pd.Index
    starts: np.ndarray
    key: np.ndarray
    quantity: np.ndarray
    #: Unit price given with the line, -1 where none (None: no price column).
    price: np.ndarray | None
    keys: KeyTable
    #: Per-order customer code into `customers` (-1 = no customer); None = nobody.
    customer: np.ndarray | None
    customers: tuple[CustomerContext | None, ...] = ()
    customer_labels: tuple[str, ...] = ()
    #: Per line, its code into `distinct` (None: too many distinct lines to pay off).
    line_code: np.ndarray | None = None
    distinct: LineSet | None = None
    #: The line codes on a padded grid, in a compact dtype (with `line_code`).
    grid: PaddedCodes | None = None
    #: Per order, when it was placed (int64 UTC ns); None: the orders are not dated.
    placed_at: np.ndarray | None = None
    #: Per-order codes into `metadata_sets` (the orders' own request metadata); None: none.
    metadata_code: np.ndarray | None = None
    metadata_sets: tuple[dict[str, Any], ...] = ()

    @property
    def n_orders(self) -> int:
        return len(self.order_ids)

    @property
    def n_lines(self) -> int:
        return int(self.starts[-1])

    def slice(self, a: int, b: int) -> OrderBatch:
        """Orders a..b-1 as a batch sharing the key table (array views, no copy)."""
        s0, s1 = int(self.starts[a]), int(self.starts[b])
        return OrderBatch(
            order_ids=self.order_ids[a:b],
            starts=self.starts[a : b + 1] - s0,
            key=self.key[s0:s1],
            quantity=self.quantity[s0:s1],
            price=self.price[s0:s1] if self.price is not None else None,
            keys=self.keys,
            customer=self.customer[a:b] if self.customer is not None else None,
            customers=self.customers,
            customer_labels=self.customer_labels,
            line_code=self.line_code[s0:s1] if self.line_code is not None else None,
            distinct=self.distinct,
            grid=self.grid.window(a, b, working=False) if self.grid is not None else None,
            placed_at=self.placed_at[a:b] if self.placed_at is not None else None,
            metadata_code=self.metadata_code[a:b] if self.metadata_code is not None else None,
            metadata_sets=self.metadata_sets,
        )

    def items(self, i: int) -> list[dict[str, Any]]:
        """Order i's items as the request a client would send (for the engine path)."""
        out = []
        keys = self.keys
        for j in range(int(self.starts[i]), int(self.starts[i + 1])):
            k = int(self.key[j])
            item: dict[str, Any] = {}
            if keys.product_ids[k] is not None:
                item["product_id"] = keys.product_ids[k]
            if keys.sku_ids[k] is not None:
                item["sku_id"] = keys.sku_ids[k]
            item["quantity"] = int(self.quantity[j])
            if self.price is not None and self.price[j] != NO_PRICE:
                item["price"] = int(self.price[j])
            out.append(item)
        return out

    def customer_context(self, i: int) -> CustomerContext | None:
        if self.customer is None:
            return None
        code = int(self.customer[i])
        return self.customers[code] if code >= 0 else None


def _key_codes(cols: LineColumns) -> tuple[np.ndarray, list[str | None], list[str | None]]:
    """Combine product and SKU codes into one key code per line."""
    if cols.sku is None:
        assert cols.product is not None
        return cols.product.astype(np.int32), list(cols.product_names), [None] * len(cols.product_names)
    if cols.product is None:
        return cols.sku.astype(np.int32), [None] * len(cols.sku_names), list(cols.sku_names)
    width = len(cols.sku_names) + 1
    combined = (cols.product + 1) * width + (cols.sku + 1)
    codes, uniques = pd.factorize(combined)
    pids: list[str | None] = []
    sids: list[str | None] = []
    for value in uniques.tolist():
        p, s = divmod(int(value), width)
        pids.append(cols.product_names[p - 1] if p > 0 else None)
        sids.append(cols.sku_names[s - 1] if s > 0 else None)
    return codes.astype(np.int32), pids, sids


def build_batch(
    cols: LineColumns,
    catalogue: Catalogue,
    customer: np.ndarray | None = None,
    customers: Sequence[CustomerContext | None] = (),
    customer_labels: Sequence[str] = (),
) -> OrderBatch:
    """An `OrderBatch` from normalised line columns; raises ValueError on an item
    the engine would refuse (unknown product without a price, SKU/product mismatch)."""
    key, pids, sids = _key_codes(cols)

    def at_line(j: int) -> str:  # the row label, as the user's frame has it (not a position)
        column = SKU_COLUMN if sids[int(key[j])] is not None else PRODUCT_COLUMN
        return f"row {cols.row_label(j)!r}, column {column!r}"

    keys = resolve_keys(catalogue, pids, sids, lambda k: at_line(int(np.flatnonzero(key == k)[0])))
    no_price = (keys.price < 0) & ~keys.known
    if no_price.any():
        missing = no_price[key]
        if cols.price is not None:
            missing &= cols.price == NO_PRICE
        if missing.any():
            j = int(np.flatnonzero(missing)[0])
            order = int(np.searchsorted(cols.starts, j, side="right") - 1)
            k = int(key[j])
            raise ValueError(
                f"{at_line(j)}: {sids[k] or pids[k]} is not in the catalogue "
                f"and the line has no price (order {plain(cols.order_ids[order])!r})"
            )
    found = distinct_lines(key, cols.quantity, cols.price, keys.price)
    grid = pad_codes(found[0], cols.starts, found[1].size, compact=True) if found is not None else None
    return OrderBatch(
        order_ids=cols.order_ids,
        starts=cols.starts,
        key=key,
        quantity=cols.quantity,
        price=cols.price,
        keys=keys,
        customer=customer,
        customers=tuple(customers),
        customer_labels=tuple(customer_labels),
        line_code=found[0] if found is not None else None,
        distinct=found[1] if found is not None else None,
        grid=grid,
        placed_at=cols.placed_at,
        metadata_code=cols.metadata_code,
        metadata_sets=cols.metadata_sets,
    )


#: Per-order sums stay exact in int64 below this (amounts, quantities).
_SAFE = 1 << 62


def base_table(lines: LineSet) -> np.ndarray:
    """[amount, quantity] per subject, stacked for one gather per line (zero "no line" row)."""
    table = np.zeros((lines.size + 1, 2), dtype=np.int64)
    table[:-1, 0] = lines.amount
    table[:-1, 1] = lines.quantity
    return table


class Chunk:
    """Orders a..b of a batch, with what every tier kernel reads.

    `lines`: the line subjects (the batch's distinct lines when `distinct` is
    given and the batch has codes, else the chunk's own lines) and `codes`,
    their padded grid, for per-order sums (`sum_lines`, `count_lines`,
    `any_lines`, `all_lines`) of per-subject tables. Per order: `amount` (the
    order amount, as no order-level amount is given), `total_quantity`,
    `n_lines`, `customer`. `overflow`: some amount may leave int64 (every
    tier takes the engine path). Per line, on first use: `price`, `has_price`,
    `line_amount`, `order` (chunk-local order index).
    """

    def __init__(self, batch: OrderBatch, a: int, b: int, distinct: LineSet | None = None, *,
                 stack: Callable[[LineSet], np.ndarray] | None = None, width: int | None = None) -> None:
        """`stack(lines)`: the (U + 1, 2 + C) table [amount, quantity, *columns] summed per
        order in one pass (default: `base_table`); `width`: see `PaddedCodes`."""
        self.batch = batch
        self.a, self.b, self.n = a, b, b - a
        #: Some of another chunk's orders (`subset`): its `a`/`b` are that chunk's,
        #: so whatever maps a position to the batch by them must not run on it.
        self.is_subset = False
        s0, s1 = int(batch.starts[a]), int(batch.starts[b])
        self.starts = batch.starts[a : b + 1] - s0
        self.key = batch.key[s0:s1]
        self.quantity = batch.quantity[s0:s1]
        self.n_lines = np.diff(self.starts)
        longest = int(self.n_lines.max()) if self.n else 0
        self._code: np.ndarray | None = None
        if distinct is not None and batch.line_code is not None:
            self.lines = distinct
            self._code = batch.line_code[s0:s1]
            if batch.grid is not None and width is None:
                self.codes = batch.grid.window(a, b, longest)
            else:
                self.codes = pad_codes(self._code, self.starts, distinct.size, width)
        else:
            given = batch.price[s0:s1] if batch.price is not None else None
            self.lines = chunk_lines(self.key, self.quantity, given, batch.keys.price)
            self.codes = pad_codes(np.arange(s1 - s0, dtype=np.intp), self.starts, self.lines.size, width)
        stack = stack or base_table
        self.customer = batch.customer[a:b] if batch.customer is not None else None
        #: Per-order codes into the batch's `metadata_sets` (None: the orders carry none).
        self.metadata_code = batch.metadata_code[a:b] if batch.metadata_code is not None else None
        #: Rule masks of this chunk by rule (tiers with the same rule share one).
        self.masks: dict[str, np.ndarray] = {}
        top = int(self.lines.amount.max()) if self.lines.size else 0
        top_quantity = int(self.lines.quantity.max()) if self.lines.size else 0
        self.overflow = self.lines.overflow or max(top, top_quantity) * longest >= _SAFE
        sums = np.ascontiguousarray(self.codes.sums(stack(self.lines)).T)
        self.amount, self.total_quantity = sums[0], sums[1]
        #: What `order.initial_amount` reads: the amount as sent (a stacked
        #: redeemable's rules read the running total as `amount`).
        self.initial_amount = self.amount
        #: What `order.total_amount` reads, set by the caller that compiles it
        #: (a stack's: the running total less the redeemable's own step).
        self.total_amount: np.ndarray | None = None
        #: Column sums of the rest of the stacked table, one row per column.
        self.column_sums = sums[2:]
        #: float64 segment sums (`segment_sum`) are exact below 2**53
        self.exact = bool(self.n == 0 or (int(self.amount.max()) < 2**52 and int(self.total_quantity.max()) < 2**52))

    def subset(self, at: np.ndarray) -> Chunk | None:
        """Orders `at` (ascending chunk positions) as a chunk of their own, for a
        tier that only needs them (its campaign runs for few orders of a dated
        sweep): every rule and kernel is per order, so each of these orders
        gets the same answer here. Its `a`/`b`/`batch` are the parent's (the
        engine path, which reads them, is not run on a subset). None when the
        chunk's lines are its own or some order passes the grid's width."""
        if self._code is None or self.codes.extra_order is not None:
            return None
        sub = Chunk.__new__(Chunk)
        sub.batch, sub.a, sub.b, sub.n = self.batch, self.a, self.b, int(at.size)
        sub.is_subset = True
        n_lines = self.n_lines.take(at)
        sub.n_lines = n_lines
        sub.starts = np.zeros(at.size + 1, dtype=self.starts.dtype)
        np.cumsum(n_lines, out=sub.starts[1:])
        first = self.starts.take(at)
        lines_at = np.repeat(first - sub.starts[:-1], n_lines) + np.arange(int(sub.starts[-1]))
        sub.key, sub.quantity, sub._code = self.key.take(lines_at), self.quantity.take(lines_at), self._code.take(lines_at)
        sub.lines = self.lines
        sub.codes = PaddedCodes(self.codes.grid.take(at, axis=1))
        sub.customer = self.customer.take(at) if self.customer is not None else None
        sub.metadata_code = self.metadata_code.take(at) if self.metadata_code is not None else None
        sub.masks = {}
        sub.overflow = self.overflow
        sub.amount, sub.total_quantity = self.amount.take(at), self.total_quantity.take(at)
        sub.initial_amount = sub.amount
        sub.total_amount = self.total_amount.take(at) if self.total_amount is not None else None
        sub.column_sums = self.column_sums.take(at, axis=1)
        sub.exact = self.exact
        return sub

    # -- per-order reductions of per-subject tables ---------------------------------------
    def sum_lines(self, values: np.ndarray) -> np.ndarray:
        """Per-order sums of a per-subject int table."""
        return self.codes.sums(self.lines.table(values))

    def count_lines(self, mask: np.ndarray) -> np.ndarray:
        return self.codes.sums(self.lines.table(mask, np.int32))

    def any_lines(self, mask: np.ndarray) -> np.ndarray:
        return self.count_lines(mask) > 0

    def all_lines(self, mask: np.ndarray) -> np.ndarray:
        return self.count_lines(mask) == self.n_lines

    # -- flat per-line arrays (kernels that follow lines in order) -------------------------
    def _per_line(self, values: np.ndarray) -> np.ndarray:
        return values if self._code is None else values.take(self._code)

    @cached_property
    def price(self) -> np.ndarray:
        return self._per_line(self.lines.price)

    @cached_property
    def has_price(self) -> np.ndarray:
        return self._per_line(self.lines.has_price)

    @cached_property
    def line_amount(self) -> np.ndarray:
        return self._per_line(self.lines.amount)

    @cached_property
    def order(self) -> np.ndarray:
        return np.repeat(np.arange(self.n, dtype=np.int64), self.n_lines)

    def lines_at(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(price, has_price, line amount) of the lines at positions `at` (a kernel
        that follows a few lines gathers only those)."""
        code = at if self._code is None else self._code.take(at)
        return self.lines.price.take(code), self.lines.has_price.take(code), self.lines.amount.take(code)

    def segment_sum(self, values: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
        """Per-order sums of a per-line int array (`order`: the order of each
        value, default every line's), exact: bincount adds in float64, exact
        for integers below 2**53, and the chunk guard keeps every order's
        amount (the largest sum taken) below that."""
        owner = self.order if order is None else order
        return np.bincount(owner, weights=values, minlength=self.n).astype(np.int64)
