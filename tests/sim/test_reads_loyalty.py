"""The v1 loyalty read endpoints: campaigns (one per card definition), their tiers, earning rules and rewards.

- every answer validates against the service's published schema (tests/data/)
  and parses with promolab's model; the published examples parse too;
- the decision of docs/decisions.md ("Loyalty programs of a pull"): one
  LOYALTY_PROGRAM campaign per card definition, its earning rules those
  that credit its card, its rewards those priced in its points;
- paging meets every campaign and rule once (hypothesis), ordering both ways;
- refusals: an unknown campaign is 404 with the service's error body, a bad
  query is 400 naming the parameter and changes nothing;
- the sync and async clients read the same answers as the operations.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reads_catalogue import (
    assert_documented,
    assert_examples_parse,
    assert_refused,
    reference,
    stagger,
)

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.http import SimulatorTransport
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME

LIST, GET = BY_NAME["list_loyalty_programs"], BY_NAME["get_loyalty_program"]
TIERS, RULES, REWARDS = BY_NAME["list_loyalty_tiers"], BY_NAME["list_earning_rules"], BY_NAME["list_reward_assignments"]
MEMBERS = BY_NAME["list_members"]


def loyalty_sim(programs: int, rules: int = 0, members: int = 0) -> Simulator:
    """`programs` programs of two card definitions each (the first with
    `rules` earning rules and `members` members, each with a card of its
    first card definition, which the rules credit), each program, rule and
    member created a minute after the one before, except every third, which ties."""
    document = {
        "customers": [{"id": f"cust_{m:03d}", "source_id": f"c{m}"} for m in range(members)],
        "event_schema": [{"name": "order_placed"}],
        "loyalty": {
            "incentives": [{"id": "linc_0001", "name": "Ten points", "type": "POINTS",
                            "points": {"value": 10, "card_definition_id": "lcdef_000_0"}}],
            "programs": [{
                "id": f"lprg_{i:03d}", "name": f"Program {i}",
                "card_definitions": [{"id": f"lcdef_{i:03d}_{j}", "name": f"Wallet {j}"} for j in range(2)],
                "earning_rules": [{"id": f"lern_{k:03d}", "event": "order_placed", "incentive": "linc_0001"}
                                  for k in range(rules if i == 0 else 0)],
                "members": [{"id": f"lmbr_{m:03d}", "customer": f"cust_{m:03d}",
                             "cards": [{"id": f"lcrd_{m:03d}", "card_definition": "lcdef_000_0", "balance": m}]}
                            for m in range(members if i == 0 else 0)],
            } for i in range(programs)],
        },
    }
    sim = Simulator.from_scenario(document)
    stagger(sim.state.programs.values())
    stagger(sim.state.earning_rules.values())
    stagger(sim.state.members.values())
    return sim


# -- every answer against the published schema ------------------------------------------------------
#: (template path, concrete path, our model)
ANSWERS: list[tuple[str, str, type[models.WireModel]]] = [
    ("/v1/loyalties", "/v1/loyalties?limit=100", models.LoyaltyCampaignList),
    ("/v1/loyalties/{campaignId}", "/v1/loyalties/lcdef_beans", models.LoyaltyCampaign),
    ("/v1/loyalties/{campaignId}", "/v1/loyalties/lcdef_stamps", models.LoyaltyCampaign),
    ("/v1/loyalties/{campaignId}/tiers", "/v1/loyalties/lcdef_beans/tiers", models.LoyaltyTierList),
    ("/v1/loyalties/{campaignId}/earning-rules", "/v1/loyalties/lcdef_beans/earning-rules",
     models.LoyaltyEarningRuleList),
    ("/v1/loyalties/{campaignId}/earning-rules", "/v1/loyalties/lcdef_stars/earning-rules",
     models.LoyaltyEarningRuleList),
    ("/v1/loyalties/{campaignId}/rewards", "/v1/loyalties/lcdef_beans/rewards", models.LoyaltyRewardAssignmentList),
    ("/v1/loyalties/{campaignId}/rewards", "/v1/loyalties/lcdef_stamps/rewards", models.LoyaltyRewardAssignmentList),
    ("/v1/loyalties/{campaignId}/members", "/v1/loyalties/lcdef_beans/members?limit=100", models.LoyaltyMemberList),
    ("/v1/loyalties/{campaignId}/members", "/v1/loyalties/lcdef_stars/members?customer=dave", models.LoyaltyMemberList),
]


@pytest.mark.parametrize(("template", "path", "model"), ANSWERS, ids=[a[1] for a in ANSWERS])
def test_an_answer_parses_and_is_what_the_service_documents(
    sim: Simulator, template: str, path: str, model: type[models.WireModel]
) -> None:
    assert_documented(sim, template, path, model)


@pytest.mark.parametrize(("template", "model"), sorted({(a[0], a[2]) for a in ANSWERS}, key=str))
def test_the_published_examples_parse_with_our_models(template: str, model: type[models.WireModel]) -> None:
    assert_examples_parse(template, model)


def test_a_campaign_keeps_the_services_field_order(sim: Simulator) -> None:
    published = reference()["paths"]["/v1/loyalties"]["examples"]["Example"]["campaigns"][1]
    ours = sim.apply(GET, campaign_id="lcdef_beans").model_dump(mode="json")
    shared = [key for key in published if key in ours]
    assert [key for key in ours if key in published] == shared
    assert len(shared) >= 18


# -- the decision: one v1 campaign per card definition ----------------------------------------------
@pytest.mark.parametrize(("campaign_id", "name", "cards", "active", "start"), [
    ("lcdef_beans", "Kestrel Coffee Club: Beans (points)", 5, True, "2026-01-01T00:00:00.000Z"),
    ("lcdef_stars", "Kestrel Coffee Club: Stars", 2, True, "2026-01-01T00:00:00.000Z"),
    ("lcdef_stamps", "Legacy stamp card (closed): Stamps", 1, False, None),
])
def test_each_card_definition_is_a_loyalty_campaign(sim: Simulator, campaign_id: str, name: str, cards: int,
                                                    active: bool, start: str | None) -> None:
    campaign = sim.apply(GET, campaign_id=campaign_id).model_dump(mode="json")
    assert (campaign["id"], campaign["name"], campaign["campaign_type"], campaign["voucher"]["type"]) == (
        campaign_id, name, "LOYALTY_PROGRAM", "LOYALTY_CARD")
    assert (campaign["vouchers_count"], campaign["active"], campaign.get("start_date")) == (cards, active, start)
    assert sim.apply(GET, campaign_id=name).id == campaign_id  # found by its name too, as the service finds it


def test_the_list_holds_every_card_definition_once(sim: Simulator) -> None:
    listed = sim.apply(LIST, limit=100, order="created_at")
    assert [c.id for c in listed.campaigns] == list(sim.state.card_definitions)  # all made at the scenario's start
    assert listed.total == len(sim.state.card_definitions) == 3
    assert sim.apply(LIST, limit=100, expand="category").campaigns[0].categories == []


@pytest.mark.parametrize(("campaign_id", "rules"), [
    ("lcdef_beans", [("lern_order", {"type": "PROPORTIONAL", "calculation_type": "ORDER_METADATA",
                                     "order": {"metadata": {"every": 100, "points": 1, "property": "amount"}}}),
                     ("lern_review", {"type": "FIXED", "points": 50})]),
    ("lcdef_stars", [("lern_loyal_stars", {"type": "PROPORTIONAL", "calculation_type": "CUSTOMER_METADATA",
                                           "customer": {"metadata": {"every": 5, "points": 1, "property": "orders"}}})]),
    ("lcdef_stamps", []),
])
def test_a_campaign_lists_the_rules_that_credit_its_card(sim: Simulator, campaign_id: str,
                                                         rules: list[tuple[str, dict[str, Any]]]) -> None:
    answer = sim.apply(RULES, campaign_id=campaign_id)
    assert [(r.id, r.loyalty) for r in answer.data] == rules  # newest first: ties in reverse of the scenario's order
    assert all(r.source["object_id"] == campaign_id for r in answer.data)
    assert answer.total == len(rules)


@pytest.mark.parametrize(("campaign_id", "query", "priced"), [
    ("lcdef_beans", {}, [("lrewa_mug", 500), ("lrewa_beans", 1500), ("lrewa_coupon", 300), ("lrewa_sticker", 0)]),
    ("lcdef_beans", {"limit": 2, "page": 2}, [("lrewa_coupon", 300), ("lrewa_sticker", 0)]),
    ("lcdef_beans", {"assignment_id": "lrewa_beans"}, [("lrewa_beans", 1500)]),
    ("lcdef_beans", {"assignment_id": "lrewa_gift"}, []),  # priced in stars: another campaign's
    ("lcdef_stars", {}, [("lrewa_gift", 10)]),
    ("lcdef_stamps", {}, [("lrewa_legacy_mug", 8)]),
])
def test_a_campaign_offers_the_rewards_priced_in_its_points(sim: Simulator, campaign_id: str, query: dict[str, Any],
                                                            priced: list[tuple[str, int]]) -> None:
    answer = sim.apply(REWARDS, campaign_id=campaign_id, **query)
    assert [(a.id, (a.parameters or {})["loyalty"]["points"]) for a in answer.data] == priced
    assert {a.related_object_id for a in answer.data} <= {campaign_id}


def test_the_simulator_has_no_loyalty_tiers(sim: Simulator) -> None:
    assert sim.apply(TIERS, campaign_id="lcdef_beans", limit=1).model_dump(mode="json") == {
        "object": "list", "data_ref": "data", "data": [], "total": 0}


def test_each_card_is_a_loyalty_card_voucher_held_by_its_customer(sim: Simulator) -> None:
    cards = sim.apply(MEMBERS, campaign_id="lcdef_beans", limit=100, order="created_at").vouchers
    assert [(v.code, v.holder_id, v.loyalty_card, v.active) for v in cards] == [
        ("lcrd_alice_beans", "cust_alice", {"points": 1800, "balance": 1800}, True),
        ("lcrd_bob_beans", "cust_bob", {"points": 350, "balance": 350}, True),
        ("lcrd_carol_beans", "cust_carol", {"points": 900, "balance": 900}, False),  # an INACTIVE member
        ("lcrd_dave_beans", "cust_dave", {"points": 0, "balance": 0}, True),
        ("lcrd_frank_beans", "cust_frank", {"points": 620, "balance": 620}, True),
    ]
    assert {(v.campaign, v.campaign_id) for v in cards} == {("Kestrel Coffee Club: Beans (points)", "lcdef_beans")}
    assert [v.code for v in sim.apply(MEMBERS, campaign_id="lcdef_stars").vouchers] == [
        "lcrd_dave_stars", "lcrd_alice_stars"]  # newest first: ties in reverse


def test_a_purchase_shows_as_redeemed_points_and_changes_the_card(sim: Simulator) -> None:
    with sim.client() as client:
        client.purchase_reward("lprg_coffee_club", "lmbr_alice", "lrew_mug")  # 500 beans
        assert client.list_members("lcdef_beans", code="lcrd_alice_beans").vouchers[0].updated_at is None  # PENDING
        sim.advance(60)
        (alice,) = client.list_members("lcdef_beans", code="lcrd_alice_beans").vouchers
    assert alice.loyalty_card == {"points": 1800, "balance": 1300}
    assert (alice.redemption["redeemed_points"], alice.redemption["redeemed_quantity"]) == (500, 1)
    changed = sim.apply(MEMBERS, campaign_id="lcdef_beans", updated_after="2026-03-06T10:00:00Z")
    assert [v.code for v in changed.vouchers] == ["lcrd_alice_beans"]
    assert [v.code for v in sim.apply(MEMBERS, campaign_id="lcdef_beans", order="-updated_at", limit=1).vouchers] == [
        "lcrd_alice_beans"]


@pytest.mark.parametrize(("query", "codes"), [
    ({"customer": "cust_bob"}, ["lcrd_bob_beans"]),
    ({"customer": "bob"}, ["lcrd_bob_beans"]),  # a source id finds the customer too
    ({"customer": "cust_erin"}, []),  # no card
    ({"customer": "nobody"}, []),
    ({"code": "lcrd_dave_beans"}, ["lcrd_dave_beans"]),
    ({"code": "lcrd_dave_stars"}, []),  # another campaign's card
    ({"order": "code", "limit": 2}, ["lcrd_alice_beans", "lcrd_bob_beans"]),
    ({"order": "-code", "limit": 2}, ["lcrd_frank_beans", "lcrd_dave_beans"]),
    ({"created_after": "2026-03-06T10:00:00Z", "order": "code", "limit": 1}, ["lcrd_alice_beans"]),
    ({"created_before": "2026-03-06T09:59:59Z"}, []),
    ({"updated_before": "2027-01-01T00:00:00Z"}, []),  # nothing changed yet: no updated_at matches
])
def test_the_members_filters(sim: Simulator, query: dict[str, Any], codes: list[str]) -> None:
    answer = sim.apply(MEMBERS, campaign_id="lcdef_beans", **query)
    assert [v.code for v in answer.vouchers] == codes


# -- paging and ordering ------------------------------------------------------------------------------
WALKED = loyalty_sim(61, rules=130, members=150)  # 122 campaigns; 130 rules and 150 cards of lcdef_000_0


def _page_ids(listed: str, **query: Any) -> tuple[list[str], int]:
    if listed == "campaigns":
        campaigns = WALKED.apply(LIST, **query)
        return [c.id for c in campaigns.campaigns], campaigns.total
    if listed == "rules":
        rules = WALKED.apply(RULES, campaign_id="lcdef_000_0", **query)
        return [r.id for r in rules.data], rules.total
    cards = WALKED.apply(MEMBERS, campaign_id="lcdef_000_0", **query)
    return [v.id for v in cards.vouchers], cards.total


@settings(max_examples=40, deadline=None)
@given(limit=st.integers(1, 100), order=st.sampled_from(["created_at", "-created_at", "-updated_at", None]),
       listed=st.sampled_from(["campaigns", "rules", "members"]))
def test_walking_the_pages_meets_every_object_once(limit: int, order: str | None, listed: str) -> None:
    expected = {"campaigns": set(WALKED.state.card_definitions), "rules": set(WALKED.state.earning_rules),
                "members": set(WALKED.state.cards)}[listed]
    seen: list[str] = []
    for page in range(1, 101):
        ids, total = _page_ids(listed, limit=limit, page=page, order=order)
        assert total == len(expected) and len(ids) <= limit
        if not ids:
            break
        seen += ids
    assert len(seen) == len(set(seen)) == min(len(expected), 100 * limit)
    assert set(seen) <= expected


@pytest.mark.parametrize("listed", ["campaigns", "rules", "members"])
def test_descending_is_the_exact_reverse_and_ties_keep_the_states_order(listed: str) -> None:
    sim = loyalty_sim(7, rules=7, members=7)  # minutes 1, 2, 2, 3, 4, 4, 5: ties to keep
    state = {"campaigns": sim.state.card_definitions, "rules": sim.state.earning_rules, "members": sim.state.cards}

    def ids(order: str | None) -> list[str]:
        if listed == "campaigns":
            return [c.id for c in sim.apply(LIST, limit=100, order=order).campaigns]
        if listed == "rules":
            return [r.id for r in sim.apply(RULES, campaign_id="lcdef_000_0", limit=100, order=order).data]
        return [v.id for v in sim.apply(MEMBERS, campaign_id="lcdef_000_0", limit=100, order=order).vouchers]

    up = ids("created_at")
    assert up == list(state[listed])
    # nothing changed since the scenario: updated_at ties everywhere (or sorts as created_at), the state's order kept
    assert ids("-created_at") == up[::-1] == ids(None) == ids("-updated_at")
    assert ids("updated_at") == up


# -- refusals ---------------------------------------------------------------------------------------
@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim))


@pytest.mark.parametrize("path", [
    "/v1/loyalties/lcdef_nope", "/v1/loyalties/lprg_coffee_club", "/v1/loyalties/lcdef_nope/tiers",
    "/v1/loyalties/lcdef_nope/earning-rules", "/v1/loyalties/lcdef_nope/rewards", "/v1/loyalties/lcdef_nope/members",
])
def test_an_unknown_campaign_is_404_with_the_services_body(http: httpx.Client, path: str) -> None:
    response = http.get(path, headers=APP)
    body = response.json()
    wanted = path.split("/")[3]
    assert response.status_code == 404
    assert (body["code"], body["key"], body["resource_type"], body["resource_id"]) == (404, "not_found", "campaign",
                                                                                       wanted)
    assert body["details"] == f"Cannot find campaign with id {wanted}"


BAD_QUERIES = [
    ("/v1/loyalties?limit=0", "limit"), ("/v1/loyalties?page=101", "page"), ("/v1/loyalties?expand=tiers", "expand"),
    ("/v1/loyalties?order=name", "order"), ("/v1/loyalties/lcdef_beans/tiers?limit=101", "limit"),
    ("/v1/loyalties/lcdef_beans/tiers?order=code", "order"),
    ("/v1/loyalties/lcdef_beans/earning-rules?page=0", "page"),
    ("/v1/loyalties/lcdef_beans/earning-rules?order=-code", "order"),
    ("/v1/loyalties/lcdef_beans/rewards?limit=ten", "limit"), ("/v1/loyalties/lcdef_beans/rewards?page=-1", "page"),
    ("/v1/loyalties/lcdef_beans/members?order=balance", "order"),
    ("/v1/loyalties/lcdef_beans/members?created_at[before]=yesterday", "created_at[before]"),
    ("/v1/loyalties/lcdef_beans/members?updated_at[after]=2026-03-06", "updated_at[after]"),
    ("/v1/loyalties/lcdef_beans/members?limit=101", "limit"),
]


@pytest.mark.parametrize(("path", "param"), BAD_QUERIES)
def test_a_bad_query_is_400_naming_the_parameter(sim: Simulator, http: httpx.Client, path: str, param: str) -> None:
    assert_refused(sim, http, path, param)


def test_in_process_the_same_refusal(sim: Simulator) -> None:
    with pytest.raises(InvalidQueryParams, match="Query parameter limit "):
        sim.apply(RULES, campaign_id="lcdef_beans", limit=True)
    with pytest.raises(TypeError, match="page"):
        sim.apply(TIERS, campaign_id="lcdef_beans", page=2)  # the tiers list has no page


# -- the clients ----------------------------------------------------------------------------------------
def test_the_sync_and_async_clients_read_what_the_operations_answer(sim: Simulator) -> None:
    direct = [sim.apply(LIST, limit=2, page=2), sim.apply(GET, campaign_id="lcdef_stars"),
              sim.apply(TIERS, campaign_id="lcdef_stars"), sim.apply(RULES, campaign_id="lcdef_beans", order="created_at"),
              sim.apply(REWARDS, campaign_id="lcdef_beans", assignment_id="lrewa_mug"),
              sim.apply(MEMBERS, campaign_id="lcdef_beans", customer="alice")]
    with sim.client() as client:
        synced = [client.list_loyalty_programs(limit=2, page=2), client.get_loyalty_program("lcdef_stars"),
                  client.list_loyalty_tiers("lcdef_stars"), client.list_earning_rules("lcdef_beans", order="created_at"),
                  client.list_reward_assignments("lcdef_beans", assignment_id="lrewa_mug"),
                  client.list_members("lcdef_beans", customer="alice")]

    async def read() -> list[models.WireModel]:
        async with sim.async_client() as client:
            return [await client.list_loyalty_programs(limit=2, page=2), await client.get_loyalty_program("lcdef_stars"),
                    await client.list_loyalty_tiers("lcdef_stars"),
                    await client.list_earning_rules("lcdef_beans", order="created_at"),
                    await client.list_reward_assignments("lcdef_beans", assignment_id="lrewa_mug"),
                    await client.list_members("lcdef_beans", customer="alice")]

    dumped = [answer.model_dump(mode="json") for answer in direct]
    assert [a.model_dump(mode="json") for a in synced] == dumped == [
        a.model_dump(mode="json") for a in asyncio.run(read())]
    assert [c.id for c in direct[0].campaigns] == ["lcdef_beans"]  # page 2 of 2 of the newest first (ties reversed)
