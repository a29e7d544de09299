"""The promotion read endpoints: categories, promotion tiers, promotion stacks.

- every answer validates against the service's published schema
  (tests/data/) and parses with promolab's model, losing and adding nothing;
  where the published examples themselves carry a `null` the schema does
  not allow (a campaign's dates, a tier without rules), the check allows
  exactly those, and a test shows the examples need it;
- a tier names its rule by the ids the validation-rule reads serve
  (`val_<tier id>`, `asgm_<tier id>`);
- paging walks every tier and stack once, both orders, ties in the state's
  order; `is_available` and the stacks' time filters, table-driven;
- 404 for an unknown tier or campaign, 400 naming a bad query parameter,
  over HTTP and in process alike; sync and async clients.
"""

from __future__ import annotations

import asyncio
import copy
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from test_reads_catalogue import assert_refused, reference, reference_errors

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.client import ApiError
from promolab.http import SimulatorTransport
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME
from promolab.sim.records import PromotionStack

TIERS, CAMPAIGN_TIERS, TIER = (BY_NAME[n] for n in ("list_promotion_tiers", "list_campaign_promotion_tiers",
                                                     "get_promotion_tier"))
STACKS, CAMPAIGN_STACKS, CATEGORIES = (BY_NAME[n] for n in ("list_promotion_stacks",
                                                              "list_campaign_promotion_stacks", "list_categories"))
START = datetime(2026, 3, 6, 10, 0, tzinfo=UTC)
#: Where the published examples carry null and the schema says a string or an object.
_NULL_IN_EXAMPLES = ("campaign.start_date", "campaign.expiration_date", "validation_rule_assignments")


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


@cache
def _as_the_examples_show() -> dict[str, Any]:
    components = copy.deepcopy(reference()["components"])
    tier = components["schemas"]["PromotionTier"]["properties"]
    for name in ("start_date", "expiration_date"):
        tier["campaign"]["properties"][name] = _nullable(tier["campaign"]["properties"][name])
    tier["validation_rule_assignments"] = _nullable(tier["validation_rule_assignments"])
    return components


def documented_errors(path: str, answer: Any) -> list[str]:
    """`reference_errors`, with the nulls the published examples show allowed."""
    root = {"components": _as_the_examples_show(), **reference()["paths"][path]["schema"]}
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in Draft202012Validator(root).iter_errors(answer)]


@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim))


def stacked_sim(count: int) -> Simulator:
    """The demo with `count` stacks of the brewers' club's two kettle tiers,
    each created a minute after the one before except every third (a tie),
    named backwards so that `name` and `created_at` order them differently."""
    sim = Simulator.from_scenario("data/scenarios/demo.yaml")
    minute = 0
    for i in range(count):
        minute += 0 if i % 3 == 2 else 1
        sim.state.promotion_stacks[f"stack_{i:03d}"] = PromotionStack(
            id=f"stack_{i:03d}", campaign_id="camp_brewers_club", name=f"Stack {count - i:03d}",
            tier_ids=["promo_kettle_10pct", "promo_kettle_filters"], created_at=START + timedelta(minutes=minute))
    return sim


# -- every answer against the published schema ------------------------------------------------------
ANSWERS: list[tuple[str, str, type[models.WireModel]]] = [
    ("/v1/categories", "/v1/categories", models.CategoryList),
    ("/v1/promotions/tiers", "/v1/promotions/tiers?limit=100", models.TierDefinitionList),
    ("/v1/promotions/{campaignId}/tiers", "/v1/promotions/camp_brewers_club/tiers", models.TierDefinitionList),
    ("/v1/promotions/{campaignId}/tiers", "/v1/promotions/camp_weekend/tiers", models.TierDefinitionList),
    ("/v1/promotions/tiers/{promotionTierId}", "/v1/promotions/tiers/promo_kettle_filters", models.TierDefinition),
    ("/v1/promotions/tiers/{promotionTierId}", "/v1/promotions/tiers/promo_app_espresso", models.TierDefinition),
    ("/v1/promotions/stacks", "/v1/promotions/stacks", models.PromotionStackList),
    ("/v1/promotions/{campaignId}/stacks", "/v1/promotions/camp_brewers_club/stacks", models.PromotionStackList),
]


