"""Bad input of a forecast, refused before anything is computed.

Most of it is refused where the data is read, with the row (the frame's index
label) and the column: `line_columns` (a missing or naive `placed_at`, a
quantity below 1), `build_batch` (an unknown product or SKU without a price),
`CostModel` (a rate outside [0, 1], a negative cost). What is left is the
forecast's own: who the known customers are, when the caller says so.

Without `customers=`, an order's `customer_source_id` the simulator does not
store is a new customer, evaluated as sent (no metadata, no segment), as the
service treats one. A frame of known customers passed as `customers=` turns
that into an error instead: with a customer list at hand, a source_id outside
it is a typo or a join gone wrong, and a forecast over it would be silently
wrong (customer rules and per-customer limits would count a stranger).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..order_fields import row_of
from ..orders import CUSTOMER_COLUMN

__all__ = ["KNOWN_CUSTOMER_COLUMNS", "known_customers"]

#: The columns of a known-customers frame that hold the source_id, tried in this order.
KNOWN_CUSTOMER_COLUMNS = ("source_id", CUSTOMER_COLUMN)


def known_customers(orders: pd.DataFrame, customers: Any) -> Any:
    """`customers` as `sweep` takes it; a DataFrame of known customers is checked
    against the orders' `customer_source_id` column here and then means "each
    order's customer is its column's" (None). Raises ValueError naming the row
    (index label) and the column of the first customer not in the frame."""
    if not isinstance(customers, pd.DataFrame):
        return customers
    column = next((c for c in KNOWN_CUSTOMER_COLUMNS if c in customers.columns), None)
    if column is None:
        raise ValueError("customers: a frame of known customers needs a 'source_id' (or "
                         f"{CUSTOMER_COLUMN!r}) column; its columns: {', '.join(map(str, customers.columns))}")
    if CUSTOMER_COLUMN not in orders.columns:
        raise ValueError(f"customers: known customers given, but the orders have no {CUSTOMER_COLUMN!r} column "
                         "to check them against")
    known = pd.Index(customers[column].dropna().astype(str).unique())
    given = orders[CUSTOMER_COLUMN]
    unknown = (given.notna() & ~given.astype(str).isin(known)).to_numpy(dtype=bool)
    if np.any(unknown):
        row, value = row_of(given, unknown)
        raise ValueError(f"row {row!r}, column {CUSTOMER_COLUMN!r}: customer {str(value)!r} is not among the "
                         f"{len(known)} known customers (customers=)")
    return None
