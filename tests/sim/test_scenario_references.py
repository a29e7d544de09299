"""Every reference of a scenario is checked (docs/scenarios.md, *References*).

Table-driven: each place a scenario names an entity, with each kind it may
name there. A defined id loads; a near miss is refused with the path, the
nearest defined id, and (from a file) the line; every dangling reference is
reported at once, in the file's order. Plus a hypothesis property over the
bundled demo, and `promolab validate` exiting 2 with the lines.
"""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import ScenarioError, Simulator
from promolab.sim.scenario.references import PLACES, Place, dangling_references

ROOT = Path(__file__).parents[2]
AMOUNT_OFF = {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS"}
POINTS = {"value": 5, "card_definition_id": "lcdef_pts"}

#: A scenario defining one entity of every kind (each kind's id is the one
#: the cases below name; source ids where a kind has them).
BASE: dict[str, Any] = {
    "catalogue": {
        "products": [{"id": "prod_mug", "source_id": "src_mug", "name": "Mug", "price": 1200,
                      "skus": [{"id": "sku_mug_red", "source_id": "src_mug_red", "sku": "red"}]}],
        "collections": [{"id": "pc_mugs", "name": "Mugs", "products": ["prod_mug"]}],
    },
    "customers": [{"id": "cust_alice", "source_id": "alice"}],
    "segments": [{"id": "seg_vip", "name": "VIP"}],
    "event_schema": [{"name": "first_order"}],
    "categories": [{"id": "cat_flash", "name": "Flash sales", "hierarchy": 2}],
    "campaigns": [
        {"id": "camp_promo", "name": "Promo", "category_id": "cat_flash",
         "tiers": [{"id": "promo_mug", "name": "Mug", "discount": AMOUNT_OFF}]},
        {"id": "camp_codes", "name": "Codes", "type": "DISCOUNT_COUPONS", "discount": AMOUNT_OFF,
         "vouchers": [{"code": "CODE-1"}]},
        {"id": "camp_ref", "name": "Referrals", "type": "REFERRAL_PROGRAM", "discount": AMOUNT_OFF,
         "referral": {"conversion_event": "first_order"}},
    ],
    "loyalty": {
        "rewards": [{"id": "lrew_mug", "name": "Mug", "type": "MATERIAL", "material": {"product": {"id": "prod_mug"}}}],
        "incentives": [{"id": "linc_0a", "name": "Points", "type": "POINTS", "points": POINTS}],
        "programs": [{"id": "lprg_club", "name": "Club", "card_definitions": [{"id": "lcdef_pts", "name": "Points"}],
                      "members": [{"customer": "cust_alice", "cards": [{"card_definition": "lcdef_pts"}]}],
                      "earning_rules": [{"event": "first_order", "incentive": "linc_0a"}]}],
    },
}

Setter = Callable[[dict[str, Any], Any], None]


def _tier(doc: dict[str, Any]) -> dict[str, Any]:
    tier: dict[str, Any] = doc["campaigns"][0]["tiers"][0]
    return tier


def _code_campaign(doc: dict[str, Any]) -> dict[str, Any]:
    campaign: dict[str, Any] = doc["campaigns"][1]
    return campaign


def _code(doc: dict[str, Any]) -> dict[str, Any]:
    code: dict[str, Any] = doc["campaigns"][1]["vouchers"][0]
    return code


def _categories_of_the_tier(doc: dict[str, Any], ref: Any) -> None:
    _tier(doc)["categories"] = [ref]


def _categories_of_the_campaign(doc: dict[str, Any], ref: Any) -> None:
    del doc["campaigns"][0]["category_id"]  # one or the other
    doc["campaigns"][0]["categories"] = [ref]


Holder = Callable[[dict[str, Any]], dict[str, Any]]


def _scope(side: str, at: Holder = _tier, **entry: Any) -> Setter:
    """An `applicable_to` of one entry on the tier (or what `at` picks); `...` is the reference."""
    def put(doc: dict[str, Any], ref: Any) -> None:
        fields = {key: (ref if value is ... else value) for key, value in entry.items()}
        at(doc)["applicable_to"] = {side: [fields]}
    return put


def _rule(name: str, target: Callable[[Any], Any] = lambda ref: ref, op: str = "$in", at: Holder = _tier) -> Setter:
    """Validation rules of one rule on the tier (or what `at` picks), naming the reference."""
    def put(doc: dict[str, Any], ref: Any) -> None:
        at(doc)["validation_rules"] = {"rules": {"1": {"name": name, "conditions": {op: [target(ref)]}}},
                                       "logic": "1"}
    return put


def _at(*path: str | int, last: str) -> Setter:
    """Set `last` of the mapping at `path` (made as needed) to the reference."""
    def put(doc: dict[str, Any], ref: Any) -> None:
        node: Any = doc
        for step in path:
            node = node[step] if isinstance(step, int) else node.setdefault(step, {})
        node[last] = ref
    return put


def _listed(*path: str | int, last: str) -> Setter:
    def put(doc: dict[str, Any], ref: Any) -> None:
        _at(*path, last=last)(doc, [ref])
    return put


def _referral_reward(field: str) -> Setter:
    def put(doc: dict[str, Any], ref: Any) -> None:
        reward: dict[str, Any] = {"type": "LOYALTY_POINTS", "program_id": "lprg_club",
                                  "card_definition_id": "lcdef_pts", "points": 5}
        if field == "campaign_id":
            reward = {"type": "DISCOUNT_COUPON", "campaign_id": "camp_codes"}
        reward[field] = ref
        doc["campaigns"][2]["referral"]["referrer_reward"] = reward
    return put


def _material(section: int, field: str) -> Setter:
    def put(doc: dict[str, Any], ref: Any) -> None:
        sku = {"id": "sku_mug_red", "product_id": "prod_mug"}
        material = {"product": {"id": ref}} if field == "product" else {"sku": {**sku, field: ref}}
        if section == 0:
            doc["loyalty"]["rewards"][0]["material"] = material
        else:
            doc["loyalty"]["incentives"].append({"name": "Mug", "type": "MATERIAL", "material": material})
    return put


def _digital(section: str) -> Setter:
    def put(doc: dict[str, Any], ref: Any) -> None:
        entry = {"name": "Coupon", "type": "DIGITAL", "digital": {"discount_coupons": {"campaign_id": ref}}}
        doc["loyalty"][section].append(entry)
    return put


def _points_proportional(doc: dict[str, Any], ref: Any) -> None:
    doc["loyalty"]["incentives"].append({
        "name": "Per dollar", "type": "POINTS_PROPORTIONAL", "points_proportional": {
            "calculation_type": "ORDER_METADATA_VALUE", "card_definition_id": ref,
            "order": {"metadata": {"every": 100, "value": 1, "property": "amount"}}}})


def _assignment(field: str) -> Setter:
    def put(doc: dict[str, Any], ref: Any) -> None:
        assignment = {"reward": "lrew_mug", "costs": [{"card_definition": "lcdef_pts", "points": 10}]}
        if field == "reward":
            assignment["reward"] = ref
        else:
            assignment["costs"][0]["card_definition"] = ref
        doc["loyalty"]["programs"][0]["rewards"] = [assignment]
    return put


def _earning_rules(doc: dict[str, Any], ref: Any) -> None:
    doc["loyalty"]["programs"][0]["earning_rules"][0]["validation_rules"] = {
        "rules": {"1": {"name": "customer.segment", "conditions": {"$in": [ref]}}}, "logic": "1"}


def _category_limits(doc: dict[str, Any], ref: Any) -> None:
    doc["project"] = {"stacking_rules": {"applicable_redeemables_category_limits": {ref: 2}}}


_TIER = "campaigns[0].tiers[0]"
_PROGRAM = "loyalty.programs[0]"
_CATEGORY_LISTS = ("exclusive_categories", "joint_categories", "initial_amount_mode_categories",
                   "discounted_amount_mode_categories", "no_effect_skip_categories",
                   "no_effect_redeem_anyway_categories")

#: (case, the PLACES pattern it exercises, how to write the reference, its path, a defined id it may name)
CASES: list[tuple[str, str, Setter, str, str]] = [
    ("campaign's category_id", "campaigns[*].category_id",
     _at("campaigns", 0, last="category_id"), "campaigns[0].category_id", "cat_flash"),
    ("campaign's categories", "campaigns[*].categories[*]",
     _categories_of_the_campaign, "campaigns[0].categories[0]", "cat_flash"),
    ("tier's categories", "campaigns[*].tiers[*].categories[*]",
     _categories_of_the_tier, "campaigns[0].tiers[0].categories[0]", "cat_flash"),
    ("code campaign's applicable_to", "campaigns[*].applicable_to",
     _scope("included", _code_campaign, object="product", id=...), "campaigns[1].applicable_to.included[0].id",
     "prod_mug"),
    ("code campaign's rule", "campaigns[*].validation_rules",
     _rule("product.id", at=_code_campaign), "campaigns[1].validation_rules.rules.1.conditions.$in[0]", "prod_mug"),
    ("code's applicable_to", "campaigns[*].vouchers[*].applicable_to",
     _scope("included", _code, object="sku", id=...), "campaigns[1].vouchers[0].applicable_to.included[0].id",
     "sku_mug_red"),
    ("code's rule", "campaigns[*].vouchers[*].validation_rules",
     _rule("customer.segment", at=_code), "campaigns[1].vouchers[0].validation_rules.rules.1.conditions.$in[0]",
     "seg_vip"),
    ("collection product", "catalogue.collections[*].products[*]",
     _listed("catalogue", "collections", 0, last="products"), "catalogue.collections[0].products[0]", "prod_mug"),
    ("collection product by source_id", "catalogue.collections[*].products[*]",
     _listed("catalogue", "collections", 0, last="products"), "catalogue.collections[0].products[0]", "src_mug"),
    ("collection SKU", "catalogue.collections[*].skus[*]",
     _listed("catalogue", "collections", 0, last="skus"), "catalogue.collections[0].skus[0]", "sku_mug_red"),
    ("segment customer", "segments[*].customers[*]",
     _listed("segments", 0, last="customers"), "segments[0].customers[0]", "cust_alice"),
    ("segment customer by source_id", "segments[*].customers[*]",
     _listed("segments", 0, last="customers"), "segments[0].customers[0]", "alice"),
    ("applicable_to product", "campaigns[*].tiers[*].applicable_to",
     _scope("included", object="product", id=...), f"{_TIER}.applicable_to.included[0].id", "prod_mug"),
    ("applicable_to product by source_id", "campaigns[*].tiers[*].applicable_to",
     _scope("included", object="product", source_id=...), f"{_TIER}.applicable_to.included[0].source_id", "src_mug"),
    ("applicable_to SKU", "campaigns[*].tiers[*].applicable_to",
     _scope("included", object="sku", id=...), f"{_TIER}.applicable_to.included[0].id", "sku_mug_red"),
    ("applicable_to SKU by source_id", "campaigns[*].tiers[*].applicable_to",
     _scope("included", object="sku", source_id=...), f"{_TIER}.applicable_to.included[0].source_id", "src_mug_red"),
    ("applicable_to SKU's product", "campaigns[*].tiers[*].applicable_to",
     _scope("included", object="sku", id="sku_mug_red", product_id=...),
     f"{_TIER}.applicable_to.included[0].product_id", "prod_mug"),
    ("applicable_to collection", "campaigns[*].tiers[*].applicable_to",
     _scope("included", object="products_collection", id=...), f"{_TIER}.applicable_to.included[0].id", "pc_mugs"),
    ("applicable_to excluded product", "campaigns[*].tiers[*].applicable_to",
     _scope("excluded", object="product", id=...), f"{_TIER}.applicable_to.excluded[0].id", "prod_mug"),
    ("rule product.id", "campaigns[*].tiers[*].validation_rules",
     _rule("product.id"), f"{_TIER}.validation_rules.rules.1.conditions.$in[0]", "prod_mug"),
    ("rule sku.id", "campaigns[*].tiers[*].validation_rules",
     _rule("sku.id", op="$not_in"), f"{_TIER}.validation_rules.rules.1.conditions.$not_in[0]", "sku_mug_red"),
    ("rule products_collection.id", "campaigns[*].tiers[*].validation_rules",
     _rule("products_collection.id", op="$is"), f"{_TIER}.validation_rules.rules.1.conditions.$is[0]", "pc_mugs"),
    ("rule order.items.any, kind from the prefix", "campaigns[*].tiers[*].validation_rules",
     _rule("order.items.any"), f"{_TIER}.validation_rules.rules.1.conditions.$in[0]", "pc_mugs"),
    ("rule order.items.every, an object target", "campaigns[*].tiers[*].validation_rules",
     _rule("order.items.every", lambda ref: {"id": ref, "object": "sku"}),
     f"{_TIER}.validation_rules.rules.1.conditions.$in[0].id", "sku_mug_red"),
    ("rule order.items.none, a source_id target", "campaigns[*].tiers[*].validation_rules",
     _rule("order.items.none", lambda ref: {"source_id": ref, "object": "product"}),
     f"{_TIER}.validation_rules.rules.1.conditions.$in[0].source_id", "src_mug"),
    ("rule customer.segment", "campaigns[*].tiers[*].validation_rules",
     _rule("customer.segment", op="$is_not"), f"{_TIER}.validation_rules.rules.1.conditions.$is_not[0]", "seg_vip"),
    ("stack tier", "campaigns[*].stacks[*].tiers[*]",
     lambda doc, ref: doc["campaigns"][0].__setitem__("stacks", [{"name": "S", "tiers": [ref]}]),
     "campaigns[0].stacks[0].tiers[0]", "promo_mug"),
    ("voucher holder", "campaigns[*].vouchers[*].holder",
     _at("campaigns", 1, "vouchers", 0, last="holder"), "campaigns[1].vouchers[0].holder", "alice"),
    ("referral conversion event", "campaigns[*].referral.conversion_event",
     _at("campaigns", 2, "referral", last="conversion_event"), "campaigns[2].referral.conversion_event",
     "first_order"),
    ("referral program", "campaigns[*].referral.referrer_reward.program_id",
     _referral_reward("program_id"), "campaigns[2].referral.referrer_reward.program_id", "lprg_club"),
    ("referral card definition", "campaigns[*].referral.referrer_reward.card_definition_id",
     _referral_reward("card_definition_id"), "campaigns[2].referral.referrer_reward.card_definition_id",
     "lcdef_pts"),
    ("referral campaign", "campaigns[*].referral.referrer_reward.campaign_id",
     _referral_reward("campaign_id"), "campaigns[2].referral.referrer_reward.campaign_id", "camp_codes"),
    *((f"{section}'s digital campaign", f"loyalty.{section}[*].digital.*.campaign_id", _digital(section),
       f"loyalty.{section}[1].digital.discount_coupons.campaign_id", "camp_codes")
      for section in ("rewards", "incentives")),
    *((f"{section}'s material {what}", f"loyalty.{section}[*].material.{where}", _material(index, field),
       f"loyalty.{section}[{index}].material.{where}", defined)
      for index, section in enumerate(("rewards", "incentives"))
      for what, where, field, defined in (("product", "product.id", "product", "prod_mug"),
                                          ("SKU", "sku.id", "id", "sku_mug_red"),
                                          ("SKU's product", "sku.product_id", "product_id", "prod_mug"))),
    ("incentive's card definition", "loyalty.incentives[*].points.card_definition_id",
     _at("loyalty", "incentives", 0, "points", last="card_definition_id"),
     "loyalty.incentives[0].points.card_definition_id", "lcdef_pts"),
    ("proportional incentive's card definition", "loyalty.incentives[*].points_proportional.card_definition_id",
     _points_proportional, "loyalty.incentives[1].points_proportional.card_definition_id", "lcdef_pts"),
    ("member's customer", "loyalty.programs[*].members[*].customer",
     _at("loyalty", "programs", 0, "members", 0, last="customer"), f"{_PROGRAM}.members[0].customer", "cust_alice"),
    ("card's definition", "loyalty.programs[*].members[*].cards[*].card_definition",
     _at("loyalty", "programs", 0, "members", 0, "cards", 0, last="card_definition"),
     f"{_PROGRAM}.members[0].cards[0].card_definition", "lcdef_pts"),
    ("assigned reward", "loyalty.programs[*].rewards[*].reward",
     _assignment("reward"), f"{_PROGRAM}.rewards[0].reward", "lrew_mug"),
    ("assignment cost's card definition", "loyalty.programs[*].rewards[*].costs[*].card_definition",
     _assignment("card_definition"), f"{_PROGRAM}.rewards[0].costs[0].card_definition", "lcdef_pts"),
    ("earning rule incentive", "loyalty.programs[*].earning_rules[*].incentive",
     _at("loyalty", "programs", 0, "earning_rules", 0, last="incentive"),
     f"{_PROGRAM}.earning_rules[0].incentive", "linc_0a"),
    ("earning rule event", "loyalty.programs[*].earning_rules[*].event",
     _at("loyalty", "programs", 0, "earning_rules", 0, last="event"), f"{_PROGRAM}.earning_rules[0].event",
     "first_order"),
    ("earning rule's rule segment", "loyalty.programs[*].earning_rules[*].validation_rules",
     _earning_rules, f"{_PROGRAM}.earning_rules[0].validation_rules.rules.1.conditions.$in[0]", "seg_vip"),
    *((f"stacking rules {name}", f"project.stacking_rules.{name}[*]", _listed("project", "stacking_rules", last=name),
       f"project.stacking_rules.{name}[0]", "cat_flash") for name in _CATEGORY_LISTS),
    ("stacking rules category limit", "project.stacking_rules.applicable_redeemables_category_limits",
     _category_limits, "project.stacking_rules.applicable_redeemables_category_limits.{ref}", "cat_flash"),
]
IDS = [case[0] for case in CASES]


def near_miss(ident: str) -> str:
    """A typo of `ident`: its last character doubled (`prod_mug` -> `prod_mugg`)."""
    return ident + ident[-1]


def written(ref: Any, setter: Setter) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    setter(doc, ref)
    return doc


def test_the_base_scenario_loads_and_the_table_reaches_every_place() -> None:
    Simulator.from_scenario(BASE)
    assert {case[1] for case in CASES} == {place.pattern for place in PLACES}


@pytest.mark.parametrize(("name", "pattern", "setter", "path", "defined"), CASES, ids=IDS)
def test_a_defined_id_loads(name: str, pattern: str, setter: Setter, path: str, defined: str) -> None:
    Simulator.from_scenario(written(defined, setter))


@pytest.mark.parametrize(("name", "pattern", "setter", "path", "defined"), CASES, ids=IDS)
def test_a_near_miss_is_refused_at_its_path_with_the_defined_id(
    name: str, pattern: str, setter: Setter, path: str, defined: str
) -> None:
    wrong = near_miss(defined)
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(written(wrong, setter))
    assert [issue.path for issue in caught.value.issues] == [path.format(ref=wrong)]
    assert re.search(rf"(unknown .*|is not a .*){re.escape(repr(wrong))}|{re.escape(repr(wrong))} is not a",
                     caught.value.problem), caught.value.problem
    assert caught.value.problem.endswith(f"; did you mean {defined!r}?")


@pytest.mark.parametrize(("name", "pattern", "setter", "path", "defined"), CASES, ids=IDS)
def test_from_a_file_the_refusal_names_the_line_of_the_reference(
    tmp_path: Path, name: str, pattern: str, setter: Setter, path: str, defined: str
) -> None:
    file = tmp_path / "scenario.yaml"
    file.write_text(yaml.safe_dump(written("TYPO_HERE", setter), sort_keys=False), encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(file)
    issue = caught.value.issues[0]
    lines = file.read_text(encoding="utf-8").splitlines()
    assert issue.line is not None and issue.column is not None
    assert "TYPO_HERE" in lines[issue.line - 1]
    if "{ref}" not in path:  # a value: the column is where it starts (a key's issue is at its value)
        assert lines[issue.line - 1][issue.column - 1:].startswith("TYPO_HERE")
    assert f"{path.format(ref='TYPO_HERE')} (line {issue.line}, column {issue.column}): " in str(caught.value)


def test_a_program_names_its_own_card_definitions_and_a_stack_its_campaigns_tiers() -> None:
    doc = copy.deepcopy(BASE)
    doc["loyalty"]["programs"].append({"id": "lprg_other", "name": "Other",
                                       "card_definitions": [{"id": "lcdef_other", "name": "Other"}]})
    doc["loyalty"]["programs"][0]["members"][0]["cards"][0]["card_definition"] = "lcdef_other"
    doc["campaigns"].append({"id": "camp_b", "name": "B", "tiers": [{"id": "promo_b", "name": "B",
                                                                      "discount": AMOUNT_OFF}]})
    doc["campaigns"][0]["stacks"] = [{"name": "S", "tiers": ["promo_b"]}]
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(doc)
    assert [(i.path, i.problem) for i in caught.value.issues] == [
        ("campaigns[0].stacks[0].tiers[0]",
         "'promo_b' is not a promotion tier of campaigns[0]; did you mean 'promo_mug'?"),
        ("loyalty.programs[0].members[0].cards[0].card_definition",
         "'lcdef_other' is not a card definition of loyalty.programs[0]; did you mean 'lcdef_pts'?"),
    ]


def test_an_id_of_another_kind_is_not_a_reference_to_this_one() -> None:
    """`prod_mug` is a product: naming it where a collection is meant is refused."""
    doc = written("prod_mug", _scope("included", object="products_collection", id=...))
    with pytest.raises(ScenarioError, match=r"unknown collection 'prod_mug'; did you mean 'pc_mugs'\?"):
        Simulator.from_scenario(doc)


def test_a_target_of_no_kind_may_name_any_catalogue_entity() -> None:
    # a target without a prefix or object matches a product, SKU or collection of that id
    Simulator.from_scenario(written("src_mug", _scope("included", object="product", source_id=...)))
    doc = copy.deepcopy(BASE)
    doc["catalogue"]["collections"][0]["id"] = "mugs"
    _rule("order.items.any")(doc, "mugs")
    Simulator.from_scenario(doc)
    _rule("order.items.any")(doc, "mugz")
    with pytest.raises(ScenarioError, match=r"unknown product, SKU or collection 'mugz'; did you mean 'mugs'\?"):
        Simulator.from_scenario(doc)


DEMO_TEXT = (ROOT / "data" / "scenarios" / "demo.yaml").read_text(encoding="utf-8")


def test_every_dangling_reference_is_reported_at_once_in_the_files_order(tmp_path: Path) -> None:
    text = (DEMO_TEXT.replace("id: prod_mug, quantity_limit: 2", "id: prod_mugg, quantity_limit: 2")
            .replace("conditions: {$in: [seg_vip]}", "conditions: {$in: [seg_vipp]}", 1)
            .replace("customer: cust_bob\n", "customer: cust_bobb\n", 1))
    file = tmp_path / "demo.yaml"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(file)
    issues = caught.value.issues
    assert [issue.problem for issue in issues] == [
        "unknown product 'prod_mugg'; did you mean 'prod_mug'?",
        "unknown segment 'seg_vipp'; did you mean 'seg_vip'?",
        "unknown customer 'cust_bobb'; did you mean 'cust_bob'?",
    ]
    lines = [issue.line for issue in issues]
    assert lines == sorted(lines)
    for issue, wrong in zip(issues, ["prod_mugg", "seg_vipp", "cust_bobb"], strict=True):
        assert issue.line is not None and wrong in text.splitlines()[issue.line - 1]


def test_the_cli_refuses_it_with_exit_2_and_the_lines(tmp_path: Path) -> None:
    file = tmp_path / "demo.yaml"
    file.write_text(DEMO_TEXT.replace("id: prod_mug, quantity_limit: 2", "id: prod_mugg, quantity_limit: 2"),
                    encoding="utf-8")
    line, column = next((n, text.index("prod_mug") + 1) for n, text in enumerate(DEMO_TEXT.splitlines(), 1)
                        if "id: prod_mug, quantity_limit: 2" in text)
    child = subprocess.run([sys.executable, "-m", "promolab.cli", "validate", "--scenario", str(file)],
                           capture_output=True, text=True, timeout=120, check=False)
    assert child.returncode == 2
    assert child.stdout == ""
    assert child.stderr == (
        f"promolab: scenario refused: {file}: campaigns[1].tiers[4].applicable_to.included[0].id "
        f"(line {line}, column {column}): unknown product 'prod_mugg'; did you mean 'prod_mug'?\n")


def test_a_wrong_type_names_the_value_it_got_and_its_line(tmp_path: Path) -> None:
    file = tmp_path / "demo.yaml"
    file.write_text(DEMO_TEXT.replace("hierarchy: 2\n", f"hierarchy: {'two' * 30}\n", 1), encoding="utf-8")
    line = DEMO_TEXT.splitlines().index("        hierarchy: 2") + 1
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(file)
    issue = caught.value.issues[0]
    assert (issue.line, issue.column) == (line, 20)
    assert issue.problem == ("Input should be a valid integer, unable to parse string as an integer "
                             f"(got {repr('two' * 30)[:59]}…)")


# -- the demo, whole and with one reference mistyped -------------------------------------------------------
DEMO = yaml.safe_load(DEMO_TEXT)


def _references(doc: dict[str, Any]) -> list[tuple[tuple[int | str, ...], str, list[str]]]:
    """Every (loc, id, ids of its kinds there) `doc` references, read by
    walking it with the same tables (`PLACES`)."""
    from promolab.sim.scenario import references as r

    defined = r._defined(doc)
    found = []
    for place in PLACES:
        within = len(r._steps(place.within)) if place.within else 0
        for ref in r._found(doc, place):
            ids = [i for kind in ref.kinds for loc, i in defined[kind] if loc[:within] == ref.loc[:within]]
            found.append((ref.loc, ref.id, ids))
    return found


DEMO_REFERENCES = _references(DEMO)


def test_the_bundled_scenarios_reference_only_what_they_define() -> None:
    assert len(DEMO_REFERENCES) > 40  # the demo names products, tiers, segments, cards ... from many places
    for path in sorted((ROOT / "data" / "scenarios").glob("*.yaml")):
        assert dangling_references(yaml.safe_load(path.read_text(encoding="utf-8"))).issues == (), path
        Simulator.from_scenario(path)


def _set(doc: Any, loc: tuple[int | str, ...], old: str, value: str) -> None:
    for step in loc[:-1]:
        doc = doc[step]
    if doc[loc[-1]] == old:
        doc[loc[-1]] = value
    else:  # the key of a mapping is the reference (category limits): rename the key
        doc[value] = doc.pop(loc[-1])


typos = st.sampled_from(["insert", "delete", "replace", "swap"])


def _typo(ident: str, how: str, at: int, letter: str) -> str:
    at %= len(ident)
    if how == "insert":
        return ident[:at] + letter + ident[at:]
    if how == "delete" and len(ident) > 1:
        return ident[:at] + ident[at + 1:]
    if how == "swap" and at + 1 < len(ident):
        return ident[:at] + ident[at + 1] + ident[at] + ident[at + 2:]
    return ident[:at] + letter + ident[at + 1:]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(DEMO_REFERENCES) - 1), how=typos, at=st.integers(0, 40),
       letter=st.sampled_from("abcxyz_0"))
