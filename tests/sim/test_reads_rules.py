"""The validation-rule read endpoints: rules and assignments synthesized from their owners.

- every answer validates against the service's published schema (tests/data/)
  and parses with promolab's model; the published examples parse too;
- the synthesis (`sim/validation_rule_objects.py`): for every tier, campaign
  and voucher of the shipped scenarios, the rule's `rules` and
  `applicable_to` are the owner's inline mappings, `inline_terms` gives them
  back, and a scenario whose owners hold what the rules say answers every
  validation as the original does (the round trip a pull makes);
- paging meets every rule once, ordering both ways, each filter, 404 for an
  unknown rule, 400 naming a bad query parameter, sync and async clients.
"""

from __future__ import annotations

import asyncio
import copy
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from test_reads_catalogue import assert_refused, reference

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.client import ApiError
from promolab.http import SimulatorTransport
from promolab.sim import InvalidQueryParams, SimError
from promolab.sim.operations import BY_NAME
from promolab.sim.validation_rule_objects import NO_SCOPE, inline_terms, rule_owners

LIST, GET, ASSIGNMENTS = (BY_NAME[name] for name in
                          ("list_validation_rules", "get_validation_rule", "list_validation_rules_assignments"))
SCENARIOS = Path(__file__).parents[2] / "data" / "scenarios"
START = datetime(2026, 3, 6, 10, 0, tzinfo=UTC)

#: A code campaign with a scope and rules, a code with rules of its own
#: (logic beside them, an error message), one with a scope alone, one with neither.
CODES = {
    "id": "camp_codes", "name": "Codes", "type": "DISCOUNT_COUPONS",
    "discount": {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ITEMS"},
    "applicable_to": {"included": [{"object": "product", "id": "prod_a"}]},
    "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [1000]}},
                                   "logic": "1"}},
    "vouchers": [
        {"code": "OWN-RULES", "validation_rules": {
            "rules": {"1": {"name": "order.items.quantity", "conditions": {"$more_than_or_equal": [2]}},
                      "2": {"name": "order.amount", "conditions": {"$less_than": [50000]}}},
            "logic": "1 and 2", "error": {"message": "Two items, under $500"}}},
        {"code": "OWN-SCOPE", "applicable_to": {"excluded": [{"object": "product", "id": "prod_b"}]}},
        {"code": "PLAIN"},
    ],
}
SMALL = {
    "catalogue": {"products": [{"id": "prod_a", "name": "A", "price": 1000}, {"id": "prod_b", "name": "B", "price": 500}]},
    "campaigns": [CODES, {"id": "camp_promo", "name": "Promo", "tiers": [
        {"id": "promo_rules", "name": "Zeta rules", "discount": {"type": "PERCENT", "percent_off": 5},
         "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [100]}}}}},
        {"id": "promo_none", "name": "Alpha none", "discount": {"type": "PERCENT", "percent_off": 1}},
        {"id": "promo_empty", "name": "Empty", "discount": {"type": "PERCENT", "percent_off": 1},
         "validation_rules": {"rules": {"logic": ""}}, "applicable_to": {"included": []}},
    ]}],
}


@cache
def document(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text(encoding="utf-8"))
    return loaded


@cache
def shipped(name: str) -> Simulator:
    return Simulator.from_scenario(copy.deepcopy(document(name)))


def small() -> Simulator:
    """SMALL under the demo's project (its keys are the ones the HTTP tests send)."""
    return Simulator.from_scenario({**copy.deepcopy(SMALL), "project": document("demo")["project"]})


def voucher_id(sim: Simulator, code: str) -> str:
    return next(v.id for v in sim.state.vouchers.values() if v.code == code)


# -- the published schema and examples --------------------------------------------------------------
def assert_documented(sim: Simulator, template: str, path: str, model: type[models.WireModel]) -> None:
    """`GET path` answers 200 with what the service's schema of `template`
    allows, and promolab's model parses it without losing or adding a field.

    Formats are asserted: a condition's values are `oneOf` a string, a date
    and a date-time, which only tells them apart when `format` is checked
    (without it any string matches all three and no answer could pass)."""
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(sim)) as http:
        response = http.get(path, headers=APP)
    assert response.status_code == 200, response.text
    root = {"components": reference()["components"], **reference()["paths"][template]["schema"]}
    validator = Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(response.json())]
    assert not problems, problems
    assert model.model_validate_json(response.content).model_dump(mode="json") == response.json()


