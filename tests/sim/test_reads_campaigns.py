"""The campaign read endpoints: `GET /v1/campaigns` and `GET /v1/campaigns/{campaignId}`.

- each answer validates against the service's published schema (tests/data/)
  and parses with promolab's model without losing or adding a field; the
  published examples parse with our models;
- paging walks every campaign once for any limit and order, descending is
  the exact reverse of ascending, ties keep the state's order;
- each filter keeps exactly the campaigns it names (table-driven, on the demo);
- what the state does not hold is derived from what it does: the code
  template from the codes, the rule assignments from the rules
  (`asgm_<id>` / `val_<id>`, the ids the validation-rule reads use);
- refusals: a bad query value, `filters` and `access_settings` are 400
  `invalid_query_params` naming the parameter and change nothing; an unknown
  campaign is the service's 404 body; the client (sync and async) raises them.
"""

from __future__ import annotations

import asyncio
import copy
from datetime import timedelta
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reads_catalogue import (
    START,
    assert_documented,
    assert_examples_parse,
    assert_refused,
    reference,
)

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.client import ApiError
from promolab.http import SimulatorTransport
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME

#: The demo's campaigns in the order of the scenario file (all created at its start).
DEMO = ["camp_welcome", "camp_beans", "camp_vip", "camp_weekend", "camp_app_only", "camp_winter", "camp_paused",
        "camp_newsletter", "camp_welcome_codes", "camp_gift", "camp_referral", "camp_mug_codes", "camp_brewers_club"]


@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim))


def campaigns_sim(count: int) -> Simulator:
    """`count` campaigns, each created a minute after the one before except
    every third, which ties with the one before it; every fourth is a coupon
    campaign with two codes."""
    campaigns = [{"id": f"camp_{i:04d}", "name": f"Campaign {i}"} if i % 4 else
                 {"id": f"camp_{i:04d}", "name": f"Campaign {i}", "type": "DISCOUNT_COUPONS",
                  "vouchers": [{"code": f"C{i}-A"}, {"code": f"C{i}-B"}]} for i in range(count)]
    sim = Simulator.from_scenario({"campaigns": campaigns})
    minute = 0
    for i, record in enumerate(sim.state.campaigns.values()):
        minute += 0 if i % 3 == 2 else 1
        record.created_at = START + timedelta(minutes=minute)
    return sim


# -- every answer against the published schema ------------------------------------------------------
ANSWERS: list[tuple[str, str, type[models.WireModel]]] = [
    ("/v1/campaigns", "/v1/campaigns?limit=100", models.CampaignList),
    ("/v1/campaigns", "/v1/campaigns?limit=100&expand=access_settings_assignments&order=created_at",
     models.CampaignList),
    ("/v1/campaigns/{campaignId}", "/v1/campaigns/camp_mug_codes", models.Campaign),  # coupons, rules, category
    ("/v1/campaigns/{campaignId}", "/v1/campaigns/camp_gift", models.Campaign),
    ("/v1/campaigns/{campaignId}", "/v1/campaigns/camp_referral", models.Campaign),
    ("/v1/campaigns/{campaignId}", "/v1/campaigns/Welcome%20offers", models.Campaign),  # a promotion, by name
]


@pytest.mark.parametrize(("template", "path", "model"), ANSWERS, ids=[a[1] for a in ANSWERS])
def test_an_answer_parses_and_is_what_the_service_documents(
    sim: Simulator, template: str, path: str, model: type[models.WireModel]
) -> None:
    assert_documented(sim, template, path, model)


@pytest.mark.parametrize(("template", "model"), [("/v1/campaigns", models.CampaignList),
                                                 ("/v1/campaigns/{campaignId}", models.Campaign)])
def test_the_published_examples_parse_with_our_models(template: str, model: type[models.WireModel]) -> None:
    assert_examples_parse(template, model)


def test_the_answer_keeps_the_services_field_order(sim: Simulator) -> None:
    published = reference()["paths"]["/v1/campaigns/{campaignId}"]["examples"]["Example"]
    with sim.client() as client:
        ours = client.get_campaign("camp_welcome_codes").model_dump(mode="json")
    shared = [key for key in published if key in ours]
    assert [key for key in ours if key in published] == shared
    assert len(shared) >= 17


def test_a_campaign_of_codes_shows_the_template_its_codes_follow(sim: Simulator) -> None:
    with sim.client() as client:
        gift = client.get_campaign("camp_gift")
        mugs = client.get_campaign("camp_mug_codes")
        promotion = client.get_campaign("camp_welcome")
    codes = [v.code for v in sim.state.vouchers.values() if v.campaign_id == "camp_gift"]
    assert gift.voucher is not None and gift.voucher.gift is not None and gift.voucher.code_config is not None
    assert gift.voucher.code_config.prefix is not None
    assert (gift.voucher.type, gift.voucher.gift.amount, gift.vouchers_count) == ("GIFT_VOUCHER", 5000, len(codes))
    prefix = gift.voucher.code_config.prefix
    assert all(code.startswith(prefix) for code in codes)
    assert gift.voucher.code_config.pattern == prefix + "#" * max(len(c) - len(prefix) for c in codes)
    assert set("".join(c[len(prefix):] for c in codes)) == set(gift.voucher.code_config.charset or "")
    assert mugs.voucher is not None and mugs.voucher.discount is not None
    assert mugs.voucher.discount.model_dump(mode="json") == sim.state.campaigns["camp_mug_codes"].discount
    assert (promotion.voucher, promotion.vouchers_count) == (None, None)  # tiers, not codes


