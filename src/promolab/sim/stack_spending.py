"""What a stacked redemption spends, and what its rollback gives back.

Spending: a use of each code applied (`redeemed_quantity`), and a gift
card's credits (`balance`, `redeemed_amount`). A rollback gives back exactly
what the redemption record says it spent, so redeeming then rolling back
leaves every voucher as it was, byte for byte (tests/sim/test_redemptions.py).
Promotion tiers keep no counter: their budgets count redemption records.

The orders redeemed on are found by `source_id` through a lookup kept in
step here (a request naming a known order is priced on the stored one).
"""

from __future__ import annotations

import calendar
from datetime import datetime
from typing import TYPE_CHECKING

from .state import derived

if TYPE_CHECKING:
    from .records import RedeemedOrder, RedemptionRecord
    from .simulator import Simulator
    from .state import State

__all__ = ["ROLLBACK_MONTHS", "give_back", "order_by_source", "remember_order", "rollback_deadline", "spend"]

#: How long after a redemption it may be rolled back (the service: 3 months).
ROLLBACK_MONTHS = 3


def spend(sim: Simulator, record: RedemptionRecord) -> None:
    """Take what a child redemption spends from its voucher."""
    if record.related_object_type != "voucher":
        return
    voucher = sim.state.vouchers[record.related_object_id]
    voucher.redeemed_quantity += 1
    if record.amount and voucher.gift is not None:
        voucher.gift.balance -= record.amount
        voucher.redeemed_amount += record.amount


def give_back(sim: Simulator, record: RedemptionRecord) -> None:
    """Return to its voucher what `spend` took for `record`."""
    if record.related_object_type != "voucher":
        return
    voucher = sim.state.vouchers[record.related_object_id]
    voucher.redeemed_quantity -= 1
    if record.amount and voucher.gift is not None:
        voucher.gift.balance += record.amount
        voucher.redeemed_amount -= record.amount


def _orders_by_source(state: State) -> dict[str, str]:
    return {o.source_id: o.id for o in state.orders.values() if o.source_id is not None}


def order_by_source(sim: Simulator, source_id: str | None) -> RedeemedOrder | None:
    if source_id is None:
        return None
    found = derived(sim, "orders_by_source", _orders_by_source).get(source_id)
    return sim.state.orders.get(found) if found is not None else None


def remember_order(sim: Simulator, order: RedeemedOrder) -> None:
    sim.state.orders[order.id] = order
    if order.source_id is not None:
        derived(sim, "orders_by_source", _orders_by_source)[order.source_id] = order.id


def rollback_deadline(date: datetime) -> datetime:
    """The last instant a redemption of `date` may be rolled back: the same
    time `ROLLBACK_MONTHS` calendar months later (the 31st of a shorter month
    is its last day)."""
    month0 = date.month - 1 + ROLLBACK_MONTHS
    year, month = date.year + month0 // 12, month0 % 12 + 1
    day = min(date.day, calendar.monthrange(year, month)[1])
    return date.replace(year=year, month=month, day=day)