ANSWERS: list[tuple[str, str, type[models.WireModel]]] = [
    ("/v1/validation-rules", "/v1/validation-rules?limit=100", models.ValidationRuleList),
    ("/v1/validation-rules/{validationRuleId}", "/v1/validation-rules/val_camp_mug_codes", models.ValidationRule),
    ("/v1/validation-rules/{validationRuleId}", "/v1/validation-rules/val_promo_welcome_10", models.ValidationRule),
    ("/v1/validation-rules-assignments", "/v1/validation-rules-assignments?limit=100",
     models.ValidationRuleAssignmentList),
]


@pytest.mark.parametrize(("template", "path", "model"), ANSWERS, ids=[a[1] for a in ANSWERS])
def test_an_answer_parses_and_is_what_the_service_documents(
    sim: Simulator, template: str, path: str, model: type[models.WireModel]
) -> None:
    assert_documented(sim, template, path, model)


def test_a_codes_own_rule_is_documented_too() -> None:
    sim = small()
    for code in ("OWN-RULES", "OWN-SCOPE"):
        assert_documented(sim, "/v1/validation-rules/{validationRuleId}",
                          f"/v1/validation-rules/val_{voucher_id(sim, code)}", models.ValidationRule)
    assert_documented(sim, "/v1/validation-rules", "/v1/validation-rules", models.ValidationRuleList)


@pytest.mark.parametrize(("template", "model"), [
    ("/v1/validation-rules", models.ValidationRuleList),
    ("/v1/validation-rules/{validationRuleId}", models.ValidationRule),
    ("/v1/validation-rules-assignments", models.ValidationRuleAssignmentList),
])
def test_the_published_examples_parse_with_our_models_keeping_every_field(
    template: str, model: type[models.WireModel]
) -> None:
    """Rules with `logic: ""` and no conditions (`type: basic`), `included_all`, sparse fields: all read back as sent."""
    examples = reference()["paths"][template]["examples"]
    assert examples
    for name, example in examples.items():
        assert model.model_validate(example).model_dump(mode="json") == example, name


# -- the synthesis: what the owner holds, and back -------------------------------------------------------
def _owners_of(name: str) -> list[tuple[str, str, str]]:
    """(scenario, kind, id) of every tier, campaign and voucher, with a rule or not."""
    state = shipped(name).state
    return ([(name, "campaign", c) for c in state.campaigns] + [(name, "promotion_tier", t) for t in state.tiers]
            + [(name, "voucher", v) for v in state.vouchers])


EVERY_OWNER = _owners_of("demo") + _owners_of("march_budgets")