@pytest.mark.parametrize(("template", "path", "model"), ANSWERS, ids=[a[1] for a in ANSWERS])
def test_an_answer_parses_and_is_what_the_service_documents(template: str, path: str,
                                                            model: type[models.WireModel]) -> None:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(stacked_sim(3))) as http:
        response = http.get(path, headers=APP)
    assert response.status_code == 200, response.text
    problems = documented_errors(template, response.json())
    assert not problems, problems
    assert model.model_validate_json(response.content).model_dump(mode="json") == response.json()


@pytest.mark.parametrize("template", sorted({a[0] for a in ANSWERS}))
def test_the_published_examples_are_what_the_check_allows(template: str) -> None:
    """Each example passes the check; a null the check allows is one an example
    carries (the strict schema refuses exactly those), and the examples parse."""
    model = next(a[2] for a in ANSWERS if a[0] == template)
    for name, example in reference()["paths"][template]["examples"].items():
        # the stacks' examples leave out the category fields their schema requires (promolab sends them)
        assert all(p.endswith(("'category_id' is a required property", "'categories' is a required property"))
                   for p in documented_errors(template, example)), name
        for problem in reference_errors(template, example):
            if "None is not of type" in problem:
                assert problem.split(":")[0].split("/")[-1] in {p.split(".")[-1] for p in _NULL_IN_EXAMPLES}
        parsed = model.model_validate(example).model_dump(mode="json", exclude_unset=True)
        assert parsed.get("total") == example.get("total"), name


def test_the_tiers_examples_need_the_nulls_allowed() -> None:
    example = reference()["paths"]["/v1/promotions/tiers"]["examples"]["Example"]
    strict = reference_errors("/v1/promotions/tiers", example)
    assert any("validation_rule_assignments" in p for p in strict)
    assert any("campaign/start_date" in p for p in strict)
    assert not documented_errors("/v1/promotions/tiers", example)


def test_the_tier_keeps_the_services_field_order(sim: Simulator) -> None:
    example = reference()["paths"]["/v1/promotions/tiers"]["examples"]["Example"]["tiers"][1]
    with sim.client() as client:
        ours = client.get_promotion_tier("promo_welcome_10").model_dump(mode="json")
    assert [k for k in ours if k in example] == [k for k in example if k in ours]
    assert set(example) - set(ours) == {"updated_at"}  # nothing changes a scenario's tier after it is made


def test_a_tier_shows_its_discount_campaign_and_rule_as_the_state_holds_them(sim: Simulator) -> None:
    with sim.client() as client:
        tier = client.get_promotion_tier("promo_app_espresso").model_dump(mode="json")
        winter = client.get_promotion_tier("promo_winter_20").model_dump(mode="json")
    record = sim.state.tiers["promo_app_espresso"]
    assert tier["action"]["discount"] == record.discount
    assert tier["campaign"] == {"id": "camp_app_only", "start_date": "2026-03-01T16:00:00.000Z", "expiration_date": None,
                                "validity_timeframe": {"interval": "P1D", "duration": "PT2H"}, "active": True,
                                "object": "campaign"}
    assert tier["validation_rule_assignments"]["data"] == [{
        "id": "asgm_promo_app_espresso", "rule_id": "val_promo_app_espresso",
        "related_object_id": "promo_app_espresso", "related_object_type": "promotion_tier",
        "created_at": "2026-03-06T10:00:00.000Z", "object": "validation_rules_assignment"}]
    assert (winter["campaign"]["expiration_date"], winter["promotion_id"]) == ("2026-02-28T23:59:59.000Z", "camp_winter")


