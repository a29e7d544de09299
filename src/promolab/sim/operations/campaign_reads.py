"""Reading campaigns: the list and one campaign.

The list declares its `Listing` (sim/listing.py): `order` sorts by the
creation time (nothing changes a campaign after the scenario made it, so
`updated_at` sorts as `created_at` does), and each filter reads one field.
The service's `filters` and `access_settings` (deep objects) are refused,
naming them, rather than ignored: a pull that sent them would otherwise
read every campaign as if they matched (docs/decisions.md, "Campaigns").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from ... import models
from ...models import campaign_reads
from ..fast_validate import validated
from ..listing import Listing, Match, equals
from ..operation import bind
from ..publishing_lookups import campaign_codes
from ..records import Campaign
from ..refusals import InvalidQueryParams, NotFound
from ..render.campaigns import campaign_body

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

#: The deep-object parameters the simulator does not carry out.
_REFUSED = ("filters", "access_settings")


def _refuse_unserved(query: Mapping[str, object]) -> None:
    for name in _REFUSED:
        if query.get(name) is not None:
            raise InvalidQueryParams(f"Query parameter {name} is not supported by the simulator; "
                                     "filter with campaign_type, campaign_status or is_referral_code")


def list_campaigns(sim: Simulator, /, **query: object) -> models.CampaignList:
    _refuse_unserved(query)
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
    return validated(models.Campaign, campaign_body(sim.state, record, campaign_codes(sim, record.id), detail=True))


LIST_CAMPAIGNS = bind(campaign_reads.LIST_CAMPAIGNS, list_campaigns, write=False)
GET_CAMPAIGN = bind(campaign_reads.GET_CAMPAIGN, get_campaign, write=False)

#: This family's operations, in the order of `campaign_reads.READS`.
READS = (LIST_CAMPAIGNS, GET_CAMPAIGN)
