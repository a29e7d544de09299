"""Reading campaigns and their codes: the lists, one campaign, one voucher.

Each list declares its `Listing` (sim/listing.py): `order` sorts by the
creation time (nothing changes a campaign after the scenario made it, so
`updated_at` sorts as `created_at` does; a voucher's `updated_at` is its
last change, else its creation), and each filter reads one field; the
voucher filters that read other state (the customer by source id, the
campaign by name, the category by name) are applied first. The service's
`filters` and `access_settings` (deep objects) are refused,
naming them, rather than ignored: a pull that sent them would otherwise
read every campaign as if they matched (docs/decisions.md, "Campaigns").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from ... import models
from ...models import campaign_reads
from ..campaign_ledger import Window, summary_counts
from ..clock import parse_instant
from ..fast_validate import validated
from ..listing import Listing, Match, at_or_after, at_or_before, equals
from ..operation import bind
from ..promotions import campaign_categories
from ..publishing_lookups import campaign_codes
from ..records import Campaign, Voucher, VoucherTransaction
from ..refusals import InvalidQueryParams, NotFound
from ..render.campaigns import campaign_body
from ..render.vouchers import (
    VoucherRead,
    first_category,
    render_voucher,
    render_voucher_transaction,
)
from ..validation_rule_objects import campaign_owner, rule_assignments, voucher_owner

if TYPE_CHECKING:
    from ..simulator import Simulator


def _created(record: Campaign) -> datetime | None:
    return record.created_at


def _is_referral(record: Campaign) -> str:
    return "true" if record.type == "REFERRAL_PROGRAM" else "false"


def _status(record: Campaign) -> str:
    """A scenario's campaigns are made whole when it loads: every one is DONE."""
    return "DONE"


CAMPAIGNS: Listing[Campaign] = Listing(
    campaign_reads.LIST_CAMPAIGNS, "campaigns",
    sort={"created_at": _created, "updated_at": _created},
    filters={"campaign_type": equals(lambda c: c.type), "campaign_status": equals(_status),
             "is_referral_code": Match(_is_referral, lambda value, given: value == given)},
    prefiltered=frozenset({"expand", "filters", "access_settings"}),
)



def _voucher_created(record: Voucher) -> datetime | None:
    return record.created_at


def _voucher_updated(record: Voucher) -> datetime | None:
    """A code never changed was last touched when it was made."""
    return record.updated_at or record.created_at


VOUCHERS: Listing[Voucher] = Listing(
    campaign_reads.LIST_VOUCHERS, "vouchers",
    sort={"created_at": _voucher_created, "updated_at": _voucher_updated, "code": lambda v: v.code},
    filters={"campaign_id": equals(lambda v: v.campaign_id), "code": equals(lambda v: v.code),
             "ids": Match(lambda v: v.id, lambda value, given: value in given),
             "created_before": at_or_before(_voucher_created), "created_after": at_or_after(_voucher_created),
             "updated_before": at_or_before(_voucher_updated), "updated_after": at_or_after(_voucher_updated)},
    prefiltered=frozenset({"category", "customer", "campaign", "filters"}),
)

TRANSACTIONS: Listing[VoucherTransaction] = Listing(
    campaign_reads.LIST_CAMPAIGN_TRANSACTIONS, "data", sort={"id": lambda t: t.id},
    cursor="starting_after_id", prefiltered=frozenset({"filters"}),
)

#: The deep-object parameters the simulator does not carry out.
_REFUSED = ("filters", "access_settings")


def _refuse_unserved(query: Mapping[str, object], instead: str) -> None:
    for name in _REFUSED:
        if query.get(name) is not None:
            raise InvalidQueryParams(f"Query parameter {name} is not supported by the simulator; filter with {instead}")


def list_campaigns(sim: Simulator, /, **query: object) -> models.CampaignList:
    _refuse_unserved(query, "campaign_type, campaign_status or is_referral_code")
    given = {k: v for k, v in query.items() if k not in _REFUSED}
    expand = given.get("expand")
    state = sim.state
    body = CAMPAIGNS.answer(state.campaigns.values(), given, lambda c: campaign_body(
        state, c, campaign_codes(sim, c.id), expand=expand if isinstance(expand, str) else None))
    return validated(models.CampaignList, body)


def find_campaign(sim: Simulator, campaign_id: str) -> Campaign:
    """The campaign of this id, else the one of this name (the service finds a campaign by either)."""
    campaigns = sim.state.campaigns
    found = campaigns.get(campaign_id) or next((c for c in campaigns.values() if c.name == campaign_id), None)
    if found is None:
        raise NotFound("campaign", campaign_id)
    return found


def get_campaign(sim: Simulator, *, campaign_id: str) -> models.Campaign:
    record = find_campaign(sim, campaign_id)
    return validated(models.Campaign, campaign_body(
        sim.state, record, campaign_codes(sim, record.id), assignments=rule_assignments(campaign_owner(record))))


def _text_arg(query: Mapping[str, object], name: str) -> str | None:
    """A filter applied before the listing, checked as the listing checks the others."""
    value = query.get(name)
    if value is not None and not isinstance(value, str):
        raise InvalidQueryParams(f"Query parameter {name} should be a string (got {value!r})")
    return value