@pytest.mark.parametrize("scenario", ["data/scenarios/demo.yaml", "data/scenarios/march_budgets.yaml"])
def test_every_tier_reads_back_what_the_state_holds(scenario: str) -> None:
    """What a pull writes back into a scenario: each tier's own fields, its
    campaign's dates, recurrence and activity, and its rule by the owner's id."""
    sim = Simulator.from_scenario(scenario)
    listed = sim.apply(TIERS, limit=100)
    assert [t.id for t in listed.tiers][::-1] == list(sim.state.tiers) and listed.total == len(sim.state.tiers)
    kinds: set[bool] = set()
    for tier in listed.tiers:
        record, campaign = sim.state.tiers[tier.id], sim.state.campaigns[tier.campaign_id]
        wire = tier.model_dump(mode="json")
        assert (wire["action"]["discount"], wire["name"], wire["hierarchy"], wire["metadata"], wire["active"]) == (
            record.discount, record.name, record.hierarchy, record.metadata, record.active)
        assert (tier.campaign.active, tier.campaign.start_date, tier.campaign.expiration_date) == (
            campaign.active, campaign.start_date, campaign.expiration_date)
        assert wire["campaign"].get("validity_day_of_week") == campaign.validity_day_of_week
        assert [c.id for c in tier.categories or []] == record.categories
        rules = (record.validation_rules or {}).get("rules") or {}
        scope = record.applicable_to or {}
        governed = any(key != "logic" for key in rules) or bool(scope.get("included") or scope.get("excluded"))
        assert (tier.validation_rule_assignments is not None) == governed, tier.id
        kinds.add(governed)
        if tier.validation_rule_assignments is not None:
            (assignment,) = tier.validation_rule_assignments.data
            assert (assignment.rule_id, assignment.id) == (f"val_{tier.id}", f"asgm_{tier.id}")
    assert kinds == {True, False} or scenario.endswith("march_budgets.yaml")  # the demo has tiers of both kinds


def test_a_tier_without_rule_or_scope_has_no_assignment() -> None:
    sim = Simulator.from_scenario({"campaigns": [{"id": "camp_a", "name": "A", "tiers": [
        {"id": "promo_plain", "name": "Plain", "discount": {"type": "AMOUNT", "amount_off": 100}}]}]})
    tier = sim.apply(TIER, tier_id="promo_plain")
    assert tier.validation_rule_assignments is None
    assert "category_id" not in tier.campaign.model_dump(mode="json")


def test_the_categories_are_the_states_in_order(sim: Simulator) -> None:
    listed = sim.apply(CATEGORIES)
    assert [c.id for c in listed.data] == list(sim.state.categories) and listed.total == 3
    assert [c.hierarchy for c in listed.data] == [c.hierarchy for c in sim.state.categories.values()]


def test_a_tier_with_categories_of_its_own_lists_them(sim: Simulator) -> None:
    kettle = sim.apply(TIER, tier_id="promo_kettle_filters")
    assert (kettle.category_id, [c.id for c in kettle.categories or []]) == ("cat_free_gifts", ["cat_free_gifts"])
    assert sim.apply(TIER, tier_id="promo_kettle_10pct").categories is None


# -- paging, ordering, filters ----------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(limit=st.integers(1, 100), order=st.sampled_from(["created_at", "-created_at", "updated_at", None]),
       available=st.sampled_from([None, True, False]))
def test_walking_the_tiers_meets_each_once(limit: int, order: str | None, available: bool | None) -> None:
    sim = WALKED
    expected = {t.id for t in sim.apply(TIERS, limit=100, is_available=available).tiers}
    seen: list[str] = []
    for page in range(1, 101):
        answer = sim.apply(TIERS, limit=limit, page=page, order=order, is_available=available)
        assert answer.total == len(expected)
        if not answer.tiers:
            break
        seen += [t.id for t in answer.tiers]
    assert len(seen) == len(set(seen)) and set(seen) == expected


WALKED = Simulator.from_scenario("data/scenarios/demo.yaml")


def test_descending_is_the_exact_reverse_and_ties_keep_the_states_order(sim: Simulator) -> None:
    up = [t.id for t in sim.apply(TIERS, limit=100, order="created_at").tiers]
    assert up == list(sim.state.tiers)  # every tier was made at the scenario's start: all tie
    assert [t.id for t in sim.apply(TIERS, limit=100).tiers] == up[::-1]
    assert sim.apply(TIERS).total == 17 and len(sim.apply(TIERS).tiers) == 10


