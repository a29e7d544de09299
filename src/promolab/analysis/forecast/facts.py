"""What a forecast knows of each order besides its lines: when, who, where, how big."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...display import DEFAULT_CURRENCY
from ...engine import UsageLedger, WeekStart, period_key_arrays
from ..orders import (
    CUSTOMER_COLUMN,
    ORDER_COLUMN,
    PRICE_COLUMN,
    PRODUCT_COLUMN,
    QUANTITY_COLUMN,
    SKU_COLUMN,
    LineColumns,
)
from ..sweep import OrderBatch

__all__ = ["OrderFacts"]

#: Columns of the line-items frame that are about lines, not orders.
_LINE_COLUMNS = {ORDER_COLUMN, PRODUCT_COLUMN, SKU_COLUMN, QUANTITY_COLUMN, PRICE_COLUMN, CUSTOMER_COLUMN, "placed_at"}


def order_columns(frame: pd.DataFrame) -> dict[str, Any]:
    """The frame's per-order columns (`channel`, `segment`, ...): each order's
    first line's value, orders in order of first appearance (as `line_columns`)."""
    codes, _ = pd.factorize(frame[ORDER_COLUMN], use_na_sentinel=True)
    first_rows = np.unique(codes, return_index=True)[1]
    return {  # taken before converting: a categorical column stays one byte per order
        str(name): frame[name].iloc[first_rows].array
        for name in frame.columns
        if name not in _LINE_COLUMNS and not str(name).startswith("metadata.")
    }


@dataclass
class OrderFacts:
    """Per order, in input order: the instant (UTC ns), the customer (code
    into `customer_names`, -1 none), its calendar periods in the project's
    time zone, its units, and every per-order column of the frame (`channel`,
    `segment`, ...: the first line's value) for cohorts and rates."""

    order_ids: pd.Index
    placed_at: np.ndarray
    customer: np.ndarray
    customer_names: tuple[str, ...]
    #: The customer budgets count per customer: its code when the simulator
    #: stores the customer (it has an id), else -1, as the redemption
    #: operation records no customer id for a source_id it does not know.
    counted_customer: np.ndarray
    #: Per customer code, the id budgets count it by (the simulator's, so the
    #: totals it has already spent line up); None when it stores no such customer.
    customer_ids: tuple[str | None, ...]
    quantity: np.ndarray
    periods: tuple[np.ndarray, np.ndarray, np.ndarray]
    timezone: str
    week_start: WeekStart
    #: per-order column values (numpy or pandas arrays: a categorical stays one)
    columns: dict[str, Any] = field(default_factory=dict)
    #: the order amount before discounts (set from the sweep, which computes it)
    amount: np.ndarray | None = None
    #: the cost of goods per order in cents (`CostModel.goods`), None when the model has none
    cost_of_goods: np.ndarray | None = None
    #: what every amount is in: the simulator's currency (its scenario's `project.currency`)
    currency: str = DEFAULT_CURRENCY

    @property
    def n(self) -> int:
        return len(self.order_ids)

    @classmethod
    def of(cls, frame: pd.DataFrame, cols: LineColumns, batch: OrderBatch, timezone: str,
           week_start: WeekStart) -> OrderFacts:
        assert cols.placed_at is not None  # checked by the caller, with the user's words
        n = cols.n_orders
        customer = batch.customer if batch.customer is not None else np.full(n, -1, dtype=np.int32)
        columns = order_columns(frame)
        known = np.array([c is not None and c.id is not None for c in batch.customers] + [False], dtype=bool)
        counted = np.where(known[customer], customer, -1).astype(np.int32)
        quantity = np.add.reduceat(cols.quantity, cols.starts[:-1]) if n else np.zeros(0, dtype=np.int64)
        return cls(
            order_ids=cols.order_ids, placed_at=cols.placed_at, customer=customer.astype(np.int32, copy=False),
            customer_names=batch.customer_labels, counted_customer=counted,
            customer_ids=tuple(c.id if c is not None else None for c in batch.customers), quantity=quantity,
            periods=period_key_arrays(cols.placed_at, timezone, week_start), timezone=timezone,
            week_start=week_start, columns=columns,
        )

    def ledger(self, spent: UsageLedger | None = None) -> UsageLedger:
        """The walk's ledger: a copy of `spent` (the simulator's totals so far), else empty."""
        return spent.copy() if spent is not None else UsageLedger(self.timezone, self.week_start)
