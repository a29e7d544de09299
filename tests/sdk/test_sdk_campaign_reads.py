"""The official SDK lists and parses the campaign reads, over real HTTP.

Each call goes through the SDK's own method and its answer is the SDK's
parsed model (a body its model refused would raise before any assert); the
assertions pin what the demo scenario holds, so a wrong page, order or
filter fails here too.
"""

from __future__ import annotations

from typing import Any

import pytest
import voucherify
from voucherify.exceptions import BadRequestException, NotFoundException

pytestmark = pytest.mark.served

#: The demo's campaigns in the order of the scenario file (all created at its start).
DEMO = ["camp_welcome", "camp_beans", "camp_vip", "camp_weekend", "camp_app_only", "camp_winter", "camp_paused",
        "camp_newsletter", "camp_welcome_codes", "camp_gift", "camp_referral", "camp_mug_codes", "camp_brewers_club"]


def test_campaigns_page_by_page_and_filtered(sdk: Any) -> None:
    api = voucherify.CampaignsApi(sdk.client)
    first = api.list_campaigns(limit=5)
    assert isinstance(first, voucherify.CampaignsListResponseBody)
    assert (first.object, first.data_ref, first.total) == ("list", "campaigns", len(DEMO))
    pages = [c.id for page in range(1, 4) for c in api.list_campaigns(limit=5, page=page).campaigns]
    assert pages == DEMO[::-1]  # -created_at: ties reversed with the rest
    ascending = api.list_campaigns(limit=100, order=voucherify.ParameterOrderListCampaigns("created_at"))
    assert [c.id for c in ascending.campaigns] == DEMO
    gifts = api.list_campaigns(campaign_type=voucherify.ParameterCampaignType("GIFT_VOUCHERS"))
    assert [(c.id, c.voucher.gift.amount) for c in gifts.campaigns] == [("camp_gift", 5000)]
    referral = api.list_campaigns(is_referral_code=True)
    assert [c.id for c in referral.campaigns] == ["camp_referral"]


def test_a_campaign_by_id_or_name(sdk: Any) -> None:
    api = voucherify.CampaignsApi(sdk.client)
    mugs = api.get_campaign("camp_mug_codes")
    assert isinstance(mugs, voucherify.CampaignsGetResponseBody)
    assert (mugs.campaign_type, mugs.vouchers_count, mugs.category_id) == ("DISCOUNT_COUPONS", 2, "cat_member_codes")
    assert [a.rule_id for a in mugs.validation_rules_assignments.data] == ["val_camp_mug_codes"]
    assert api.get_campaign("Welcome offers").id == "camp_welcome"
    with pytest.raises(NotFoundException):
        api.get_campaign("camp_nope")


def test_filters_are_refused_not_ignored(sdk: Any) -> None:
    api = voucherify.CampaignsApi(sdk.client)
    filters = voucherify.ParameterFiltersListCampaigns.from_dict({"campaign_status": {"conditions": {"$is": "DONE"}}})
    with pytest.raises(BadRequestException, match="filters"):
        api.list_campaigns(filters=filters)