def _with_effects(scope: dict[str, Any]) -> dict[str, Any]:
    return {key: [{**entry, "effect": entry.get("effect", "APPLY_TO_EVERY")} for entry in value]
            for key, value in scope.items()}


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(EVERY_OWNER))
def test_a_synthesized_rule_holds_its_owners_inline_mappings(owner: tuple[str, str, str]) -> None:
    scenario, kind, owner_id = owner
    sim = shipped(scenario)
    state = sim.state
    record = {"campaign": state.campaigns, "promotion_tier": state.tiers, "voucher": state.vouchers}[kind][owner_id]
    rules, scope = record.validation_rules, record.applicable_to
    has_rule = bool(rules and set(rules.get("rules", {})) - {"logic"}) or bool(
        scope and (scope.get("included") or scope.get("excluded")))
    if not has_rule:
        with pytest.raises(SimError, match="Cannot find validation_rules"):
            sim.apply(GET, rule_id=f"val_{owner_id}")
        assert sim.apply(ASSIGNMENTS, related_object_id=owner_id).total == 0
        return
    rule = sim.apply(GET, rule_id=f"val_{owner_id}").model_dump(mode="json")
    assert rule["rules"] == (rules or {}).get("rules", {})
    assert rule["applicable_to"] == (_with_effects(scope) if scope else dict(NO_SCOPE))
    back = inline_terms(rule)
    assert back.validation_rules == ({key: rules[key] for key in ("rules", "error") if key in rules}
                                     if rules else None)
    assert back.applicable_to == (_with_effects(scope) if scope else None)
    (assignment,) = sim.apply(ASSIGNMENTS, related_object_id=owner_id).data
    assert (assignment.id, assignment.rule_id, assignment.related_object_type) == (
        f"asgm_{owner_id}", f"val_{owner_id}", kind)
    assert assignment.created_at == record.created_at == sim.apply(GET, rule_id=f"val_{owner_id}").created_at
    assert record.created_at is not None


def test_logic_beside_the_rules_moves_inside_and_an_error_is_kept() -> None:
    sim = small()
    own = voucher_id(sim, "OWN-RULES")
    rule = sim.apply(GET, rule_id=f"val_{own}").model_dump(mode="json")
    assert rule["rules"]["logic"] == "1 and 2"
    assert rule["error"] == {"message": "Two items, under $500"}
    assert (rule["name"], rule["type"], rule["context_type"]) == ("OWN-RULES", "advanced", "voucher.discount_voucher")
    assert rule["applicable_to"] == dict(NO_SCOPE)  # its campaign's scope still applies to it
    assert inline_terms(rule).applicable_to is None
    scope_only = sim.apply(GET, rule_id=f"val_{voucher_id(sim, 'OWN-SCOPE')}").model_dump(mode="json")
    assert (scope_only["type"], scope_only["rules"]) == ("basic", {})
    assert inline_terms(scope_only).validation_rules is None
    campaign = sim.apply(GET, rule_id="val_camp_codes")
    assert (campaign.context_type, campaign.name) == ("campaign.discount_coupons", "Codes")


def _inlined(doc: dict[str, Any], sim: Simulator) -> dict[str, Any]:
    """`doc` with every owner holding what its rule object says (through
    `inline_terms`), and nothing where it has no rule: what a pull writes."""
    out = copy.deepcopy(doc)
    rules = {r.id: r.model_dump(mode="json") for r in sim.apply(LIST, limit=100).data}
    assert len(rules) == sim.apply(LIST).total

    def rewrite(spec: dict[str, Any], owner_id: str) -> None:
        rule = rules.get(f"val_{owner_id}")
        terms = inline_terms(rule) if rule is not None else None
        for field in ("validation_rules", "applicable_to"):
            spec.pop(field, None)
            value = getattr(terms, field) if terms is not None else None
            if value is not None:
                spec[field] = value

    for campaign in out["campaigns"]:
        if campaign.get("type", "PROMOTION") != "PROMOTION":
            rewrite(campaign, campaign["id"])
        for tier in campaign.get("tiers", []):
            rewrite(tier, tier["id"])
        for voucher in campaign.get("vouchers", []):
            rewrite(voucher, voucher_id(sim, voucher["code"]))
    return out


def _validations(sim: Simulator, carts: list[dict[str, Any]]) -> list[Any]:
    answers = []
    for cart in carts:
        answers.append(sim.apply(BY_NAME["validate"], request=cart).wire)
        for code in ("MUG-CLUB-1", "OWN-RULES", "OWN-SCOPE"):
            try:
                answers.append(sim.apply(BY_NAME["validate_stacked"], request={
                    **cart, "redeemables": [{"object": "voucher", "id": code}]}).wire)
            except SimError as refused:  # a refusal is an answer to compare too
                answers.append(repr(refused))
    return answers