def test_is_available_at_the_demos_start(sim: Simulator) -> None:
    """The winter campaign has expired and the paused one is inactive; the
    weekend's days and the happy hour's timeframe do not count (a Friday at 10:00)."""
    everything = {t.id for t in sim.apply(TIERS, limit=100).tiers}
    unavailable = {t.id for t in sim.apply(TIERS, limit=100, is_available=False).tiers}
    assert unavailable == {"promo_winter_20", "promo_flash_5"}
    assert {t.id for t in sim.apply(TIERS, limit=100, is_available="true").tiers} == everything - unavailable


def _dated(tier_active: bool = True, campaign_active: bool = True) -> Simulator:
    return Simulator.from_scenario({"clock": {"start": "2026-03-06T10:00:00Z"}, "campaigns": [{
        "id": "camp_dated", "name": "Dated", "active": campaign_active, "start_date": "2026-03-06T11:00:00Z",
        "expiration_date": "2026-03-06T12:00:00Z", "tiers": [
            {"id": "promo_dated", "name": "Dated", "active": tier_active,
             "discount": {"type": "AMOUNT", "amount_off": 100}}]}]})


@pytest.mark.parametrize(("tier_active", "campaign_active", "seconds", "available"), [
    (True, True, 0, False),  # before the campaign's start
    (True, True, 3600, True),  # at its start (inclusive)
    (True, True, 7200, True),  # at its expiration (inclusive)
    (True, True, 7201, False),  # after it
    (False, True, 3600, False),  # the tier is off
    (True, False, 3600, False),  # its campaign is off
])
def test_is_available_reads_the_simulated_clock(tier_active: bool, campaign_active: bool, seconds: int,
                                                available: bool) -> None:
    sim = _dated(tier_active, campaign_active)
    sim.advance(seconds)
    assert [t.id for t in sim.apply(TIERS, is_available=available).tiers] == ["promo_dated"]
    assert sim.apply(TIERS, is_available=not available).total == 0


def test_a_campaigns_tiers_are_its_own_and_all_of_them(sim: Simulator) -> None:
    listed = sim.apply(CAMPAIGN_TIERS, campaign_id="camp_brewers_club")
    own = [t.id for t in sim.state.tiers.values() if t.campaign_id == "camp_brewers_club"]
    assert [t.id for t in listed.tiers] == own and listed.total == len(own) and listed.has_more is False


STACKED = stacked_sim(25)  # minutes 1, 2, 2, 3, 4, 4, ...


@settings(max_examples=30, deadline=None)
@given(limit=st.integers(1, 100), order=st.sampled_from(["created_at", "-created_at", "name", "-name", "updated_at"]))
def test_walking_the_stacks_meets_each_once(limit: int, order: str) -> None:
    seen: list[str] = []
    for page in range(1, 101):
        answer = STACKED.apply(STACKS, limit=limit, page=page, order=order)
        assert answer.total == 25
        if not answer.data:
            break
        seen += [s.id for s in answer.data]
    assert sorted(seen) == sorted(STACKED.state.promotion_stacks)


def test_stacks_by_name_and_by_time_both_ways() -> None:
    by_time = [s.id for s in STACKED.apply(STACKS, limit=100, order="created_at").data]
    assert by_time == list(STACKED.state.promotion_stacks)
    assert [s.id for s in STACKED.apply(STACKS, limit=100, order="-created_at").data] == by_time[::-1]
    assert [s.id for s in STACKED.apply(STACKS, limit=100, order="name").data] == by_time[::-1]  # named backwards
    assert [s.id for s in STACKED.apply(STACKS, limit=100, order="-name").data] == by_time


@pytest.mark.parametrize(("query", "expected"), [
    ({"created_before": "2026-03-06T10:02:00Z"}, ["stack_000", "stack_001", "stack_002"]),
    ({"created_after": "2026-03-06T10:16:00Z"}, ["stack_022", "stack_023", "stack_024"]),  # a tie at 10:16, inclusive
    ({"created_after": "2026-03-06T10:02:00Z", "created_before": "2026-03-06T10:03:00Z"},
     ["stack_001", "stack_002", "stack_003"]),
    ({"updated_after": "2026-03-06T12:17:00+02:00"}, ["stack_024"]),  # sorts and filters as created_at
    ({"updated_before": "2026-03-06T10:00:00Z"}, []),
])
def test_the_stacks_time_filters(query: dict[str, str], expected: list[str]) -> None:
    answer = STACKED.apply(STACKS, limit=100, order="created_at", **query)
    assert ([s.id for s in answer.data], answer.total) == (expected, len(expected))


