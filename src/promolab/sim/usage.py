"""What budget rules count, kept from the simulator's redemption records.

`RedemptionUsage` is the engine's `Usage` for a simulator: a `UsageLedger`
(running totals per redeemable, campaign, customer and calendar period of
the project's time zone) fed with the child redemptions (one per code or
tier redeemed; a code counts under its voucher id), and the units each
discounted under unit budgets (`RedemptionRecord.units`). A rollback takes
its children out again (`remove`), which gives the budget back.

Kept with the state's derived lookups (`state.derived`): built from the
SUCCEEDED records on first use, told of each new redemption (`add`) and
rollback (`remove`) by the redemption operations, rebuilt when the state
object is replaced. The simulated clock only moves forward, so every record
counted is at or before the instant a rule asks about.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.usage_ledger import UsageLedger
from .state import derived

if TYPE_CHECKING:
    from .records import RedemptionRecord
    from .simulator import Simulator
    from .state import State

__all__ = ["RedemptionUsage", "usage_of"]


class RedemptionUsage(UsageLedger):
    __slots__ = ()

    def __init__(self, state: State) -> None:
        super().__init__(state.project.timezone, state.project.week_start)
        for record in state.redemptions.values():
            if record.status == "SUCCEEDED":
                self.add(record)

    def add(self, record: RedemptionRecord, sign: int = 1) -> None:
        """Count a new child redemption (parents count nothing themselves)."""
        if record.related_object_type == "redemption":
            return
        self.record(record.related_object_id, record.campaign_id, record.customer_id, self.keys(record.date),
                    record.discount, record.order_amount, record.order_id, sign)
        if record.units:
            # a code outside any campaign is its own campaign (`promotions.code_spec`)
            self.record_units(record.related_object_id, record.campaign_id or record.related_object_id,
                              record.customer_id, record.units.items(), sign)

    def remove(self, record: RedemptionRecord) -> None:
        """Take a rolled-back child redemption out of the totals."""
        self.add(record, sign=-1)


def usage_of(sim: Simulator) -> RedemptionUsage:
    """The usage of the simulator's current state."""
    return derived(sim, "redemption_usage", RedemptionUsage)
