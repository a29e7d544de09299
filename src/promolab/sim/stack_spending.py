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

from datetime import datetime
from typing import TYPE_CHECKING

from ..engine import parse_duration
from .clock import LATEST
from .state import derived

if TYPE_CHECKING:
    from ..engine import StackedRedeemable
    from .records import RedeemedOrder, RedemptionRecord, Voucher
    from .simulator import Simulator
    from .state import State

__all__ = [
    "ROLLBACK_MONTHS", "credits_of", "give_back", "order_by_source", "remember_order", "rollback_deadline", "spend",
    "taken",
]

#: How long after a redemption it may be rolled back (the service: 3 months).
ROLLBACK_MONTHS = 3


def credits_of(stacked: StackedRedeemable) -> int | None:
    """A child redemption's `amount`: the gift credits a card gave (None for a discount)."""
    assert stacked.step is not None  # an applied redeemable
    return stacked.step.order_discount if stacked.entry.gift_credits is not None else None


def taken(voucher: Voucher | None, amount: int | None) -> tuple[int, int]:
    """What a child redemption takes from its voucher: (uses, gift credits).
    A tier keeps no counter. The redemption operation applies it to the
    voucher (`spend`); a forecast, which changes nothing, adds it up."""
    if voucher is None:
        return 0, 0
    return 1, (amount or 0) if voucher.gift is not None else 0


def spend(sim: Simulator, record: RedemptionRecord, sign: int = 1) -> None:
    """Take what a child redemption spends from its voucher (`sign=-1`: give it back)."""
    if record.related_object_type != "voucher":
        return
    voucher = sim.state.vouchers[record.related_object_id]
    uses, credits = taken(voucher, record.amount)
    voucher.redeemed_quantity += sign * uses
    if credits and voucher.gift is not None:
        voucher.gift.balance -= sign * credits
        voucher.redeemed_amount += sign * credits


def give_back(sim: Simulator, record: RedemptionRecord) -> None:
    """Return to its voucher what `spend` took for `record`."""
    spend(sim, record, sign=-1)


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


#: How long a redemption may be rolled back, as a duration of the engine's.
_ROLLBACK_WINDOW = parse_duration(f"P{ROLLBACK_MONTHS}M")


def rollback_deadline(date: datetime) -> datetime:
    """The last instant a redemption of `date` may be rolled back: the same
    time `ROLLBACK_MONTHS` calendar months later (the 31st of a shorter month
    is its last day: the engine's calendar arithmetic of durations). A
    deadline past year 9999 is the last instant a timestamp holds: the clock
    cannot pass it."""
    return _ROLLBACK_WINDOW.times(date, 1) or LATEST
