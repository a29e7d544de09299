"""The rows of an export: each exported object's documented fields, one dict per object.

Each row is read from the answer the simulator already gives for the object
(the voucher object, a redemption as listed, a customer's profile, an order
as listed, a gift transaction), so an export says what the reads say: one
implementation of each rule. A field the simulator does not keep (a
customer's phone, a voucher's validation rules) is None, an empty cell.
Money is integer minor units and points integers, as the API gives them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..export_csv import VALUE_FIELD, Cell, Row
from ..render._time import iso
from ..render.redemptions import render_redemption, render_rollback, render_stored_order
from ..render.vouchers import first_category, render_voucher, render_voucher_transaction
from .customer_profiles import profiles

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["ROWS"]


def _at(body: Mapping[str, Any] | None, *path: str) -> Any:
    """`body[a][b]...`, None where any step is missing or null."""
    value: Any = body
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _voucher_value(wire: Mapping[str, Any]) -> Cell:
    """The one figure the service's `value` column holds: the discount's
    amount, percent, units or fixed price; a gift card's amount; a loyalty card's points."""
    value: Cell = None
    discount = wire.get("discount") or {}
    field = VALUE_FIELD.get(str(discount.get("type")))
    if wire.get("gift") is not None:
        value = _at(wire, "gift", "amount")
    elif wire.get("loyalty_card") is not None:
        value = _at(wire, "loyalty_card", "points")
    elif field is not None:
        value = discount.get(field)
    return value


def voucher_rows(sim: Simulator) -> list[Row]:
    state = sim.state
    rows: list[Row] = []
    for voucher in state.vouchers.values():
        campaign = state.campaigns.get(voucher.campaign_id) if voucher.campaign_id else None
        wire = render_voucher(voucher, campaign, seed=sim.seed, category=first_category(state, campaign)).model_dump(
            mode="json", by_alias=True)
        discount = wire.get("discount") or {}
        holder = state.customers.get(voucher.holder_id) if voucher.holder_id else None
        unit = discount.get("type") == "UNIT"
        rows.append({
            "code": wire.get("code"), "voucher_type": wire.get("type"), "value": _voucher_value(wire),
            "formula": discount.get("amount_off_formula") or discount.get("percent_off_formula"),
            "discount_type": discount.get("type"), "campaign": wire.get("campaign"), "category": wire.get("category"),
            "start_date": wire.get("start_date"), "expiration_date": wire.get("expiration_date"),
            "gift_balance": _at(wire, "gift", "balance"), "loyalty_balance": _at(wire, "loyalty_card", "balance"),
            "redemption_quantity": _at(wire, "redemption", "quantity"),
            "redemption_count": _at(wire, "redemption", "redeemed_quantity"), "active": wire.get("active"),
            "qr_code": _at(wire, "assets", "qr", "url"), "bar_code": _at(wire, "assets", "barcode", "url"),
            "metadata": wire.get("metadata"), "id": wire.get("id"), "is_referral_code": wire.get("is_referral_code"),
            "created_at": wire.get("created_at"), "updated_at": wire.get("updated_at"),
            "validity_timeframe_interval": _at(wire, "validity_timeframe", "interval"),
            "validity_timeframe_duration": _at(wire, "validity_timeframe", "duration"),
            "validity_day_of_week": wire.get("validity_day_of_week"),
            "discount_amount_limit": discount.get("amount_limit"), "campaign_id": wire.get("campaign_id"),
            "additional_info": wire.get("additional_info"), "customer_id": wire.get("holder_id"),
            "discount_effect": None if unit else discount.get("effect"),
            "discount_unit_type": discount.get("unit_type"), "discount_unit_effect": discount.get("effect") if unit else None,
            "validation_rules_id": None, "customer_source_id": holder.source_id if holder is not None else None,
        })
    return rows


def redemption_rows(sim: Simulator) -> list[Row]:
    """Redemptions and rollbacks, in the order they were made (as the list)."""
    state = sim.state
    bodies = [render_redemption(state, r) for r in state.redemptions.values()]
    bodies += [render_rollback(state, b) for b in state.rollbacks.values()]
    rows: list[Row] = []
    for wire in sorted(bodies, key=lambda body: str(body["date"])):
        customer = state.customers.get(str(wire.get("customer_id")))
        tier = wire.get("promotion_tier")
        campaign_id = _at(wire, "voucher", "campaign_id") or _at(tier, "campaign", "id")
        campaign = state.campaigns.get(campaign_id) if campaign_id else None
        order = wire.get("order") or {}
        rows.append({
            "id": wire.get("id"), "object": wire.get("object"), "date": wire.get("date"),
            "voucher_code": _at(wire, "voucher", "code"), "campaign": campaign.name if campaign else None,
            "promotion_tier_id": _at(tier, "id"), "customer_id": wire.get("customer_id"),
            "customer_source_id": customer.source_id if customer else None,
            "customer_name": customer.name if customer else None, "tracking_id": wire.get("tracking_id"),
            "order_id": order.get("id"), "order_amount": order.get("amount"),
            "gift_amount": wire.get("amount") if wire.get("voucher", {}).get("gift") else None,
            "loyalty_points": None, "result": wire.get("result"), "failure_code": None, "failure_message": None,
            "metadata": wire.get("metadata"),
            # not columns: what the filters read
            "campaign_id": campaign_id, "status": wire.get("status"), "related_object_id": wire.get("related_object_id"),
            "parent_redemption_id": wire.get("redemption"),
        })
    return rows


def customer_rows(sim: Simulator) -> list[Row]:
    state = sim.state
    rows: list[Row] = []
    for wire in profiles(state, list(state.customers.values())):
        address = wire.get("address")
        redemptions = _at(wire, "summary", "redemptions") or {}
        orders = _at(wire, "summary", "orders") or {}
        row: Row = {"name": wire.get("name"), "id": wire.get("id"), "description": None, "email": wire.get("email"),
                    "source_id": wire.get("source_id"), "created_at": wire.get("created_at")}
        for part in ("city", "state", "line_1", "line_2", "country", "postal_code"):
            row[f"address_{part}"] = _at(address, part)
        for total in ("redeemed", "failed", "succeeded", "rolled_back", "rollback_failed", "rollback_succeeded"):
            row[f"redemptions_total_{total}"] = redemptions.get(f"total_{total}")
        for figure in ("total_amount", "total_count", "average_amount", "last_order_amount", "last_order_date"):
            row[f"orders_{figure}"] = orders.get(figure)
        row.update({
            "loyalty_points": _at(wire, "loyalty", "points"),
            "loyalty_referred_customers": _at(wire, "loyalty", "referred_customers"),
            "updated_at": wire.get("updated_at"), "phone": None, "birthday": None, "metadata": wire.get("metadata"),
            "birthdate": None,
        })
        rows.append(row)
    return rows


_ORDER_FIELDS = ("id", "source_id", "created_at", "updated_at", "status", "amount", "discount_amount",
                 "items_discount_amount", "total_discount_amount", "total_amount")


def order_rows(sim: Simulator) -> list[Row]:
    rows: list[Row] = []
    for stored in sim.state.orders.values():
        wire = render_stored_order(stored)
        row: Row = {name: wire.get(name) for name in _ORDER_FIELDS}
        row.update({"customer_id": stored.customer_id, "referrer_id": wire.get("referrer_id"),
                    "metadata": wire.get("metadata") or {}})
        rows.append(row)
    return rows


def voucher_transaction_rows(sim: Simulator) -> list[Row]:
    rows: list[Row] = []
    for record in sim.state.voucher_transactions.values():
        wire = render_voucher_transaction(record)
        rows.append({
            "id": wire.get("id"), "campaign_id": wire.get("campaign_id") or None, "voucher_id": wire.get("voucher_id"),
            "type": wire.get("type"), "source_id": wire.get("source_id"), "reason": wire.get("reason"), "source": wire.get("source"),
            "balance": _at(record.details, "balance", "balance"), "amount": record.amount,
            "related_transaction_id": wire.get("related_transaction_id"), "created_at": iso(record.created_at),
            "details": wire.get("details"),
        })
    return rows


def points_expiration_rows(sim: Simulator) -> list[Row]:
    """None: the simulator's loyalty points never expire (its programs have
    no expiration rules), so there is no bucket of points due to expire and
    the export holds its header only."""
    return []


#: exported_object -> its rows, for the objects the simulator exports.
ROWS: dict[str, Callable[[Simulator], list[Row]]] = {
    "voucher": voucher_rows,
    "redemption": redemption_rows,
    "customer": customer_rows,
    "order": order_rows,
    "voucher_transactions": voucher_transaction_rows,
    "points_expiration": points_expiration_rows,
}
