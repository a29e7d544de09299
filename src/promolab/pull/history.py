"""A pulled project's history: its orders and redemptions since a date, as frames.

The orders become a *line-items frame* (docs/analysis.md: one row per order
line, `placed_at` the order's creation), the shape a sweep, a forecast and a
retro-replay read; the redemptions (parents, children and rollbacks) a frame
of what was actually redeemed on them, one row each, money in `Int64` minor
units. The orders list has no date filter, so it is read newest first down
to `since`; the redemptions list is filtered by `created_at[after]` and read
on past its last page from the last instant read (`Window`).

An orders list that holds more since `since` than its pages reach (10,000)
is read from the redemptions instead: each redemption carries the order it
was made on, items and all, and the orders list holds the orders
redemptions were made on. The service's orders export would reach them too,
but it has no line items, and a retro-replay re-prices the items. Such an
order's `placed_at` is its first redemption's instant and its `status`
empty (a redemption's order shows neither).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..models import read_endpoints as reads
from ..models.redemptions import Redemption, RedemptionRollback, StoredOrder
from ..sim import format_instant
from .errors import PastReach
from .reader import Reader
from .walk import Window, walk

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ORDER_COLUMNS", "REDEMPTION_COLUMNS", "History", "read_history"]

ORDER_COLUMNS = ["order_id", "product_id", "sku_id", "quantity", "price", "customer_source_id", "customer_id",
                 "placed_at", "status"]
REDEMPTION_COLUMNS = ["redemption_id", "object", "parent_id", "rolls_back", "result", "status", "at", "order_id",
                      "customer_id", "redeemable_type", "redeemable_id", "campaign_id", "order_amount",
                      "discount_amount", "gift_amount"]


@dataclass(frozen=True, slots=True)
class History:
    """The orders (line items) and redemptions of a project since `since`."""

    since: datetime
    orders: pd.DataFrame
    redemptions: pd.DataFrame


def _order_rows(order: StoredOrder, source_ids: Mapping[str, str | None]) -> list[dict[str, Any]]:
    customer = order.customer_id
    common = {"order_id": order.id, "customer_source_id": source_ids.get(customer) if customer else None,
              "customer_id": customer, "placed_at": order.created_at, "status": order.status}
    return [{**common, "product_id": item.product_id, "sku_id": item.sku_id, "quantity": item.quantity,
             "price": item.price} for item in order.items]


def _redeemed_order_rows(redemptions: list[Redemption | RedemptionRollback],
                        source_ids: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """The line-items rows of the orders `redemptions` were made on, oldest
    first, each order once: what the orders list would have given past its
    reach, but for the order's status and its own creation instant."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entry in redemptions:
        order_id = (entry.order.model_extra or {}).get("id")
        if isinstance(entry, RedemptionRollback) or not isinstance(order_id, str) or order_id in seen:
            continue
        seen.add(order_id)
        customer = entry.order.customer_id or entry.customer_id
        common = {"order_id": order_id, "customer_source_id": source_ids.get(customer) if customer else None,
                  "customer_id": customer, "placed_at": entry.date, "status": None}
        rows += [{**common, "product_id": item.product_id, "sku_id": item.sku_id, "quantity": item.quantity,
                  "price": item.price} for item in entry.order.items]
    return rows


def _redeemable(entry: Redemption | RedemptionRollback) -> tuple[str, str | None, str | None]:
    """What a redemption redeemed: its type, id (a code, a tier id) and campaign."""
    if entry.voucher is not None:
        return "voucher", entry.voucher.get("code"), entry.voucher.get("campaign_id")
    if entry.promotion_tier is not None:
        campaign = entry.promotion_tier.get("campaign") or {}
        return "promotion_tier", entry.promotion_tier.get("id"), campaign.get("id")
    return entry.related_object_type, entry.related_object_id, None


def _redemption_row(entry: Redemption | RedemptionRollback) -> dict[str, Any]:
    kind, rid, campaign = _redeemable(entry)
    if isinstance(entry, RedemptionRollback):
        parent, rolls_back = entry.parent_rollback_id, entry.redemption
    else:
        parent, rolls_back = entry.redemption, None
    order = entry.order
    return {
        "redemption_id": entry.id, "object": entry.object, "parent_id": parent, "rolls_back": rolls_back,
        "result": entry.result, "status": entry.status,
        "at": entry.date, "order_id": (order.model_extra or {}).get("id"), "customer_id": entry.customer_id,
        "redeemable_type": kind, "redeemable_id": rid, "campaign_id": campaign, "order_amount": order.amount,
        "discount_amount": order.total_applied_discount_amount, "gift_amount": entry.amount,
    }


def read_history(reader: Reader, since: datetime, source_ids: Mapping[str, str | None]) -> History:
    """The orders and redemptions made at or after `since`; `source_ids` maps a
    customer's id to its source id (the orders frame names customers by theirs)."""
    from ..analysis import typed_frame

    redemptions = walk(reader, reads.LIST_REDEMPTIONS, query=(("created_at[after]", format_instant(since)),),
                       window=Window("created_at[after]", lambda entry: entry.date))
    try:
        orders = walk(reader, reads.LIST_ORDERS, query=(("order", "-created_at"),),
                      until=lambda order: order.created_at < since)
    except PastReach:
        rows = _redeemed_order_rows(redemptions, source_ids)
    else:
        orders.reverse()  # oldest first, as the walk of a forecast or a replay reads them
        rows = [row for order in orders for row in _order_rows(order, source_ids)]
    order_frame = typed_frame(rows, columns=ORDER_COLUMNS, ints=("quantity", "price"), times=("placed_at",))
    redemption_frame = typed_frame([_redemption_row(entry) for entry in redemptions], columns=REDEMPTION_COLUMNS,
                                   ints=("order_amount", "discount_amount", "gift_amount"), times=("at",))
    return History(since, order_frame, redemption_frame)

