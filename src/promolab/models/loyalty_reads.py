"""The read endpoints of a pull's loyalty: the v1 loyalty campaigns and what each holds.

Query declared here (from `list_params`), carried out by `sim/listing.py`;
what each answers is in docs/reads.md, how the v2 programs appear as v1
campaigns in docs/decisions.md ("Loyalty programs of a pull").
"""

from __future__ import annotations

from typing import Any

from .endpoint import Endpoint, Param
from .list_params import LIMIT, PAGE, instant_param, order_param
from .loyalty_campaigns import (
    LoyaltyCampaign,
    LoyaltyCampaignList,
    LoyaltyEarningRuleList,
    LoyaltyMemberList,
    LoyaltyRewardAssignmentList,
    LoyaltyTierList,
)

__all__ = [
    "GET_LOYALTY_PROGRAM",
    "LIST_EARNING_RULES",
    "LIST_LOYALTY_PROGRAMS",
    "LIST_LOYALTY_TIERS",
    "LIST_MEMBERS",
    "LIST_REWARD_ASSIGNMENTS",
    "READS",
]

_CAMPAIGN_ID = Param("campaignId", "campaign_id")
_BY_TIME = order_param("created_at", "updated_at")

LIST_LOYALTY_PROGRAMS: Endpoint[LoyaltyCampaignList] = Endpoint(
    "list_loyalty_programs", "GET", "/v1/loyalties", "app", "listLoyaltyPrograms",
    "List loyalty programs (one v1 campaign per card definition)", LoyaltyCampaignList,
    query=(LIMIT, PAGE, Param("expand", "expand", "string", "Expand the campaigns' category (or access settings).",
                              enum=("category", "access_settings_assignments")), _BY_TIME),
    tags=("loyalty",), idempotent=True,
)
GET_LOYALTY_PROGRAM: Endpoint[LoyaltyCampaign] = Endpoint(
    "get_loyalty_program", "GET", "/v1/loyalties/{campaignId}", "app", "getLoyaltyProgram",
    "Get a loyalty program (a v1 campaign: a card definition's id)", LoyaltyCampaign,
    path_params=(_CAMPAIGN_ID,), tags=("loyalty",), idempotent=True,
)
LIST_LOYALTY_TIERS: Endpoint[LoyaltyTierList] = Endpoint(
    "list_loyalty_tiers", "GET", "/v1/loyalties/{campaignId}/tiers", "app", "listLoyaltyTiers",
    "List a loyalty campaign's tiers", LoyaltyTierList, path_params=(_CAMPAIGN_ID,), query=(LIMIT, _BY_TIME),
    tags=("loyalty",), idempotent=True,
)
LIST_EARNING_RULES: Endpoint[LoyaltyEarningRuleList] = Endpoint(
    "list_earning_rules", "GET", "/v1/loyalties/{campaignId}/earning-rules", "app", "listEarningRules",
    "List a loyalty campaign's earning rules", LoyaltyEarningRuleList, path_params=(_CAMPAIGN_ID,),
    query=(LIMIT, PAGE, _BY_TIME), tags=("loyalty",), idempotent=True,
)
LIST_REWARD_ASSIGNMENTS: Endpoint[LoyaltyRewardAssignmentList] = Endpoint(
    "list_reward_assignments", "GET", "/v1/loyalties/{campaignId}/rewards", "app", "listLoyaltyRewardAssignments",
    "List the rewards a loyalty campaign offers, at their points", LoyaltyRewardAssignmentList,
    path_params=(_CAMPAIGN_ID,),
    query=(LIMIT, PAGE, Param("assignment_id", "assignment_id", "string", "Only this assignment.")),
    tags=("loyalty",), idempotent=True,
)
LIST_MEMBERS: Endpoint[LoyaltyMemberList] = Endpoint(
    "list_members", "GET", "/v1/loyalties/{campaignId}/members", "app", "listMembers",
    "List a loyalty campaign's members: its cards, as LOYALTY_CARD vouchers", LoyaltyMemberList,
    path_params=(_CAMPAIGN_ID,),
    query=(
        LIMIT, PAGE, Param("customer", "customer", "string", "Only the cards of this customer (id or source id)."),
        instant_param("created_at[before]", "created_before", "Only those created at or before this instant."),
        instant_param("created_at[after]", "created_after", "Only those created at or after this instant."),
        instant_param("updated_at[before]", "updated_before", "Only those changed at or before this instant."),
        instant_param("updated_at[after]", "updated_after", "Only those changed at or after this instant."),
        order_param("created_at", "updated_at", "code"),
        Param("code", "code", "string", "Only the card of this code."),
    ), tags=("loyalty",), idempotent=True,
)

#: The loyalty read endpoints of a pull, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (
    LIST_LOYALTY_PROGRAMS, GET_LOYALTY_PROGRAM, LIST_LOYALTY_TIERS, LIST_EARNING_RULES, LIST_REWARD_ASSIGNMENTS,
    LIST_MEMBERS,
)