def _prefiltered(sim: Simulator, query: Mapping[str, object]) -> list[Voucher]:
    """The codes the filters that read other state keep: the holder (id or source id), the
    campaign (name or id), the campaign's category (id or name)."""
    state = sim.state
    vouchers = list(state.vouchers.values())
    customer, campaign, category = (_text_arg(query, name) for name in ("customer", "campaign", "category"))
    if customer is not None:
        holders = {c.id for c in state.customers.values() if customer in (c.id, c.source_id)}
        vouchers = [v for v in vouchers if v.holder_id in holders]
    if campaign is not None:
        named = {c.id for c in state.campaigns.values() if campaign in (c.id, c.name)}
        vouchers = [v for v in vouchers if v.campaign_id in named]
    if category is not None:
        kinds = {c.id for c in state.categories.values() if category in (c.id, c.name)}
        inside = {c.id for c in state.campaigns.values() if kinds.intersection(c.categories)}
        vouchers = [v for v in vouchers if v.campaign_id in inside]
    return vouchers


def _voucher(sim: Simulator, record: Voucher, *, detail: bool) -> models.Voucher:
    """The code as the voucher reads show it (`detail`: one voucher, with its own rules' assignment)."""
    state = sim.state
    campaign = state.campaigns.get(record.campaign_id) if record.campaign_id is not None else None
    categories = campaign_categories(state, campaign) if campaign is not None else ()
    assignments = rule_assignments(voucher_owner(record)) if detail else None
    return render_voucher(record, campaign, seed=sim.seed, category=first_category(state, campaign),
                          read=VoucherRead(categories, assignments))


def list_vouchers(sim: Simulator, /, **query: object) -> models.VoucherList:
    _refuse_unserved(query, "campaign_id, campaign, category, customer, code, ids or the instants")
    given = {k: v for k, v in query.items() if k != "filters"}
    candidates = _prefiltered(sim, given)  # after the refusal of `filters`, before the listing checks the rest
    page = VOUCHERS.page(candidates, {k: v for k, v in given.items() if k not in VOUCHERS.prefiltered})
    return models.VoucherList(vouchers=[_voucher(sim, v, detail=False) for v in page.items], total=page.total)


def get_voucher(sim: Simulator, *, code: str) -> models.Voucher:
    """The voucher of this code, else of this id."""
    state = sim.state
    vid = sim.indexes.voucher_by_code.get(code)
    record = state.vouchers.get(vid if vid is not None else code)
    if record is None:
        raise NotFound("voucher", code)
    return _voucher(sim, record, detail=True)


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _summary_edge(name: str, value: object, *, end: bool) -> datetime | None:
    """A day (its start, or for `end_date` its last instant, UTC) or an exact instant; 400 naming it else."""
    if value is None:
        return None
    refusal = InvalidQueryParams(f"Query parameter {name} should be a date such as 2026-03-06 or a date-time "
                                 f"(got {value!r})")
    if not isinstance(value, str):
        raise refusal
    try:
        if _DAY.fullmatch(value):
            day = datetime.fromisoformat(value).replace(tzinfo=UTC)
            return day + timedelta(days=1, microseconds=-1) if end else day
        return parse_instant(value.upper())
    except ValueError:
        raise refusal from None


def get_campaign_summary(sim: Simulator, *, campaign_id: str, start_date: str | None = None,
                         end_date: str | None = None) -> models.CampaignSummary:
    window = Window(_summary_edge("start_date", start_date, end=False), _summary_edge("end_date", end_date, end=True))
    record = find_campaign(sim, campaign_id)
    codes = campaign_codes(sim, record.id)
    body = {"object": "campaign_summary", "campaign": campaign_body(sim.state, record, codes),
            **summary_counts(sim.state, record, codes, window)}
    return validated(models.CampaignSummary, body)


def list_campaign_transactions(sim: Simulator, /, *, campaign_id: str,
                               **query: object) -> models.CampaignTransactionList:
    """The transactions of the campaign's codes (the gift credits added), a cursor's page at a time."""
    _refuse_unserved(query, "order and starting_after_id")
    record = find_campaign(sim, campaign_id)
    given = {k: v for k, v in query.items() if k != "filters"}
    mine = [t for t in sim.state.voucher_transactions.values() if t.campaign_id == record.id]
    page = TRANSACTIONS.page(mine, given)
    return validated(models.CampaignTransactionList, {
        "object": "list", "data_ref": "data", "data": [render_voucher_transaction(t) for t in page.items],
        "has_more": page.has_more, "more_starting_after": page.items[-1].id if page.has_more else None,
    })


LIST_CAMPAIGNS = bind(campaign_reads.LIST_CAMPAIGNS, list_campaigns, write=False)
GET_CAMPAIGN = bind(campaign_reads.GET_CAMPAIGN, get_campaign, write=False)
GET_CAMPAIGN_SUMMARY = bind(campaign_reads.GET_CAMPAIGN_SUMMARY, get_campaign_summary, write=False)
LIST_CAMPAIGN_TRANSACTIONS = bind(campaign_reads.LIST_CAMPAIGN_TRANSACTIONS, list_campaign_transactions, write=False)
LIST_VOUCHERS = bind(campaign_reads.LIST_VOUCHERS, list_vouchers, write=False)
GET_VOUCHER = bind(campaign_reads.GET_VOUCHER, get_voucher, write=False)

#: This family's operations, in the order of `campaign_reads.READS`.
READS = (LIST_CAMPAIGNS, GET_CAMPAIGN, GET_CAMPAIGN_SUMMARY, LIST_CAMPAIGN_TRANSACTIONS, LIST_VOUCHERS, GET_VOUCHER)