def test_a_mistyped_reference_in_the_demo_is_refused_naming_exactly_it(
    which: int, how: str, at: int, letter: str
) -> None:
    loc, ident, ids = DEMO_REFERENCES[which]
    wrong = _typo(ident, how, at, letter)
    if wrong in ids:  # the typo is another id of that kind: a correct reference
        return
    doc = copy.deepcopy(DEMO)
    _set(doc, loc, ident, wrong)
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(doc)
    from promolab.sim.scenario.issues import format_loc

    assert [issue.path for issue in caught.value.issues] == [format_loc(loc)]
    problem = caught.value.problem
    assert repr(wrong) in problem
    suggested = re.search(r"did you mean '([^']+)'\?$", problem)
    assert suggested is not None and suggested.group(1) in ids, problem


def test_a_scenario_mentioning_no_entity_of_the_kind_says_so() -> None:
    doc = {"segments": [{"name": "S", "customers": ["cust_x"]}]}
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(doc)
    assert caught.value.problem == "unknown customer 'cust_x': the scenario defines none"


def test_the_table_holds_places_and_kinds_only_once() -> None:
    patterns = [place.pattern for place in PLACES]
    assert len(patterns) == len(set(patterns))
    assert all(isinstance(place, Place) for place in PLACES)


def _demo_definitions() -> list[tuple[tuple[int | str, ...], str]]:
    """Every (loc, id) of the demo's definitions that some reference names."""
    from promolab.sim.scenario import references as r

    named = {ident for _, ident, _ in DEMO_REFERENCES}
    return sorted({(loc, ident) for found in r._defined(DEMO).values() for loc, ident in found if ident in named})


