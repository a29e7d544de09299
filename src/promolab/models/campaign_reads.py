"""The read endpoints of a pull for campaigns and their codes.

Query declared here (from `list_params`), carried out by `sim/listing.py`
and `sim/operations/campaign_reads.py`; what each answers is in docs/reads.md.
"""

from __future__ import annotations

from typing import Any

from .campaign_summary import CampaignSummary, CampaignTransactionList
from .campaigns import Campaign, CampaignList
from .endpoint import Endpoint, Param
from .list_params import LIMIT, PAGE, PAGE_99, instant_param, order_param
from .vouchers import Voucher, VoucherList

__all__ = [
    "GET_CAMPAIGN",
    "GET_CAMPAIGN_SUMMARY",
    "GET_VOUCHER",
    "LIST_CAMPAIGNS",
    "LIST_CAMPAIGN_TRANSACTIONS",
    "LIST_VOUCHERS",
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

LIST_VOUCHERS: Endpoint[VoucherList] = Endpoint(
    "list_vouchers", "GET", "/v1/vouchers", "app", "listVouchers", "List vouchers", VoucherList,
    query=(
        LIMIT, PAGE_99,
        Param("category", "category", "string", "Only codes of campaigns in this category (id or name)."),
        Param("campaign_id", "campaign_id", "string", "Only codes of this campaign (id)."),
        Param("customer", "customer", "string", "Only codes this customer (id or source id) holds."),
        Param("campaign", "campaign", "string", "Only codes of this campaign (name, or id)."),
        instant_param("created_at[before]", "created_before", "Only those created at or before this instant."),
        instant_param("created_at[after]", "created_after", "Only those created at or after this instant."),
        instant_param("updated_at[before]", "updated_before", "Only those updated at or before this instant."),
        instant_param("updated_at[after]", "updated_after", "Only those updated at or after this instant."),
        order_param("created_at", "updated_at", "code"),
        Param("code", "code", "string", "Only the code of this text."),
        Param("ids", "ids", "array", "Only the codes of these ids (the parameter repeated)."),
        Param("filters", "filters", "object", "Not served by the simulator: refused (docs/decisions.md)."),
    ), tags=("vouchers",), idempotent=True,
)
GET_VOUCHER: Endpoint[Voucher] = Endpoint(
    "get_voucher", "GET", "/v1/vouchers/{code}", "app", "getVoucher", "Get a voucher (by code or id)", Voucher,
    path_params=(Param("code", "code"),), tags=("vouchers",), idempotent=True,
)

GET_CAMPAIGN_SUMMARY: Endpoint[CampaignSummary] = Endpoint(
    "get_campaign_summary", "GET", "/v1/campaigns/{campaignId}/summary", "app", "getCampaignSummary",
    "Get a campaign's summary: its redemptions, rollbacks, codes and amounts over a date range", CampaignSummary,
    path_params=(Param("campaignId", "campaign_id"),),
    query=(Param("start_date", "start_date", "string", "Count from this day (YYYY-MM-DD, UTC) or instant on."),
           Param("end_date", "end_date", "string", "Count up to this day (to its end, UTC) or instant.")),
    tags=("campaigns",), idempotent=True,
)

LIST_CAMPAIGN_TRANSACTIONS: Endpoint[CampaignTransactionList] = Endpoint(
    "list_campaign_transactions", "GET", "/v1/campaigns/{campaignId}/transactions", "app",
    "listCampaignTransactions", "List the transactions of a campaign's codes (gift credits)", CampaignTransactionList,
    path_params=(Param("campaignId", "campaign_id"),),
    query=(LIMIT,
           Param("order", "order", "string", "Sort by id; a leading - sorts descending.", enum=("id", "-id"),
                 default="-id"),
           Param("starting_after_id", "starting_after_id", "string",
                 "Only transactions after this one in the order asked (a cursor: `more_starting_after`)."),
           Param("filters", "filters", "object", "Not served by the simulator: refused (docs/decisions.md).")),
    tags=("campaigns",), idempotent=True,
)

#: The read endpoints of campaigns and codes, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (
    LIST_CAMPAIGNS, GET_CAMPAIGN, GET_CAMPAIGN_SUMMARY, LIST_CAMPAIGN_TRANSACTIONS, LIST_VOUCHERS, GET_VOUCHER,
)
