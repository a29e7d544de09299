"""`compare_stacking_policies`: the same orders and redeemables under several stacking rules."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...engine import Catalogue, PricingContext, StackEntry
from ...models import StackingRules
from ...sim import expand_stack, held, pricing_view, resolve_redeemables, usage_of
from ..orders import CUSTOMER_COLUMN, ORDER_COLUMN, as_requests
from ..sweep import OrderBatch, prepare_orders
from ..sweep.runner import DEFAULT_CHUNK
from .comparison import StackGroup, StackingComparison
from .policy_rules import parse_redeemables, policy_rules
from .reason_table import ReasonTable
from .stack_outputs import StackOutputs
from .stack_plan import plan_stack
from .stack_runner import evaluate_stack_plan

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["compare_stacking_policies", "price_group"]

_ITEM_KEYS = {"product_id", "sku_id", "quantity", "price"}


def _line_items(orders: Any) -> pd.DataFrame:
    """Orders given as requests / order dicts, as a line-items frame."""
    rows: list[dict[str, Any]] = []
    for order_id, request in as_requests(orders):
        customer = request.get("customer") or {}
        source = customer.get("source_id") if isinstance(customer, Mapping) else None
        for item in (request.get("order") or {}).get("items") or []:
            extra = set(item) - _ITEM_KEYS
            if extra:
                raise ValueError(f"order {order_id!r}: item fields {sorted(extra)} are not supported here "
                                 f"(line items carry {sorted(_ITEM_KEYS)})")
            rows.append({ORDER_COLUMN: order_id, **item, CUSTOMER_COLUMN: source})
    frame = pd.DataFrame(rows)
    for column in ("product_id", "sku_id"):
        if column in frame.columns:
            frame[column] = frame[column].astype("string")
    if "price" in frame.columns:
        frame["price"] = frame["price"].astype("Int64")
    frame[CUSTOMER_COLUMN] = frame[CUSTOMER_COLUMN].astype("string")
    return frame


def _groups(frame: pd.DataFrame, lists: Any) -> list[tuple[list[Any], pd.DataFrame]]:
    """Per distinct list of redeemables, the lines of its orders (row order kept)."""
    if isinstance(lists, pd.Series):
        lists = lists.to_dict()
    ids = frame[ORDER_COLUMN]
    keys = ids.map(lambda o: json.dumps(lists[o], sort_keys=True, default=str) if o in lists else None)
    if keys.isna().any():
        missing = ids[keys.isna()].iloc[0]
        raise ValueError(f"redeemables: no list for order {missing!r}")
    out = []
    for key, part in frame.groupby(keys.to_numpy(), sort=False):
        out.append((json.loads(str(key)), part))
    return out


def compare_stacking_policies(
    sim: Simulator,
    orders: Any,
    redeemables: Any,
    policies: Mapping[str, Any] | None = None,
    *,
    customers: Any = None,
    metadata: Mapping[str, Any] | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> StackingComparison:
    """Re-price the same orders with the same redeemables under each policy.

    `orders`: a line-items frame (docs/analysis.md "Orders"), an `OrderBatch`,
    or orders / validation requests (`as_requests`). `redeemables`: a list as
    a stacked request names them (`{"object": "promotion_tier", "id": ...}`,
    `{"object": "voucher", "id": CODE}`, a gift card with
    `"gift": {"credits": n}`) applied to every order, or a mapping / Series
    `order_id -> list` (one list per order). `policies`: name -> the stacking-
    rules settings that differ from the project's (or a `StackingRules`);
    default `policy_rules.DEFAULT_POLICIES`. `customers`: as in `sweep`.
    `metadata`: the request's metadata (`redemption.metadata` rules).

    Redeemables are resolved once against the simulator's state and clock
    (`stack_redeemables`, as a stacked validation does); every order is then
    priced as `evaluate_stack` prices it, in numpy where that is exact, by the
    engine where not (`StackingComparison.paths` says which).
    """
    rules = policy_rules(sim, policies)
    view = pricing_view(sim)
    ctx = PricingContext(sim.now, dict(metadata or {}), usage=usage_of(sim))
    if isinstance(orders, OrderBatch):
        if not isinstance(redeemables, list | tuple):
            raise TypeError("per-order redeemables need a line-items frame, not an OrderBatch")
        parts: list[tuple[list[Any], Any]] = [(list(redeemables), orders)]
        order_ids = orders.order_ids
    else:
        frame = orders if isinstance(orders, pd.DataFrame) else _line_items(orders)
        order_ids = pd.Index(pd.unique(frame[ORDER_COLUMN])) if ORDER_COLUMN in frame.columns else pd.Index([])
        per_order = isinstance(redeemables, Mapping | pd.Series)
        parts = _groups(frame, redeemables) if per_order else [(list(redeemables), frame)]
    table = ReasonTable()
    groups = []
    for listed, part in parts:
        parsed = parse_redeemables(listed, rules)
        entries = [r.entry for r in resolve_redeemables(sim, view, expand_stack(sim, parsed), held(sim))]
        batch = part if isinstance(part, OrderBatch) else prepare_orders(sim, part, customers)
        positions = None if len(parts) == 1 else order_ids.get_indexer(batch.order_ids).astype(np.int64)
        groups.append(price_group(batch, entries, rules, view.catalogue, ctx, table, positions, chunk_size))
    return StackingComparison(order_ids, tuple(rules), groups, table, sim.currency)


def price_group(
    batch: OrderBatch,
    entries: Sequence[StackEntry],
    rules: Mapping[str, StackingRules],
    catalogue: Catalogue,
    ctx: PricingContext,
    table: ReasonTable,
    positions: np.ndarray | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> StackGroup:
    """One list of resolved redeemables on a batch under every policy (the
    part of `compare_stacking_policies` after resolution, which tests drive
    with entries of their own)."""
    plan = plan_stack(entries, rules, batch.keys, batch.customers, ctx, catalogue)
    out = StackOutputs.allocate(batch.n_orders, len(rules), len(entries))
    engine_orders = evaluate_stack_plan(plan, batch, catalogue, ctx, out, table, chunk_size=chunk_size)
    if positions is None:
        positions = np.arange(batch.n_orders, dtype=np.int64)
    return StackGroup(positions, out.amount, tuple(e.object for e in entries), tuple(e.id for e in entries),
                      out, plan.path, plan.reason, engine_orders)
