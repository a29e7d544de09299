"""What the client's read methods send for campaigns and vouchers (`models.campaign_reads`).

Built like `_read_builders.py` (whose `_read` and `Instant` they use):
arguments become the query the endpoint declares, values left out when
None; a boolean filter is sent as the service spells it (`true` / `false`),
a list as the parameter repeated (`ids=a&ids=b`).
"""

from __future__ import annotations

from typing import TypedDict, Unpack

from .. import models
from ..keywords import check_keywords
from ..models import campaign_reads as e
from ._read_builders import Instant, _read
from ._requests import Prepared

__all__ = [
    "VoucherFilters",
    "get_campaign",
    "get_campaign_summary",
    "get_voucher",
    "list_campaign_transactions",
    "list_campaigns",
    "list_vouchers",
]


def list_campaigns(*, limit: int | None = None, page: int | None = None, campaign_type: str | None = None,
                   expand: str | None = None, campaign_status: str | None = None,
                   is_referral_code: bool | None = None, order: str | None = None) -> Prepared[models.CampaignList]:
    """A page of campaigns (`limit` 1-100, default 10; `order` `created_at` / `updated_at`, default
    `-created_at`), filtered by `campaign_type`, `campaign_status` and `is_referral_code`;
    `expand="access_settings_assignments"` adds each campaign's (empty) areas and stores."""
    referral = None if is_referral_code is None else ("true" if is_referral_code else "false")
    return _read(e.LIST_CAMPAIGNS, {}, limit=limit, page=page, campaign_type=campaign_type, expand=expand,
                 campaign_status=campaign_status, is_referral_code=referral, order=order)


def get_campaign(campaign_id: str) -> Prepared[models.Campaign]:
    """One campaign by its id or its name, with its validation rule assignments."""
    return _read(e.GET_CAMPAIGN, {"campaign_id": campaign_id})


def get_campaign_summary(campaign_id: str, *, start_date: str | None = None,
                         end_date: str | None = None) -> Prepared[models.CampaignSummary]:
    """What a campaign (id or name) counted between two days (`YYYY-MM-DD`, inclusive, UTC) or
    instants: its redemptions, rollbacks, codes, publications and amounts."""
    return _read(e.GET_CAMPAIGN_SUMMARY, {"campaign_id": campaign_id}, start_date=start_date, end_date=end_date)


def list_campaign_transactions(campaign_id: str, *, limit: int | None = None, order: str | None = None,
                               starting_after_id: str | None = None) -> Prepared[models.CampaignTransactionList]:
    """A page of the transactions of a campaign's codes (`order` `id` or `-id`, default `-id`); while
    `has_more`, pass the answer's `more_starting_after` as `starting_after_id` for the next page."""
    return _read(e.LIST_CAMPAIGN_TRANSACTIONS, {"campaign_id": campaign_id}, limit=limit, order=order,
                 starting_after_id=starting_after_id)


class VoucherFilters(TypedDict, total=False):
    """The voucher list's filters, each a keyword of `list_vouchers` (the wire name in brackets)."""

    category: str  # a campaign's category: id or name
    campaign_id: str
    customer: str  # the holder: id or source id
    campaign: str  # name or id
    code: str
    ids: list[str]  # sent as `ids=a&ids=b`
    created_before: Instant  # created_at[before]
    created_after: Instant  # created_at[after]
    updated_before: Instant  # updated_at[before]
    updated_after: Instant  # updated_at[after]


def list_vouchers(*, limit: int | None = None, page: int | None = None, order: str | None = None,
                  **filters: Unpack[VoucherFilters]) -> Prepared[models.VoucherList]:
    """A page of vouchers (`page` 1-99; `order` `created_at`, `updated_at` or `code`), each with its
    categories, filtered by the keywords of `VoucherFilters`: `category` (id or name), `campaign_id`,
    `customer` (the holder: id or source id), `campaign` (name or id), `code`, `ids`, and
    `created_before`, `created_after`, `updated_before`, `updated_after` (`created_at[before]`...)."""
    check_keywords(filters, VoucherFilters.__optional_keys__, where="list_vouchers() ")
    return _read(e.LIST_VOUCHERS, {}, limit=limit, page=page, order=order, **filters)


def get_voucher(code: str) -> Prepared[models.Voucher]:
    """One voucher by its code (or its id), with its categories and its own rules' assignment."""
    return _read(e.GET_VOUCHER, {"code": code})
