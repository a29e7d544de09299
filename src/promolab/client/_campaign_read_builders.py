"""What the client's read methods send for campaigns (`models.campaign_reads`).

Built like `_read_builders.py` (whose `_read` they use): arguments become the
query the endpoint declares, values left out when None; a boolean filter is
sent as the service spells it (`true` / `false`).
"""

from __future__ import annotations

from .. import models
from ..models import campaign_reads as e
from ._read_builders import _read
from ._requests import Prepared

__all__ = ["get_campaign", "list_campaigns"]


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
