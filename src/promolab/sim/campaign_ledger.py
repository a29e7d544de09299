"""A campaign's summary, counted from the simulator's ledger over a date range.

What is counted (docs/decisions.md, "Campaigns"): the redemption records of
the campaign's codes or tiers (a stacked parent belongs to no campaign) and
the rollbacks of those records, each counted on its own date; the codes
created and the publications made in the range; a gift campaign's credits
(the codes' initial credit, the additions of its CREDITS_ADDITION
transactions, the credits redeemed and given back); a referral campaign's
conversions. A refused redemption or publication records nothing, so every
one counted succeeded; validations are reads and leave no record, so none
is counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .records import Campaign, Voucher

if TYPE_CHECKING:
    from .state import State

__all__ = ["Window", "summary_counts"]


@dataclass(frozen=True, slots=True)
class Window:
    """The instants a summary counts, both ends inclusive (None: unbounded)."""

    start: datetime | None = None
    end: datetime | None = None

    def holds(self, when: datetime | None) -> bool:
        if when is None:
            return self.start is None and self.end is None
        return (self.start is None or when >= self.start) and (self.end is None or when <= self.end)


def _succeeded_and_failed(name: str, count: int) -> dict[str, int]:
    return {name: count, f"{name}_succeeded": count, f"{name}_failed": 0}


def summary_counts(state: State, campaign: Campaign, codes: Sequence[Voucher], window: Window) -> dict[str, Any]:
    """The summary's counts and amounts, in the service's field order, for the campaign's type."""
    redemptions = [r for r in state.redemptions.values() if r.campaign_id == campaign.id]
    by_id = {r.id: r for r in redemptions}
    rollbacks = [b for b in state.rollbacks.values() if b.redemption_id in by_id and window.holds(b.date)]
    undone = [by_id[b.redemption_id] for b in rollbacks]
    made = [r for r in redemptions if window.holds(r.date)]
    body: dict[str, Any] = {
        **_succeeded_and_failed("redemptions", len(made)), **_succeeded_and_failed("rollbacks", len(rollbacks)),
        **_succeeded_and_failed("validations", 0),
    }
    if campaign.type != "PROMOTION":
        code_ids = {v.id for v in codes}
        published = [p for p in state.publications.values() if p.voucher_id in code_ids and window.holds(p.created_at)]
        body |= {"vouchers_created": sum(window.holds(v.created_at or campaign.created_at) for v in codes),
                 "vouchers_deleted": 0, **_succeeded_and_failed("publications", len(published))}
    if campaign.type == "GIFT_VOUCHERS":
        body |= _gift_amounts(state, campaign, codes, window, made, rollbacks)
    elif campaign.type == "REFERRAL_PROGRAM":
        body["referred_customers"] = sum(c.campaign_id == campaign.id and window.holds(c.created_at)
                                         for c in state.referral_conversions.values())
    else:
        body |= {"discounted_amount": sum(r.discount for r in made),
                 "rolledback_discounted_amount": sum(r.discount for r in undone)}
    body |= {"orders_amount": sum(r.order_amount for r in made),
             "orders_rolledback_amount": sum(r.order_amount for r in undone)}
    return body


def _gift_amounts(state: State, campaign: Campaign, codes: Sequence[Voucher], window: Window,
                  made: Sequence[Any], rollbacks: Sequence[Any]) -> dict[str, int]:
    """A gift campaign's credits: a code's initial credit is its lifetime credit less what was added since."""
    code_ids = {v.id for v in codes}
    additions = [t for t in state.voucher_transactions.values()
                 if t.voucher_id in code_ids and t.type == "CREDITS_ADDITION"]
    added_to: dict[str, int] = {}
    for transaction in additions:
        added_to[transaction.voucher_id] = added_to.get(transaction.voucher_id, 0) + transaction.amount
    initial = sum((v.gift.amount if v.gift is not None else 0) - added_to.get(v.id, 0)
                  for v in codes if window.holds(v.created_at or campaign.created_at))
    return {
        "created_vouchers_amount": initial,
        "amount_added": sum(t.amount for t in additions if window.holds(t.created_at)),
        "amount_deleted": 0,
        "amount_redeemed": sum(r.amount or 0 for r in made),
        "amount_rolledback": sum(-(b.amount or 0) for b in rollbacks),
        "amount_subtracted": 0,
    }