_ITEMS = st.lists(st.tuples(st.sampled_from(["prod_mug", "prod_kettle", "prod_filters", "prod_tote", "prod_a",
                                              "prod_b", "prod_beans_ethiopia", "prod_grinder"]),
                            st.integers(1, 4)), min_size=1, max_size=4)
_CART = st.builds(lambda items, who: {"customer": {"source_id": who}, "order": {
    "items": [{"product_id": p, "quantity": q, "price": 1500} for p, q in items]}},
    _ITEMS, st.sampled_from(["alice", "bob", "carol", "dave"]))


@pytest.mark.parametrize("name", ["demo", "march_budgets"])
@settings(max_examples=15, deadline=None)
@given(carts=st.lists(_CART, min_size=1, max_size=3))
def test_owners_rewritten_from_their_rules_answer_as_before(name: str, carts: list[dict[str, Any]]) -> None:
    """The round trip's base: read each rule, inline it into its owner, load: every validation answers the same."""
    doc = copy.deepcopy(document(name))
    doc["catalogue"]["products"] += SMALL["catalogue"]["products"]
    doc["campaigns"].append(copy.deepcopy(CODES))
    original = Simulator.from_scenario(copy.deepcopy(doc))
    rewritten = Simulator.from_scenario(_inlined(doc, original))
    assert _validations(rewritten, carts) == _validations(original, carts)
    assert ([r.model_dump(mode="json") for r in rewritten.apply(LIST, limit=100).data]
            == [r.model_dump(mode="json") for r in original.apply(LIST, limit=100).data])