DEMO_DEFINITIONS = _demo_definitions()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(DEMO_DEFINITIONS) - 1), how=typos, at=st.integers(0, 40),
       letter=st.sampled_from("abcxyz_0"))
def test_a_renamed_definition_leaves_exactly_its_references_dangling(
    which: int, how: str, at: int, letter: str
) -> None:
    from promolab.sim.scenario.issues import format_loc

    loc, ident = DEMO_DEFINITIONS[which]
    renamed = _typo(ident, how, at, letter)
    every_id = {i for _, i, ids in DEMO_REFERENCES for i in [i, *ids]}
    if renamed in every_id:  # another entity's id (or the same one): nothing dangles, or two share one id
        return
    doc = copy.deepcopy(DEMO)
    _set(doc, loc, ident, renamed)
    expected = {format_loc(ref_loc) for ref_loc, named, ids in DEMO_REFERENCES
                if named == ident and ident not in dangling_after(doc, ref_loc)}
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(doc)
    # besides what the new id itself may break (`linc_` ids are hex), exactly its references
    dangling = [issue for issue in caught.value.issues if issue.path != format_loc(loc)]
    assert {issue.path for issue in dangling} == expected
    assert all(repr(ident) in issue.problem for issue in dangling)


def dangling_after(doc: dict[str, Any], ref_loc: tuple[int | str, ...]) -> list[str]:
    """The ids still defined for the reference at `ref_loc` once `doc` is changed."""
    return next(ids for loc, _, ids in _references(doc) if loc == ref_loc)
