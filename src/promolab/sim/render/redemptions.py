"""Redemption, rollback and order records -> the shapes of the redemption answers.

Field order follows the service's examples (docs/stacking.md): a child names
its voucher or tier with a summary, a parent only its order; each running
order carries the stored order's `id` and `source_id` first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._time import iso

if TYPE_CHECKING:
    from ..records import RedeemedOrder, RedemptionRecord, RollbackRecord
    from ..state import State

__all__ = ["render_redemption", "render_rollback", "render_stored_order", "undiscounted"]

_DISCOUNT_FIELDS = (
    "initial_amount", "discount_amount", "items_discount_amount", "total_discount_amount",
    "applied_discount_amount", "items_applied_discount_amount", "total_applied_discount_amount",
)  # fmt: skip


#: What an item loses with its discounts: the amounts, and what UNIT discounts did to it.
_UNIT_ITEM_FIELDS = (
    "discount_amount", "applied_discount_amount", "discount_quantity", "initial_quantity", "initial_amount",
)  # fmt: skip


def _with_order_ids(order: dict[str, Any], stored: RedeemedOrder) -> dict[str, Any]:
    return {"id": stored.id, "source_id": stored.source_id, **order}


def undiscounted(order: dict[str, Any]) -> dict[str, Any]:
    """A wire order without its discounts (what a rollback that cancels the
    order shows): every discount field dropped, totals back to the amounts.
    The free units of UNIT discounts go with them (decision: docs/decisions.md
    § Stacked validations and redemptions): a line they created is dropped,
    a line they topped up is back at its `initial_quantity` and
    `initial_amount`, the order at its `initial_amount`, the amount as sent."""
    out = {k: v for k, v in order.items() if k not in _DISCOUNT_FIELDS}
    if "amount" in out:
        out["amount"] = order.get("initial_amount", out["amount"])
        out["total_amount"] = out["amount"]
    items = []
    for item in order.get("items", ()):
        if item.get("initial_quantity") == 0:
            continue  # a line of free units only
        plain = {k: v for k, v in item.items() if k not in _UNIT_ITEM_FIELDS}
        if "initial_quantity" in item:
            plain["quantity"] = item["initial_quantity"]
            if "initial_amount" in item:
                plain["amount"] = item["initial_amount"]
        if "amount" in plain:
            plain["subtotal_amount"] = plain["amount"]
        items.append(plain)
    if "items" in out:
        out["items"] = items
    return out


def _subject(state: State, related_type: str, related_id: str) -> dict[str, Any]:
    """The `voucher` or `promotion_tier` summary of a child."""
    if related_type == "voucher":
        voucher = state.vouchers[related_id]
        campaign = state.campaigns.get(voucher.campaign_id) if voucher.campaign_id else None
        summary: dict[str, Any] = {"id": voucher.id, "code": voucher.code}
        if voucher.gift is not None:
            summary["gift"] = {"amount": voucher.gift.amount, "balance": voucher.gift.balance,
                               "effect": voucher.gift.effect}
        else:
            discount = voucher.discount or (campaign.discount if campaign is not None else None)
            if discount is not None:
                summary["discount"] = dict(discount)
        summary.update({
            "type": voucher.type, "campaign": campaign.name if campaign else None,
            "campaign_id": voucher.campaign_id, "is_referral_code": voucher.is_referral_code,
        })
        if voucher.holder_id is not None:
            summary["holder_id"] = voucher.holder_id
        return {"voucher": summary}
    if related_type == "promotion_tier":
        tier = state.tiers[related_id]
        return {"promotion_tier": {"id": tier.id, "name": tier.name, "banner": tier.banner,
                                   "campaign": {"id": tier.campaign_id}}}
    return {}


def render_redemption(state: State, record: RedemptionRecord) -> dict[str, Any]:
    stored = state.orders[record.order_id]
    out: dict[str, Any] = {
        "id": record.id, "object": "redemption", "date": iso(record.date), "customer_id": record.customer_id,
        "tracking_id": record.tracking_id, "metadata": dict(record.metadata),
    }
    if record.amount is not None:
        out["amount"] = record.amount
    out.update({
        "redemption": record.parent_id, "result": "SUCCESS", "status": record.status,
        "order": _with_order_ids(record.order, stored), "channel": {"channel_id": None, "channel_type": "API"},
        "related_object_type": record.related_object_type, "related_object_id": record.related_object_id,
    })
    out.update(_subject(state, record.related_object_type, record.related_object_id))
    if record.rollback_id is not None:
        rollback = state.rollbacks[record.rollback_id]
        out["related_redemptions"] = {"rollbacks": [{"id": rollback.id, "date": iso(rollback.date)}]}
    return out


def render_rollback(state: State, record: RollbackRecord) -> dict[str, Any]:
    redemption = state.redemptions[record.redemption_id]
    stored = state.orders[redemption.order_id]
    out: dict[str, Any] = {
        "id": record.id, "object": "redemption_rollback", "date": iso(record.date),
        "customer_id": record.customer_id, "tracking_id": record.tracking_id, "metadata": dict(record.metadata),
    }
    if record.amount is not None:
        out["amount"] = record.amount
    if record.reason is not None:
        out["reason"] = record.reason
    out.update({
        "result": "SUCCESS", "status": "SUCCEEDED", "redemption": record.redemption_id,
        "order": _with_order_ids(record.order, stored),
        "related_object_type": redemption.related_object_type, "related_object_id": redemption.related_object_id,
    })
    out.update(_subject(state, redemption.related_object_type, redemption.related_object_id))
    if record.parent_rollback_id is not None:
        out["parent_rollback_id"] = record.parent_rollback_id
    return out


def render_stored_order(stored: RedeemedOrder) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": stored.id, "source_id": stored.source_id, "status": stored.status,
        "created_at": iso(stored.created_at),
    }
    if stored.updated_at is not None:
        out["updated_at"] = iso(stored.updated_at)
    out.update(stored.priced)
    out["redemptions"] = {k: dict(v) for k, v in stored.redemptions.items()}
    return out
