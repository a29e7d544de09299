"""Who the customer of each order is, for customer rules (`customers=`).

Resolved once in the driver (it needs the simulator), then shipped as plain
data to dask partitions:

- `None`: the orders' `customer_source_id` column when there is one, else no
  customer;
- a source_id string, or a customer object (a mapping with `source_id` or
  `id`, optionally `metadata` laid over the stored customer's): that customer
  for every order;
- a mapping or Series `order_id -> source_id | customer object` (orders not
  in it have no customer).

A stored customer is seen with its metadata and segments; an unknown source_id
is evaluated as sent (no metadata, no segment), exactly as validation does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...engine import CustomerContext
from ...sim import PricingView, customer_context

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["CustomerTable", "customer_table"]


def _label(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return str(value.get("source_id") or value.get("id") or json.dumps(value, sort_keys=True, default=str))
    return str(value)


def _given(value: Any) -> dict[str, Any]:
    return {"source_id": value} if isinstance(value, str) else dict(value)


def _is_customer_object(value: Any) -> bool:
    return isinstance(value, Mapping) and ("source_id" in value or "id" in value) and not any(
        isinstance(v, Mapping) for k, v in value.items() if k != "metadata"
    )


@dataclass(frozen=True)
class CustomerTable:
    mode: str  # "none" | "single" | "column" | "mapping"
    single: CustomerContext | None = None
    single_label: str = ""
    #: column mode: stored customers by source_id
    by_source: Mapping[str, CustomerContext] = field(default_factory=dict)
    #: mapping mode: order id -> label, label -> context
    order_label: Mapping[Hashable, str] = field(default_factory=dict)
    contexts: Mapping[str, CustomerContext | None] = field(default_factory=dict)

    def resolve(
        self, order_ids: pd.Index, column: np.ndarray | None, column_names: list[str]
    ) -> tuple[np.ndarray | None, tuple[CustomerContext | None, ...], tuple[str, ...]]:
        """(per-order codes or None, contexts, labels) for a batch."""
        n = len(order_ids)
        if self.mode == "single":
            return np.zeros(n, dtype=np.int32), (self.single,), (self.single_label,)
        if self.mode == "column":
            if column is None:
                return None, (), ()
            # Pricing reads a customer's id, metadata and segments, never its
            # source_id: every customer the simulator does not store prices as
            # one context (a month of orders has hundreds of thousands).
            stranger = CustomerContext(metadata={})
            known = self.by_source
            contexts = tuple(known.get(name) or stranger for name in column_names)
            return column.astype(np.int32, copy=False), contexts, tuple(column_names)
        if self.mode == "mapping":
            labels = pd.Series(order_ids.map(lambda o: self.order_label.get(o)), dtype=object)
            codes, uniques = pd.factorize(labels, use_na_sentinel=True)
            names = tuple(str(u) for u in uniques)
            return codes.astype(np.int32), tuple(self.contexts[u] for u in names), names
        return None, (), ()


def customer_table(sim: Simulator, view: PricingView, customers: Any) -> CustomerTable:
    if customers is None:
        by_source = {}
        for record in sim.state.customers.values():
            if record.source_id is not None:
                context, _ = customer_context(sim, view, {"source_id": record.source_id})
                if context is not None:
                    by_source[record.source_id] = context
        return CustomerTable("column", by_source=by_source)
    if isinstance(customers, str) or _is_customer_object(customers):
        context, _ = customer_context(sim, view, _given(customers))
        return CustomerTable("single", single=context, single_label=_label(customers))
    if isinstance(customers, pd.Series):
        customers = customers.to_dict()
    if not isinstance(customers, Mapping):
        raise TypeError("customers must be a source_id, a customer object, or a mapping order_id -> customer")
    order_label: dict[Hashable, str] = {}
    contexts: dict[str, CustomerContext | None] = {}
    for order_id, value in customers.items():
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        label = _label(value)
        order_label[order_id] = label
        if label not in contexts:
            contexts[label], _ = customer_context(sim, view, _given(value))
    return CustomerTable("mapping", order_label=order_label, contexts=contexts)
