"""The read endpoints of a pull for campaigns and their codes.

Query declared here (from `list_params`), carried out by `sim/listing.py`
and `sim/operations/campaign_reads.py`; what each answers is in docs/reads.md.
"""

from __future__ import annotations

from typing import Any

from .campaigns import Campaign, CampaignList
from .endpoint import Endpoint, Param
from .list_params import LIMIT, PAGE, order_param

__all__ = [
    "GET_CAMPAIGN",
    "LIST_CAMPAIGNS",
    "READS",
]

_STATUSES = ("DONE", "IN_PROGRESS", "FAILED", "DRAFT", "MODIFYING")

LIST_CAMPAIGNS: Endpoint[CampaignList] = Endpoint(
    "list_campaigns", "GET", "/v1/campaigns", "app", "listCampaigns", "List campaigns", CampaignList,
    query=(
        LIMIT, PAGE,
        Param("campaign_type", "campaign_type", "string", "Only campaigns of this type.",
              enum=("PROMOTION", "GIFT_VOUCHERS", "REFERRAL_PROGRAM", "DISCOUNT_COUPONS", "LOYALTY_PROGRAM")),
        Param("expand", "expand", "string", "Add the campaign's category or access settings.",
              enum=("category", "access_settings_assignments")),
        Param("campaign_status", "campaign_status", "string", "Only campaigns of this creation status.",
              enum=_STATUSES),
        Param("is_referral_code", "is_referral_code", "string", "Only referral campaigns (true) or the others.",
              enum=("true", "false")),
        order_param("created_at", "updated_at"),
        Param("filters", "filters", "object", "Not served by the simulator: refused (docs/decisions.md)."),
        Param("access_settings", "access_settings", "object",
              "Not served by the simulator: refused (docs/decisions.md)."),
    ), tags=("campaigns",), idempotent=True,
)
GET_CAMPAIGN: Endpoint[Campaign] = Endpoint(
    "get_campaign", "GET", "/v1/campaigns/{campaignId}", "app", "getCampaign", "Get a campaign (by id or name)",
    Campaign, path_params=(Param("campaignId", "campaign_id"),), tags=("campaigns",), idempotent=True,
)

#: The read endpoints of campaigns, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (LIST_CAMPAIGNS, GET_CAMPAIGN)