# -- paging, ordering, filters ------------------------------------------------------------------------
def many(count: int) -> Simulator:
    """`count` tiers with rules, each created a minute after the one before,
    except every third, which ties with the one before it."""
    tiers = [{"id": f"promo_{i:04d}", "name": f"Tier {(i * 7) % count:04d}",
              "discount": {"type": "PERCENT", "percent_off": 1},
              "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [i]}}}}}
             for i in range(count)]
    sim = Simulator.from_scenario({"campaigns": [{"id": "camp_many", "name": "Many", "tiers": tiers}]})
    minute = 0
    for i, record in enumerate(sim.state.tiers.values()):
        minute += 0 if i % 3 == 2 else 1
        record.created_at = START + timedelta(minutes=minute)
    return sim


WALKED = many(230)


@settings(max_examples=30, deadline=None)
@given(limit=st.integers(3, 100), order=st.sampled_from(["created_at", "-created_at", "updated_at", "name", "-name",
                                                         None]),
       listing=st.sampled_from(["rules", "assignments"]))
def test_walking_the_pages_meets_every_rule_once(limit: int, order: str | None, listing: str) -> None:
    if listing == "assignments" and order not in ("created_at", "-created_at", None):
        order = "created_at"  # an assignment sorts by its creation only
    op = LIST if listing == "rules" else ASSIGNMENTS
    seen: list[str] = []
    for page in range(1, 101):
        answer = WALKED.apply(op, limit=limit, page=page, order=order)
        assert answer.total == 230
        if not answer.data:
            break
        assert len(answer.data) <= limit
        seen += [item.id for item in answer.data]
    prefix = "val_" if listing == "rules" else "asgm_"
    assert len(seen) == len(set(seen)) == 230
    assert set(seen) == {f"{prefix}{t}" for t in WALKED.state.tiers}


@pytest.mark.parametrize("field", ["created_at", "name"])
def test_descending_is_the_exact_reverse_of_ascending(field: str) -> None:
    sim = many(12)
    up = [r.id for r in sim.apply(LIST, order=field, limit=100).data]
    down = [r.id for r in sim.apply(LIST, order=f"-{field}", limit=100).data]
    assert down == up[::-1] and len(up) == 12
    names = [r.name for r in sim.apply(LIST, order=field, limit=100).data]
    if field == "name":
        assert names == sorted(names)
    else:
        assert up == [f"val_{t}" for t in sim.state.tiers]  # times rise (or tie) in the state's order
    assert [r.id for r in sim.apply(LIST, limit=100).data] == [r.id for r in sim.apply(
        LIST, order="-created_at", limit=100).data]  # newest first by default


def test_the_state_order_campaigns_then_tiers_then_vouchers() -> None:
    sim = small()
    ids = [r.id for r in sim.apply(LIST, order="created_at").data]
    assert ids == ["val_camp_codes", "val_promo_rules", f"val_{voucher_id(sim, 'OWN-RULES')}",
                   f"val_{voucher_id(sim, 'OWN-SCOPE')}"]


DATED = many(6)  # minutes 1, 2, 2, 3, 4, 4


@pytest.mark.parametrize(("query", "expected"), [
    ({"start_date": "2026-03-06T10:02:00Z"}, ["promo_0001", "promo_0002", "promo_0003", "promo_0004", "promo_0005"]),
    ({"end_date": "2026-03-06T10:02:00.000Z"}, ["promo_0000", "promo_0001", "promo_0002"]),
    ({"start_date": "2026-03-06T10:02:00Z", "end_date": "2026-03-06T10:03:00Z"},
     ["promo_0001", "promo_0002", "promo_0003"]),
    ({"start_date": "2026-03-06T12:02:00+02:00", "end_date": "2026-03-06T10:02:00Z"}, ["promo_0001", "promo_0002"]),
    ({"start_date": "2026-03-06T11:00:00Z"}, []),
])
def test_rules_created_between(query: dict[str, str], expected: list[str]) -> None:
    answer = DATED.apply(LIST, order="created_at", **query)
    assert [r.id for r in answer.data] == [f"val_{t}" for t in expected]
    assert answer.total == len(expected)


@pytest.mark.parametrize(("query", "expected"), [
    ({"related_object_id": "promo_0003"}, ["promo_0003"]),
    ({"rule": "val_promo_0004"}, ["promo_0004"]),
    ({"rule": "val_promo_0004", "related_object_id": "promo_0004"}, ["promo_0004"]),
    ({"rule": "val_promo_0004", "related_object_id": "promo_0003"}, []),
    ({"rule": "promo_0004"}, []),  # a rule is named by its id, not its owner's
    ({"related_object_id": "camp_many"}, []),  # a PROMOTION campaign holds no rule: its tiers do
    ({}, ["promo_0000", "promo_0001", "promo_0002", "promo_0003", "promo_0004", "promo_0005"]),
])
def test_assignments_filtered(query: dict[str, str], expected: list[str]) -> None:
    answer = DATED.apply(ASSIGNMENTS, order="created_at", **query)
    assert [(a.id, a.related_object_id) for a in answer.data] == [(f"asgm_{t}", t) for t in expected]
    assert answer.total == len(expected)


def test_every_rule_has_its_one_assignment(sim: Simulator) -> None:
    rules = sim.apply(LIST, limit=100).data
    assignments = sim.apply(ASSIGNMENTS, limit=100).data
    assert sorted(a.rule_id for a in assignments) == sorted(r.id for r in rules)
    assert {r.assignments_count for r in rules} == {1}
    assert len(rules) == len(list(rule_owners(sim.state))) == 15  # the demo's 14 tiers with rules, one code campaign


# -- refusals ---------------------------------------------------------------------------------------
@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim))


@pytest.mark.parametrize(("path", "param"), [
    ("/v1/validation-rules?limit=0", "limit"), ("/v1/validation-rules?limit=101", "limit"),
    ("/v1/validation-rules?page=0", "page"), ("/v1/validation-rules?page=x", "page"),
    ("/v1/validation-rules?order=code", "order"), ("/v1/validation-rules?order=", "order"),
    ("/v1/validation-rules?start_date=yesterday", "start_date"),
    ("/v1/validation-rules?end_date=2026-03-06", "end_date"),
    ("/v1/validation-rules-assignments?limit=101", "limit"), ("/v1/validation-rules-assignments?page=101", "page"),
    ("/v1/validation-rules-assignments?order=name", "order"),
])
def test_a_bad_query_is_400_naming_the_parameter(sim: Simulator, http: httpx.Client, path: str, param: str) -> None:
    assert_refused(sim, http, path, param)