def test_a_campaigns_rules_are_one_assignment_with_the_synthesized_ids(sim: Simulator) -> None:
    with sim.client() as client:
        ruled = client.get_campaign("camp_mug_codes").validation_rules_assignments
        bare = client.get_campaign("camp_newsletter").validation_rules_assignments
        listed = client.list_campaigns(limit=100).campaigns
    assert ruled is not None and bare is not None
    assert [(a.id, a.rule_id, a.related_object_id, a.related_object_type) for a in ruled.data] == [
        ("asgm_camp_mug_codes", "val_camp_mug_codes", "camp_mug_codes", "campaign")]
    assert (ruled.total, bare.total, bare.data) == (1, 0, [])
    assert all(c.validation_rules_assignments is None for c in listed)  # a list shows CampaignBase


def test_a_campaigns_categories(sim: Simulator) -> None:
    with sim.client() as client:
        club = client.get_campaign("camp_brewers_club")
    assert (club.category_id, club.category) == ("cat_shop_offers", sim.state.categories["cat_shop_offers"].name)
    assert [c.id for c in club.categories] == ["cat_shop_offers"]


# -- paging, ordering, filters ------------------------------------------------------------------------
WALKED = campaigns_sim(130)


@settings(max_examples=30, deadline=None)
@given(limit=st.integers(1, 100), order=st.sampled_from(["created_at", "-created_at", "updated_at", None]))
def test_walking_the_pages_meets_every_campaign_once(limit: int, order: str | None) -> None:
    seen: list[str] = []
    page = 1
    while page <= 100:
        answer = WALKED.apply(BY_NAME["list_campaigns"], limit=limit, page=page, order=order)
        assert answer.total == 130
        if not answer.campaigns:
            break
        assert len(answer.campaigns) <= limit
        seen += [c.id for c in answer.campaigns]
        page += 1
    assert len(seen) == len(set(seen)) == min(130, 100 * limit)
    if limit >= 2:
        assert page == -(-130 // limit) + 1


def test_descending_is_the_exact_reverse_and_ties_keep_the_states_order() -> None:
    sim = campaigns_sim(7)
    up = [c.id for c in sim.apply(BY_NAME["list_campaigns"], order="created_at").campaigns]
    down = [c.id for c in sim.apply(BY_NAME["list_campaigns"], order="-created_at").campaigns]
    default = [c.id for c in sim.apply(BY_NAME["list_campaigns"]).campaigns]
    by_update = [c.id for c in sim.apply(BY_NAME["list_campaigns"], order="-updated_at").campaigns]
    assert up == list(sim.state.campaigns)
    assert down == up[::-1] == default == by_update
    times = [sim.state.campaigns[cid].created_at for cid in up]
    assert times == sorted(times) and len(set(times)) < len(times)


@pytest.mark.parametrize(("query", "expected"), [
    ({"campaign_type": "DISCOUNT_COUPONS"}, ["camp_newsletter", "camp_welcome_codes", "camp_mug_codes"]),
    ({"campaign_type": "GIFT_VOUCHERS"}, ["camp_gift"]),
    ({"campaign_type": "LOYALTY_PROGRAM"}, []),  # listed under /v1/loyalties (docs/decisions.md)
    ({"campaign_type": "PROMOTION"}, [c for c in DEMO if c in ("camp_welcome", "camp_beans", "camp_vip",
                                      "camp_weekend", "camp_app_only", "camp_winter", "camp_paused",
                                      "camp_brewers_club")]),
    ({"is_referral_code": "true"}, ["camp_referral"]),
    ({"is_referral_code": "false"}, [c for c in DEMO if c != "camp_referral"]),
    ({"campaign_status": "DONE"}, DEMO),
    ({"campaign_status": "DRAFT"}, []),
    ({"campaign_type": "REFERRAL_PROGRAM", "is_referral_code": "false"}, []),
    ({"expand": "category"}, DEMO),
])
def test_each_filter_keeps_what_it_names(sim: Simulator, query: dict[str, str], expected: list[str]) -> None:
    answer = sim.apply(BY_NAME["list_campaigns"], limit=100, order="created_at", **query)
    assert [c.id for c in answer.campaigns] == expected
    assert answer.total == len(expected)


def test_the_expanded_access_settings_are_an_empty_list(sim: Simulator) -> None:
    answer = sim.apply(BY_NAME["list_campaigns"], expand="access_settings_assignments")
    assert all(c.access_settings_assignments is not None and c.access_settings_assignments.total == 0
               for c in answer.campaigns)
    assert all(c.access_settings_assignments is None for c in sim.apply(BY_NAME["list_campaigns"]).campaigns)


# -- refusals ---------------------------------------------------------------------------------------
BAD_QUERIES = [
    ("limit=0", "limit"), ("limit=101", "limit"), ("page=0", "page"), ("page=101", "page"),
    ("order=name", "order"), ("campaign_type=COUPONS", "campaign_type"), ("campaign_status=done", "campaign_status"),
    ("is_referral_code=maybe", "is_referral_code"), ("is_referral_code=1", "is_referral_code"),
    ("expand=tiers", "expand"),
    ("filters[campaigns][conditions][$in]=camp_gift", "filters"), ('filters={"active":{"$enabled":{}}}', "filters"),
    ("access_settings[filter][areas_ids]=ar_1", "access_settings"), ("access_settings=[1]", "access_settings"),
]


@pytest.mark.parametrize(("query", "param"), BAD_QUERIES)
def test_a_bad_query_is_400_naming_the_parameter(sim: Simulator, http: httpx.Client, query: str, param: str) -> None:
    assert_refused(sim, http, f"/v1/campaigns?{query}", param)


@pytest.mark.parametrize(("args", "param"), [
    ({"limit": 0}, "limit"), ({"is_referral_code": True}, "is_referral_code"), ({"campaign_type": "X"}, "campaign_type"),
    ({"filters": {"active": {}}}, "filters"), ({"access_settings": {"filter": {}}}, "access_settings"),
])
def test_in_process_the_same_refusal(sim: Simulator, args: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidQueryParams, match=f"Query parameter {param} "):
        sim.apply(BY_NAME["list_campaigns"], **args)


@pytest.mark.parametrize("campaign_id", ["camp_nope", "welcome offers"])  # a name is matched exactly
def test_an_unknown_campaign_is_the_services_404(http: httpx.Client, campaign_id: str) -> None:
    response = http.get(f"/v1/campaigns/{campaign_id}", headers=APP)
    assert response.status_code == 404
    body = response.json()
    assert (body["code"], body["key"], body["message"]) == (404, "not_found", "Resource not found")
    assert (body["details"], body["resource_id"], body["resource_type"]) == (
        f"Cannot find campaign with id {campaign_id}", campaign_id, "campaign")


def test_the_sync_and_async_clients_agree_and_raise_the_refusal(sim: Simulator) -> None:
    async def read() -> tuple[models.CampaignList, models.Campaign]:
        async with sim.async_client() as client:
            return (await client.list_campaigns(campaign_type="DISCOUNT_COUPONS", is_referral_code=False, limit=2),
                    await client.get_campaign("Kestrel gift cards"))

    async_list, async_gift = asyncio.run(read())
    with sim.client() as client:
        sync_list = client.list_campaigns(campaign_type="DISCOUNT_COUPONS", is_referral_code=False, limit=2)
        assert client.get_campaign("camp_gift") == async_gift
        with pytest.raises(ApiError) as caught:
            client.list_campaigns(page=0)
    assert sync_list == async_list
    assert ([c.id for c in sync_list.campaigns], sync_list.total) == (["camp_mug_codes", "camp_welcome_codes"], 3)  # newest first
    assert caught.value.status == 400 and "page" in str(caught.value)


def test_reading_is_deterministic_and_changes_nothing(sim: Simulator, http: httpx.Client) -> None:
    before = sim.dump_json()
    first = http.get("/v1/campaigns?limit=100", headers=APP).content
    assert http.get("/v1/campaigns?limit=100", headers=APP).content == first
    assert sim.dump_json() == before


@pytest.mark.parametrize(("terms", "assigned"), [
    ({"applicable_to": {"included": [{"object": "product", "id": "prod_mug"}]}}, True),  # a scope alone
    ({"validation_rules": {"rules": {"logic": ""}}}, False),  # rules with no condition check nothing
    ({"applicable_to": {"included": [], "excluded": []}}, False),
    ({}, False),
])
def test_an_assignment_stands_for_terms_that_check_something(
    _demo_document: dict[str, Any], terms: dict[str, Any], assigned: bool
) -> None:
    """The same owners the validation-rule reads give a rule (`val_<owner id>`)."""
    document = copy.deepcopy(_demo_document)
    coupons = next(c for c in document["campaigns"] if c["id"] == "camp_welcome_codes")
    coupons.update(terms)
    answer = Simulator.from_scenario(document).apply(BY_NAME["get_campaign"], campaign_id="camp_welcome_codes")
    assert answer.validation_rules_assignments is not None
    assert [a.rule_id for a in answer.validation_rules_assignments.data] == (
        ["val_camp_welcome_codes"] if assigned else [])
