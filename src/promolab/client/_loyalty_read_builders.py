"""What the client's loyalty read methods send: the v1 loyalty campaigns a pull reads.

Each function turns a method's arguments into a `Prepared` call, as
`_read_builders.py` does (its `_read` names the query as the endpoint
declares it, `models.loyalty_reads`, and leaves out what is None).
"""

from __future__ import annotations

from .. import models
from ..models import loyalty_reads as e
from ._read_builders import Instant, _read
from ._requests import Prepared

__all__ = [
    "get_loyalty_program",
    "list_earning_rules",
    "list_loyalty_programs",
    "list_loyalty_tiers",
    "list_members",
    "list_reward_assignments",
]


def list_loyalty_programs(*, limit: int | None = None, page: int | None = None, expand: str | None = None,
                          order: str | None = None) -> Prepared[models.LoyaltyCampaignList]:
    """A page of loyalty campaigns, one per card definition (`order` default `-created_at`)."""
    return _read(e.LIST_LOYALTY_PROGRAMS, {}, limit=limit, page=page, expand=expand, order=order)


def get_loyalty_program(campaign_id: str) -> Prepared[models.LoyaltyCampaign]:
    """One loyalty campaign by its id (a card definition's, `lcdef_...`)."""
    return _read(e.GET_LOYALTY_PROGRAM, {"campaign_id": campaign_id})


def list_loyalty_tiers(campaign_id: str, *, limit: int | None = None,
                       order: str | None = None) -> Prepared[models.LoyaltyTierList]:
    """A campaign's loyalty tiers (the simulator holds none: an empty list)."""
    return _read(e.LIST_LOYALTY_TIERS, {"campaign_id": campaign_id}, limit=limit, order=order)


def list_earning_rules(campaign_id: str, *, limit: int | None = None, page: int | None = None,
                       order: str | None = None) -> Prepared[models.LoyaltyEarningRuleList]:
    """A page of the earning rules that credit a campaign's card."""
    return _read(e.LIST_EARNING_RULES, {"campaign_id": campaign_id}, limit=limit, page=page, order=order)


def list_reward_assignments(campaign_id: str, *, limit: int | None = None, page: int | None = None,
                            assignment_id: str | None = None) -> Prepared[models.LoyaltyRewardAssignmentList]:
    """A page of the rewards a campaign offers, each at its price in the campaign's points."""
    return _read(e.LIST_REWARD_ASSIGNMENTS, {"campaign_id": campaign_id}, limit=limit, page=page,
                 assignment_id=assignment_id)


def list_members(campaign_id: str, *, limit: int | None = None, page: int | None = None, customer: str | None = None,
                 order: str | None = None, code: str | None = None,
                 **filters: Instant) -> Prepared[models.LoyaltyMemberList]:
    """A page of a campaign's cards (LOYALTY_CARD vouchers), filtered by
    customer (id or source id), code and time: `created_before`,
    `created_after`, `updated_before`, `updated_after` (`created_at[before]`
    and so on); `order` by created_at, updated_at or code."""
    return _read(e.LIST_MEMBERS, {"campaign_id": campaign_id}, limit=limit, page=page, customer=customer,
                 order=order, code=code, **filters)