def test_in_process_the_same_refusal(sim: Simulator) -> None:
    with pytest.raises(InvalidQueryParams, match="Query parameter order "):
        sim.apply(ASSIGNMENTS, order="-name")
    with pytest.raises(InvalidQueryParams, match="Query parameter limit "):
        sim.apply(LIST, limit=True)


@pytest.mark.parametrize("rule_id", ["val_nope", "val_promo_vip_free_ship_nope", "promo_welcome_10", "val_",
                                     "val_camp_welcome", "val_camp_beans"])
def test_an_unknown_rule_is_404_with_the_services_error_body(http: httpx.Client, rule_id: str) -> None:
    response = http.get(f"/v1/validation-rules/{rule_id}", headers=APP)
    assert response.status_code == 404
    body = response.json()
    assert (body["code"], body["key"], body["resource_id"], body["resource_type"]) == (
        404, "not_found", rule_id, "validation_rules")
    assert body["details"] == f"Cannot find validation_rules with id {rule_id}"


# -- the clients ----------------------------------------------------------------------------------------
def test_the_sync_client(sim: Simulator) -> None:
    with sim.client() as client:
        page = client.list_validation_rules(limit=2, page=1, order="name")
        assert [r.name for r in page.data] == ["$10 off brewing gear, shared by price", "$10 off orders over $50"]
        rule = client.get_validation_rule("val_promo_beans_15")
        assert rule.applicable_to == {"included": [{"object": "products_collection", "id": "pc_beans",
                                                    "effect": "APPLY_TO_EVERY"}]}
        assigned = client.list_validation_rules_assignments(rule="val_promo_beans_15")
        assert [a.related_object_id for a in assigned.data] == ["promo_beans_15"]
        with pytest.raises(ApiError) as caught:
            client.get_validation_rule("val_nope")
    assert caught.value.status == 404


def test_the_async_client(sim: Simulator) -> None:
    async def read() -> tuple[int, str, int]:
        async with sim.async_client() as client:
            page = await client.list_validation_rules(start_date=START - timedelta(days=1))
            rule = await client.get_validation_rule("val_camp_mug_codes")
            assigned = await client.list_validation_rules_assignments(related_object_id="camp_mug_codes")
            return page.total, rule.context_type, assigned.total

    assert asyncio.run(read()) == (15, "campaign.discount_coupons", 1)


def test_an_answer_is_fresh(sim: Simulator) -> None:
    """Changing an answer in process changes nothing in the state."""
    rule = sim.apply(GET, rule_id="val_promo_welcome_10")
    rule.rules["1"]["conditions"]["$more_than"][0] = 1
    rule.applicable_to["included"] = ["x"]
    assert sim.state.tiers["promo_welcome_10"].validation_rules == {
        "rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [5000]}}, "logic": "1"}}
    assert sim.state.tiers["promo_welcome_10"].applicable_to is None


def test_a_qualifications_assignment_is_the_one_the_list_serves(sim: Simulator) -> None:
    """`expand: ["validation_rules"]` names the tier's rule by the ids the rule reads serve."""
    answer = sim.apply(BY_NAME["qualifications"], request={
        "customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_grinder", "quantity": 1},
                                                               {"product_id": "prod_kettle", "quantity": 1}]},
        "options": {"expand": ["validation_rules"], "limit": 50}}).wire
    tiers = [r for r in answer["redeemables"]["data"] if r["object"] == "promotion_tier"]
    assert "promo_brew_bundle" in [t["id"] for t in tiers]
    for tier in tiers:
        listed = sim.apply(ASSIGNMENTS, related_object_id=tier["id"]).model_dump(mode="json")["data"]
        shown = tier["validation_rules_assignments"]["data"]
        assert [(a["id"], a["rule_id"]) for a in shown] == [(a["id"], a["rule_id"]) for a in listed]
