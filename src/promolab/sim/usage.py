"""What budget rules count, answered from the simulator's redemption records.

`RedemptionUsage` is the engine's `Usage` for a simulator: it indexes the
child redemptions (one per code or tier redeemed) by redeemable and by
campaign, and sums what a rule asks for over the SUCCEEDED ones (a rollback
marks them ROLLED_BACK, which gives the budget back), in the current
calendar period of the project's time zone when the rule has one.

Kept with the state's derived lookups (`state.derived`): built from the
records on first use, told of each new redemption by the redemption
operation (`add`), rebuilt when the state object is replaced.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING

from ..engine import UsageQuery, period_start
from .state import derived

if TYPE_CHECKING:
    from .records import RedemptionRecord
    from .simulator import Simulator
    from .state import State

__all__ = ["RedemptionUsage", "usage_of"]


class RedemptionUsage:
    __slots__ = ("_by_campaign", "_by_redeemable", "_state")

    def __init__(self, state: State) -> None:
        self._state = state
        self._by_redeemable: dict[str, list[RedemptionRecord]] = defaultdict(list)
        self._by_campaign: dict[str, list[RedemptionRecord]] = defaultdict(list)
        for record in state.redemptions.values():
            self.add(record)

    def add(self, record: RedemptionRecord) -> None:
        """Count a new child redemption (parents count nothing themselves)."""
        if record.related_object_type == "redemption":
            return
        self._by_redeemable[record.related_object_id].append(record)
        if record.campaign_id is not None:
            self._by_campaign[record.campaign_id].append(record)

    def value(
        self, query: UsageQuery, redeemable_id: str, campaign_id: str, customer_id: str | None, now: datetime
    ) -> int:
        if query.scope == "redeemable":
            records = self._by_redeemable.get(redeemable_id, ())  # a tier's id, a code's voucher id
        else:
            records = self._by_campaign.get(campaign_id, ())
        project = self._state.project
        start = period_start(now, query.period, project.timezone, project.week_start) if query.period else None
        total = 0
        orders: set[str] = set()
        for record in records:
            if record.status != "SUCCEEDED" or record.date > now:
                continue
            if query.per_customer and (customer_id is None or record.customer_id != customer_id):
                continue
            if start is not None and record.date < start:
                continue
            if query.measure == "count":
                total += 1
            elif query.measure == "discount":
                total += record.discount
            elif record.order_id not in orders:  # order value: each order once
                orders.add(record.order_id)
                total += record.order_amount
        return total


def usage_of(sim: Simulator) -> RedemptionUsage:
    """The usage of the simulator's current state."""
    return derived(sim, "redemption_usage", RedemptionUsage)
