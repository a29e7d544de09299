"""The official SDK lists and parses the v1 loyalty read endpoints, over real HTTP.

Each call goes through the SDK's own `LoyaltiesApi` method and its answer is
the SDK's parsed model (a body its model refused would raise first); the
assertions pin what the demo holds: one campaign per card definition
(docs/decisions.md, "Loyalty programs of a pull").
"""

from __future__ import annotations

from typing import Any

import pytest
import voucherify
from voucherify.exceptions import NotFoundException

#: The SDK warns that the v1 loyalty API is deprecated (the service's "legacy
#: loyalty API"); it is still what a pull of a v1 project reads.
pytestmark = [pytest.mark.served, pytest.mark.filterwarnings("ignore:GET /v1/loyalties:DeprecationWarning")]


def test_the_campaigns_listed_and_read(sdk: Any) -> None:
    api = voucherify.LoyaltiesApi(sdk.client)
    listed = api.list_loyalty_programs(limit=100, order=voucherify.ParameterOrderListCampaigns("created_at"))
    assert isinstance(listed, voucherify.LoyaltiesListCampaignsResponseBody)
    assert [c.id for c in listed.campaigns] == ["lcdef_beans", "lcdef_stars", "lcdef_stamps"]
    stars = api.get_loyalty_program("lcdef_stars")
    assert isinstance(stars, voucherify.LoyaltiesGetCampaignResponseBody)
    assert (stars.campaign_type, stars.voucher.type, stars.vouchers_count, stars.active) == (
        "LOYALTY_PROGRAM", "LOYALTY_CARD", 2, True)
    with pytest.raises(NotFoundException):
        api.get_loyalty_program("lprg_coffee_club")  # a program is not a campaign: its card definitions are


def test_tiers_earning_rules_and_rewards(sdk: Any) -> None:
    api = voucherify.LoyaltiesApi(sdk.client)
    tiers = api.list_loyalty_tiers("lcdef_beans", limit=10)
    assert isinstance(tiers, voucherify.LoyaltiesTiersListResponseBody)
    assert (tiers.total, tiers.data) == (0, [])
    rules = api.list_earning_rules("lcdef_beans", order=voucherify.ParameterOrderListEarningRules("created_at"))
    assert isinstance(rules, voucherify.LoyaltiesEarningRulesListResponseBody)
    assert [r.id for r in rules.data] == ["lern_review", "lern_order"]
    assert (rules.data[0].loyalty.type, rules.data[0].loyalty.points) == ("FIXED", 50)
    proportional = rules.data[1].loyalty
    assert (proportional.calculation_type, proportional.order.metadata.points) == ("ORDER_METADATA", 1)
    rewards = api.list_reward_assignments2("lcdef_stars")
    assert isinstance(rewards, voucherify.LoyaltiesRewardsListAssignmentsResponseBody)
    assert [(a.id, a.parameters.loyalty.points) for a in rewards.data] == [("lrewa_gift", 10)]


def test_members_are_the_cards(sdk: Any) -> None:
    api = voucherify.LoyaltiesApi(sdk.client)
    members = api.list_members("lcdef_beans", limit=2, page=1, order=voucherify.ParameterOrderVouchers("code"))
    assert isinstance(members, voucherify.LoyaltiesListMembersResponseBody)
    assert members.total == 5
    assert [(v.code, v.holder_id, v.loyalty_card.balance) for v in members.vouchers] == [
        ("lcrd_alice_beans", "cust_alice", 1800), ("lcrd_bob_beans", "cust_bob", 350)]
    dave = api.list_members("lcdef_stars", customer="dave")
    assert [v.code for v in dave.vouchers] == ["lcrd_dave_stars"]
    with pytest.raises(NotFoundException):
        api.list_members("lcdef_nope")