def test_a_campaigns_stacks_are_its_own(sim: Simulator) -> None:
    assert sim.apply(CAMPAIGN_STACKS, campaign_id="camp_brewers_club").total == 0
    listed = STACKED.apply(CAMPAIGN_STACKS, campaign_id="camp_brewers_club")
    assert listed.total == 25 and listed.data[0].tiers.ids == ["promo_kettle_10pct", "promo_kettle_filters"]
    assert STACKED.apply(CAMPAIGN_STACKS, campaign_id="camp_weekend").total == 0


# -- refusals ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "param"), [
    ("/v1/promotions/tiers?is_available=yes", "is_available"), ("/v1/promotions/tiers?is_available=", "is_available"),
    ("/v1/promotions/tiers?limit=0", "limit"), ("/v1/promotions/tiers?page=101", "page"),
    ("/v1/promotions/tiers?order=name", "order"), ("/v1/promotions/stacks?order=hierarchy", "order"),
    ("/v1/promotions/stacks?created_at[before]=2026-03-06", "created_at[before]"),
    ("/v1/promotions/stacks?updated_at[after]=soon", "updated_at[after]"), ("/v1/promotions/stacks?limit=101", "limit"),
])
def test_a_bad_query_is_400_naming_the_parameter(sim: Simulator, http: httpx.Client, path: str, param: str) -> None:
    assert_refused(sim, http, path, param)


@pytest.mark.parametrize(("op", "args", "param"), [
    (TIERS, {"is_available": "maybe"}, "is_available"), (TIERS, {"is_available": 1}, "is_available"),
    (TIERS, {"limit": 0}, "limit"), (STACKS, {"order": "hierarchy"}, "order"),
    (STACKS, {"created_before": 20260306}, "created_at[before]"),
])
def test_in_process_the_same_refusal(sim: Simulator, op: Any, args: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidQueryParams, match=f"Query parameter {param.replace('[', '.').replace(']', '.')} "):
        sim.apply(op, **args)


@pytest.mark.parametrize(("path", "resource"), [
    ("/v1/promotions/tiers/promo_nope", "promotion_tier"), ("/v1/promotions/camp_nope/tiers", "campaign"),
    ("/v1/promotions/camp_nope/stacks", "campaign"),
])
def test_an_unknown_id_is_404_with_the_services_body(http: httpx.Client, path: str, resource: str) -> None:
    response = http.get(path, headers=APP)
    body = response.json()
    assert (response.status_code, body["key"], body["code"], body["resource_type"]) == (404, "not_found", 404, resource)
    assert body["details"] == f"Cannot find {resource} with id {path.split('/')[-1 if resource != 'campaign' else -2]}"


# -- the clients ------------------------------------------------------------------------------------
def test_the_sync_and_async_clients_agree(sim: Simulator) -> None:
    with sim.client() as client:
        synced = (client.list_categories(), client.list_promotion_tiers(is_available=False, limit=5),
                  client.get_promotion_tier("promo_kettle_10pct"), client.list_promotion_stacks(order="-name"),
                  client.list_campaign_promotion_tiers("camp_weekend"),
                  client.list_campaign_promotion_stacks("camp_weekend"))
        with pytest.raises(ApiError) as caught:
            client.list_promotion_tiers(page=0)
        assert caught.value.status == 400

    async def run() -> tuple[Any, ...]:
        async with sim.async_client() as client:
            return (await client.list_categories(), await client.list_promotion_tiers(is_available=False, limit=5),
                    await client.get_promotion_tier("promo_kettle_10pct"),
                    await client.list_promotion_stacks(order="-name"),
                    await client.list_campaign_promotion_tiers("camp_weekend"),
                    await client.list_campaign_promotion_stacks("camp_weekend"))

    assert asyncio.run(run()) == synced
    assert {t.id for t in synced[1].tiers} == {"promo_winter_20", "promo_flash_5"}
