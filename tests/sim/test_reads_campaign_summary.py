"""A campaign's summary and transactions (`GET /v1/campaigns/{campaignId}/summary`, `/transactions`).

A few stacked redemptions (one rolled back) and a gift top-up are made
through the client a minute apart; then each campaign's summary must be the
service's shape for its type, count exactly what the ledger holds in the
range asked, and agree with the redemptions list (a differential check: the
list's `campaign` filter holds the campaign's redemptions and rollbacks).
The transactions list pages by its cursor: following `more_starting_after`
meets every transaction once, in the order asked.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from test_reads_catalogue import assert_examples_parse, assert_refused, reference, reference_errors

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.client import ApiError
from promolab.http import SimulatorTransport
from promolab.sim.operations import BY_NAME

TEMPLATE = "/v1/campaigns/{campaignId}/summary"
#: The service's shape of each campaign type's summary (its `oneOf` branches).
SHAPES = {"DISCOUNT_COUPONS": "CampaignsSummaryDiscountCampaign", "PROMOTION": "CampaignsSummaryPromotionCampaign",
          "GIFT_VOUCHERS": "CampaignsSummaryGiftCampaign", "REFERRAL_PROGRAM": "CampaignsSummaryReferralCampaign"}


def shape_errors(shape: str, answer: Any) -> list[str]:
    root = {"components": reference()["components"], "$ref": f"#/components/schemas/{shape}"}
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft202012Validator(root).iter_errors(answer)]


def ledger_sim(demo: dict[str, Any]) -> Simulator:
    """At 10:00 a code and a gift card together (rolled back at 10:03), at 10:01 a tier, at 10:02 a
    gift card alone; a 700 top-up of a gift card at 10:02 (the scenario starts 2026-03-06 10:00)."""
    sim = Simulator.from_scenario(demo)
    with sim.client() as client:
        first = client.redeem_stacked(customer={"source_id": "alice"}, order={"source_id": "o-1", "amount": 8000},
                                      redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"},
                                                   {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 500}}])
        sim.advance(60)
        client.redeem_stacked(customer={"source_id": "bob"}, order={"source_id": "o-2", "amount": 6000},
                              redeemables=[{"object": "promotion_tier", "id": "promo_welcome_10"}])
        sim.advance(60)
        client.redeem_stacked(customer={"source_id": "alice"}, order={"source_id": "o-3", "amount": 4000},
                              redeemables=[{"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 300}}])
        client.add_gift_balance("GIFT-ALICE-50", 700)
        sim.advance(60)
        assert first.parent_redemption is not None
        client.rollback_redemption(first.parent_redemption.id, reason="returned")
    return sim


@pytest.fixture(scope="module")
def recorded(_demo_document: dict[str, Any]) -> Simulator:
    return ledger_sim(copy.deepcopy(_demo_document))


def summary(sim: Simulator, campaign_id: str, **window: str) -> dict[str, Any]:
    answer = sim.apply(BY_NAME["get_campaign_summary"], campaign_id=campaign_id, **window).model_dump(mode="json")
    answer.pop("campaign")
    return answer


@pytest.mark.parametrize(("campaign_id", "kind"), [("camp_welcome_codes", "DISCOUNT_COUPONS"),
                                                   ("camp_welcome", "PROMOTION"), ("camp_gift", "GIFT_VOUCHERS"),
                                                   ("camp_referral", "REFERRAL_PROGRAM")])
def test_each_summary_is_the_services_shape_for_its_type(recorded: Simulator, campaign_id: str, kind: str) -> None:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(recorded)) as http:
        response = http.get(f"/v1/campaigns/{campaign_id}/summary", headers=APP)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["campaign"]["campaign_type"] == kind
    assert not shape_errors(SHAPES[kind], answer), shape_errors(SHAPES[kind], answer)
    assert models.CampaignSummary.model_validate_json(response.content).model_dump(mode="json") == answer


def test_the_published_oneof_is_ambiguous_so_each_type_is_checked_against_its_own_branch(
    recorded: Simulator,
) -> None:
    """A discount campaign's summary matches the discount and the promotion branch alike (neither
    closes its properties), so no discount summary can satisfy the published `oneOf`; hence `SHAPES`."""
    answer = recorded.apply(BY_NAME["get_campaign_summary"], campaign_id="camp_welcome_codes").model_dump(mode="json")
    matching = [shape for shape in SHAPES.values() if not shape_errors(shape, answer)]
    assert matching == ["CampaignsSummaryDiscountCampaign", "CampaignsSummaryPromotionCampaign"]
    assert_examples_parse(TEMPLATE, models.CampaignSummary)


def _zeros(*names: str) -> dict[str, int]:
    return {name: 0 for name in names}


COUNTED = _zeros("redemptions_failed", "rollbacks_failed", "validations", "validations_succeeded",
                 "validations_failed")


@pytest.mark.parametrize(("campaign_id", "window", "expected"), [
    ("camp_welcome_codes", {}, {"redemptions": 1, "rollbacks": 1, "vouchers_created": 3, "publications": 0,
                                "discounted_amount": 500, "rolledback_discounted_amount": 500,
                                "orders_amount": 8000, "orders_rolledback_amount": 8000}),
    ("camp_welcome", {}, {"redemptions": 1, "rollbacks": 0, "discounted_amount": 1000,
                          "rolledback_discounted_amount": 0, "orders_amount": 6000, "orders_rolledback_amount": 0}),
    ("camp_gift", {}, {"redemptions": 2, "rollbacks": 1, "amount_redeemed": 800, "amount_rolledback": 500,
                       "amount_added": 700, "orders_amount": 12000, "orders_rolledback_amount": 8000}),
    # the rollback at 10:03 is outside, the redemptions it undid (10:00) are inside
    ("camp_gift", {"end_date": "2026-03-06T10:02:30Z"}, {"redemptions": 2, "rollbacks": 0, "amount_rolledback": 0,
                                                          "orders_rolledback_amount": 0}),
    ("camp_gift", {"start_date": "2026-03-06T10:01:00Z"}, {"redemptions": 1, "rollbacks": 1, "amount_redeemed": 300,
                                                            "vouchers_created": 0, "created_vouchers_amount": 0}),
    ("camp_gift", {"start_date": "2026-03-07"}, {"redemptions": 0, "rollbacks": 0, "amount_added": 0,
                                                  "vouchers_created": 0}),
    ("camp_gift", {"end_date": "2026-03-05"}, {"redemptions": 0, "amount_added": 0, "vouchers_created": 0}),
    ("camp_gift", {"start_date": "2026-03-06", "end_date": "2026-03-06"}, {"redemptions": 2, "rollbacks": 1}),
    ("camp_referral", {}, {"redemptions": 0, "referred_customers": 0, "vouchers_created": 12}),
])
def test_the_counts_are_what_the_ledger_holds_in_the_range(
    recorded: Simulator, campaign_id: str, window: dict[str, str], expected: dict[str, int]
) -> None:
    answer = summary(recorded, campaign_id, **window)
    assert {key: answer[key] for key in expected} == expected
    assert {key: answer[key] for key in COUNTED} == COUNTED
    assert answer["redemptions_succeeded"] == answer["redemptions"]
    assert answer["rollbacks_succeeded"] == answer["rollbacks"]


def test_a_gift_campaigns_created_amount_is_its_codes_initial_credit(recorded: Simulator) -> None:
    codes = [v for v in recorded.state.vouchers.values() if v.campaign_id == "camp_gift"]
    lifetime = sum(v.gift.amount for v in codes if v.gift is not None)
    assert summary(recorded, "camp_gift")["created_vouchers_amount"] == lifetime - 700  # less the top-up


@pytest.mark.parametrize("campaign_id", ["camp_welcome_codes", "camp_welcome", "camp_gift", "camp_referral"])
def test_the_summary_agrees_with_the_redemptions_list(recorded: Simulator, campaign_id: str) -> None:
    listed = recorded.apply(BY_NAME["list_redemptions"], campaign=campaign_id, limit=100)
    counted = summary(recorded, campaign_id)
    assert listed.total == counted["redemptions"] + counted["rollbacks"]


def test_the_campaign_inside_is_the_lists(recorded: Simulator) -> None:
    (listed,) = [c for c in recorded.apply(BY_NAME["list_campaigns"], limit=100).campaigns if c.id == "camp_gift"]
    assert recorded.apply(BY_NAME["get_campaign_summary"], campaign_id="Kestrel gift cards").campaign == listed


@pytest.mark.parametrize(("query", "param"), [
    ("start_date=yesterday", "start_date"), ("end_date=2026-02-30", "end_date"),
    ("start_date=2026-03-06T10:00:00", "start_date"), ("end_date=", "end_date"),
])
def test_a_bad_date_is_400_naming_it(sim: Simulator, query: str, param: str) -> None:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(sim)) as http:
        assert_refused(sim, http, f"/v1/campaigns/camp_gift/summary?{query}", param)


def test_an_unknown_campaign_is_404_and_the_clients_agree(recorded: Simulator) -> None:
    async def read() -> models.CampaignSummary:
        async with recorded.async_client() as client:
            return await client.get_campaign_summary("camp_gift", start_date="2026-03-06")

    with recorded.client() as client:
        assert client.get_campaign_summary("camp_gift", start_date="2026-03-06") == asyncio.run(read())
        with pytest.raises(ApiError) as caught:
            client.get_campaign_summary("camp_nope")
    assert (caught.value.status, caught.value.key) == (404, "not_found")


# -- the campaign's transactions: a cursor's pages -------------------------------------------------------
def topped_up(count: int) -> Simulator:
    sim = Simulator.from_scenario("data/scenarios/demo.yaml")
    with sim.client() as client:
        for i in range(count):
            client.add_gift_balance("GIFT-ALICE-50" if i % 2 else "GIFT-BOB-25", 100 + i)
    return sim


TOPPED = topped_up(23)


@settings(max_examples=25, deadline=None)
@given(limit=st.integers(1, 30), order=st.sampled_from(["id", "-id", None]))
def test_following_the_cursor_meets_every_transaction_once_in_order(limit: int, order: str | None) -> None:
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page = TOPPED.apply(BY_NAME["list_campaign_transactions"], campaign_id="camp_gift", limit=limit, order=order,
                            starting_after_id=cursor)
        assert len(page.data) <= limit
        seen += [t.id for t in page.data]
        if not page.has_more:
            assert page.more_starting_after is None
            break
        assert page.more_starting_after == page.data[-1].id
        cursor = page.more_starting_after
    expected = sorted(TOPPED.state.voucher_transactions)
    assert seen == (expected if order == "id" else expected[::-1])


def test_the_transactions_are_the_codes_credits_as_the_balance_answered_them() -> None:
    sim = topped_up(0)
    with sim.client() as client:
        added = client.add_gift_balance("GIFT-BOB-25", 250, reason="birthday")
        listed = client.list_campaign_transactions("Kestrel gift cards")
        other = client.list_campaign_transactions("camp_welcome")
    (transaction,) = listed.data
    assert (transaction.type, transaction.reason, transaction.campaign_id) == ("CREDITS_ADDITION", "birthday", "camp_gift")
    assert transaction.details is not None and transaction.details.balance is not None
    assert transaction.details.balance.amount == added.amount == 250
    assert (other.data, other.has_more) == ([], False)


def test_the_transactions_answer_is_documented() -> None:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(TOPPED)) as http:
        response = http.get("/v1/campaigns/camp_gift/transactions?limit=5&order=id", headers=APP)
    assert response.status_code == 200
    assert not reference_errors("/v1/campaigns/{campaignId}/transactions", response.json())
    assert models.CampaignTransactionList.model_validate_json(response.content).model_dump(mode="json") == response.json()
    assert_examples_parse("/v1/campaigns/{campaignId}/transactions", models.CampaignTransactionList)


@pytest.mark.parametrize(("query", "param"), [
    ("limit=0", "limit"), ("order=created_at", "order"), ("filters[type][conditions][$in]=X", "filters"),
])
def test_a_bad_transactions_query_is_400_naming_it(sim: Simulator, query: str, param: str) -> None:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(sim)) as http:
        assert_refused(sim, http, f"/v1/campaigns/camp_gift/transactions?{query}", param)
        assert http.get("/v1/campaigns/camp_nope/transactions", headers=APP).status_code == 404


def test_the_async_client_follows_the_same_cursor() -> None:
    async def walk() -> list[str]:
        async with TOPPED.async_client() as client:
            first = await client.list_campaign_transactions("camp_gift", limit=10, order="id")
            rest = await client.list_campaign_transactions("camp_gift", limit=100, order="id",
                                                           starting_after_id=first.more_starting_after)
            return [t.id for t in first.data + rest.data]

    assert asyncio.run(walk()) == sorted(TOPPED.state.voucher_transactions)
