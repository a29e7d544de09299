"""Comparing tiers on a handful of orders, with the engine (reasons included).

`compare_tiers` prices every active tier on every order with the pricing
engine (`price_normalized`, as the validate operation does), so it also says
WHY a tier did not apply, which the validation response cannot (it lists valid
tiers only). For valid tiers the numbers are the ones `validate_promotions`
returns (a differential test holds this). For thousands of orders and more,
use `sweep` (same numbers, vectorized).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..engine import PricingContext, PricingInputError, normalize_order, price_normalized
from ..sim import customer_context, parse_instant, pricing_view
from .figures import figures
from .orders import as_requests
from .sweep import REASONS, select_tiers

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["COMPARE_COLUMNS", "best_tier", "compare_tiers", "discount_matrix", "pivot_tiers"]

COMPARE_COLUMNS = [
    "order_id", "customer_source_id", "tier_id", "tier_name", "campaign_id", "valid", "discount_amount",
    "total_amount", "amount", "reason_key", "reason",
]


def _customer_for(customers: Any, order_id: Hashable, request: Mapping[str, Any]) -> list[Any]:
    """The customer(s) an order is priced for (a list: several = cross product)."""
    if customers is None:
        return [request.get("customer")]
    if isinstance(customers, str) or (isinstance(customers, Mapping) and ("source_id" in customers or "id" in customers)):
        return [customers]
    if isinstance(customers, list | tuple):
        return list(customers)
    if isinstance(customers, pd.Series):
        customers = customers.to_dict()
    if isinstance(customers, Mapping):
        return [customers.get(order_id)]
    raise TypeError("customers: a source_id, a customer object, a list of them, or a mapping order_id -> customer")


def compare_tiers(
    sim: Simulator,
    orders: Any,
    customers: Any = None,
    *,
    tiers: Any = None,
    at: str | datetime | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per (order, customer, tier): valid, amounts and the reason a tier did not apply.

    `orders`: anything `orders.as_requests` takes (a line-items frame, a
    mapping of orders or requests, a list). `customers`: None (each request's
    own customer), a source_id / customer object for every order, a LIST of
    them (every order is priced for each: a cross product), or a mapping
    `order_id -> customer`. `tiers`: ids/specs (default every active tier).
    Columns: `COMPARE_COLUMNS` (docs/analysis.md).
    """
    view = pricing_view(sim)
    chosen = select_tiers(view, tiers)
    now = parse_instant(at) if at is not None else sim.now
    rows: list[dict[str, Any]] = []
    for order_id, request in as_requests(orders):
        for given in _customer_for(customers, order_id, request):
            if isinstance(given, str):
                given = {"source_id": given}
            customer, _ = customer_context(sim, view, given)
            try:
                order = normalize_order(view.catalogue, request.get("order"), customer.id if customer else None)
            except PricingInputError as exc:
                raise ValueError(f"order {order_id!r}: {exc.field}: {exc.message}") from None
            ctx = PricingContext(now=now, redemption_metadata={**(request.get("metadata") or {}), **(metadata or {})})
            label = (given or {}).get("source_id") or (given or {}).get("id")
            for tier in chosen:
                outcome = price_normalized(view.catalogue, tier, order, customer, ctx)
                valid = outcome.valid
                rows.append({
                    "order_id": order_id, "customer_source_id": label, "tier_id": tier.id,
                    "tier_name": tier.spec.name, "campaign_id": tier.spec.campaign.id, "valid": valid,
                    "discount_amount": outcome.discount_amount if valid else 0,
                    "total_amount": outcome.total_amount if valid else order.amount,
                    "amount": order.amount, "reason_key": outcome.reason_key, "reason": outcome.reason,
                })
    frame = pd.DataFrame(rows, columns=COMPARE_COLUMNS)
    order_ids = list(dict.fromkeys(frame["order_id"].tolist()))
    frame["order_id"] = pd.Categorical(frame["order_id"], categories=order_ids)
    frame["tier_id"] = pd.Categorical(frame["tier_id"], categories=[t.id for t in chosen])
    for col in ("customer_source_id", "tier_name", "campaign_id", "reason"):
        frame[col] = frame[col].astype("string")
    frame["valid"] = frame["valid"].astype(bool)
    for col in ("discount_amount", "total_amount", "amount"):
        frame[col] = pd.array(frame[col].tolist(), dtype="Int64")
    frame["reason_key"] = pd.Categorical(frame["reason_key"], categories=list(REASONS))
    return figures(frame, sim.currency)


Criterion = str | Callable[[pd.DataFrame], Any]


def _order_keys(frame: pd.DataFrame) -> list[str]:
    """`order_id`, plus `customer_source_id` when orders were priced for several customers."""
    if "customer_source_id" in frame.columns and frame.duplicated(["order_id", "tier_id"]).any():
        return ["order_id", "customer_source_id"]
    return ["order_id"]


def best_tier(frame: pd.DataFrame, by: Criterion = "discount") -> pd.DataFrame:
    """Per order (and customer, when the frame has several), the best valid tier.

    `by`: "discount" (highest `discount_amount`, the default), "total" (lowest
    `total_amount`), or a callable `frame -> scores` (higher wins). Ties go to
    the first tier in response order. Works on `compare_tiers` and sweep
    frames. An order where no tier applies keeps one row with `valid` False
    and `tier_id` NA.
    """
    if callable(by):
        score = pd.Series(np.asarray(by(frame), dtype="float64"), index=frame.index)
    elif by == "discount":
        score = frame["discount_amount"].astype("Float64").fillna(0).astype("float64")
    elif by == "total":
        score = -frame["total_amount"].astype("float64")
    else:
        raise ValueError("by must be 'discount', 'total' or a callable")
    keys = _order_keys(frame)
    score = score.where(frame["valid"].to_numpy(), -np.inf)
    work = frame.assign(_score=score.to_numpy(), _pos=np.arange(len(frame)))
    work = work.sort_values(keys + ["_score", "_pos"], ascending=[True] * len(keys) + [False, True], kind="stable")
    best = work.drop_duplicates(keys, keep="first").sort_values("_pos")
    best = best.drop(columns=["_score", "_pos"]).reset_index(drop=True)
    lost = ~best["valid"].to_numpy()
    if lost.any():
        best.loc[lost, "tier_id"] = np.nan
        if "reason_key" in best.columns:
            best.loc[lost, "reason_key"] = np.nan
        for col in ("tier_name", "campaign_id", "reason"):
            if col in best.columns:
                best.loc[lost, col] = pd.NA
        if "amount" in best.columns:
            best.loc[lost, "total_amount"] = best.loc[lost, "amount"]
    return best


def pivot_tiers(frame: pd.DataFrame, value: str = "discount_amount") -> pd.DataFrame:
    """Orders x tiers of `value` (e.g. "discount_amount", "total_amount", "valid")."""
    index = _order_keys(frame)
    table = frame.pivot_table(index=index, columns="tier_id", values=value, aggfunc="first", observed=True,
                              sort=False, dropna=False)
    table.columns = table.columns.astype(str)
    if value != "valid":
        table = table.astype("Int64")
    else:
        table = table.astype(bool)
    table.attrs = dict(frame.attrs)  # the currency of the amounts
    return table


def discount_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """Orders x tiers of the discount (0 where a tier does not apply)."""
    return pivot_tiers(frame, "discount_amount")
