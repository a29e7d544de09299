"""The official SDK lists and parses the promotion read endpoints, over real HTTP.

Each call goes through the SDK's own method and answers its parsed model
(a body the SDK's model refused would raise first); the assertions pin what
the demo holds, so a wrong filter or page fails here too.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import voucherify
from voucherify.exceptions import NotFoundException

pytestmark = pytest.mark.served


def test_categories(sdk: Any) -> None:
    listed = voucherify.CategoriesApi(sdk.client).list_categories()
    assert isinstance(listed, voucherify.CategoriesListResponseBody)
    assert [(c.id, c.hierarchy) for c in listed.data] == [
        ("cat_member_codes", 0), ("cat_shop_offers", 2), ("cat_free_gifts", 3)]


def test_tiers_all_available_a_campaigns_and_one(sdk: Any) -> None:
    api = voucherify.PromotionsApi(sdk.client)
    everything = api.list_promotion_tiers(limit=100)
    assert isinstance(everything, voucherify.PromotionsTiersListResponseBody)
    assert everything.total == len(everything.tiers) == 17
    off = api.list_promotion_tiers(is_available=False, limit=100)
    assert sorted(t.id for t in off.tiers) == ["promo_flash_5", "promo_winter_20"]
    page = api.list_promotion_tiers(is_available=True, limit=5, page=3,
                                    order=voucherify.ParameterOrderListPromotionTiers("created_at"))
    assert (page.total, len(page.tiers)) == (15, 5)
    club = api.list_promotion_tiers_from_campaign("camp_brewers_club")
    assert {t.campaign_id for t in club.tiers} == {"camp_brewers_club"} and club.has_more is False
    tier = api.get_promotion_tier("promo_kettle_filters")
    assert isinstance(tier, voucherify.PromotionsTiersGetResponseBody)
    assert (tier.action.discount.unit_type, tier.campaign.category_id) == ("prod_filters",
                                                                                            "cat_shop_offers")
    assert tier.validation_rule_assignments.data[0].rule_id == "val_promo_kettle_filters"
    with pytest.raises(NotFoundException):
        api.get_promotion_tier("promo_nope")


def test_stacks(sdk: Any) -> None:
    api = voucherify.PromotionsApi(sdk.client)
    listed = api.list_all_promotion_stacks(limit=10, order=voucherify.ParameterOrderListAllPromotionStacks("-name"),
                                           created_at=voucherify.ParameterCreatedBeforeAfter(
                                               before=datetime(2030, 1, 1, tzinfo=UTC)))
    assert isinstance(listed, voucherify.PromotionsStacksListResponseBody)
    assert (listed.total, listed.data) == (0, [])  # the demo has no stacks
    assert api.list_promotion_stacks_in_campaign("camp_brewers_club").total == 0
    with pytest.raises(NotFoundException):
        api.list_promotion_stacks_in_campaign("camp_nope")
