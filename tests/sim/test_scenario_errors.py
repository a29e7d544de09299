"""The scenario loader refuses bad scenarios with `<file>: <path>: <problem>`.

One case per kind of error. Snippets are small mappings (origin
`<scenario>`); the file-level kinds and a few others are written to temporary
YAML/JSON files to check that the message names the file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from promolab import ScenarioError, Simulator
from promolab.sim.operations.validation import VALIDATE

MATERIAL = {"product": {"id": "prod_x"}}


def incentive(**fields: Any) -> dict[str, Any]:
    return {"catalogue": {"products": [{"id": "prod_x", "name": "X"}]},
            "loyalty": {"incentives": [{"name": "Mug", "type": "MATERIAL", "material": MATERIAL, **fields}]}}


def tier(discount: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    discount = discount or {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"}
    return {"campaigns": [{"name": "C", "tiers": [{"name": "T", "discount": discount, **fields}]}]}


def rules(rule: dict[str, Any]) -> dict[str, Any]:
    return {"rules": {"1": rule}, "logic": "1"}


PROGRAM_WITH_DEF = {"name": "Club", "card_definitions": [{"id": "lcdef_pts", "name": "Points"}]}
POINTS_INCENTIVE = {"id": "linc_ab", "name": "Pts", "type": "POINTS", "points": {"value": 1, "card_definition_id": "lcdef_pts"}}

#: kind -> (document, path, problem)
CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "unknown top-level key (typo)": (
        {"custmers": []}, "custmers", "unknown key; did you mean 'customers'?"),
    "unknown nested key (typo)": (
        {"customers": [{"id": "cust_a", "emial": "a@example.com"}]}, "customers[0].emial", "unknown key; did you mean 'email'?"),
    "wrong type": (
        {"customers": [{"id": "cust_a", "metadata": "gold"}]}, "customers[0].metadata", "Input should be a valid dictionary (got 'gold')"),
    "wrong type: fractional money": (
        {"catalogue": {"products": [{"name": "P", "price": 12.5}]}}, "catalogue.products[0].price", "Input should be a valid integer (got 12.5)"),
    "out of range: negative price": (
        {"catalogue": {"products": [{"name": "P", "price": -1}]}}, "catalogue.products[0].price",
        "Input should be greater than or equal to 0 (got -1)"),
    "out of range: stock 2147483648": (
        incentive(stock=2147483648), "loyalty.incentives[0].stock", "Input should be less than or equal to 2147483647 (got 2147483648)"),
    "out of range: negative card balance": (
        {"customers": [{"id": "c"}], "loyalty": {"programs": [{**PROGRAM_WITH_DEF, "members": [
            {"customer": "c", "cards": [{"card_definition": "lcdef_pts", "balance": -5}]}]}]}},
        "loyalty.programs[0].members[0].cards[0].balance", "Input should be greater than or equal to 0 (got -5)"),
    "currency not of ISO 4217": (
        {"project": {"currency": "ABC"}}, "project.currency",
        "'ABC' is not an ISO 4217 currency code (three upper-case letters, such as 'USD', 'EUR' or 'CLP')"),
    "currency in lower case": (
        {"project": {"currency": "clp"}}, "project.currency",
        "'clp' is not an ISO 4217 currency code (three upper-case letters, such as 'USD', 'EUR' or 'CLP')"),
    "wrong enum value": (
        {"loyalty": {"rewards": [{"name": "R", "type": "PHYSICAL"}]}}, "loyalty.rewards[0].type",
        "Input should be 'MATERIAL' or 'DIGITAL' (got 'PHYSICAL')"),
    "naive timestamp": (
        {"clock": {"start": "2026-03-06T10:00:00"}}, "clock.start", "Input should have timezone info (got '2026-03-06T10:00:00')"),
    "duplicate id": (
        {"customers": [{"id": "cust_a"}, {"id": "cust_a"}]}, "customers[1].id", "duplicate id 'cust_a'"),
    "duplicate customer source_id": (
        {"customers": [{"source_id": "ann"}, {"source_id": "ann"}]}, "customers[1].source_id", "duplicate source_id 'ann'"),
    "duplicate voucher code": (
        {"campaigns": [{"name": "C", "type": "DISCOUNT_COUPONS",
                        "discount": {"type": "AMOUNT", "amount_off": 1, "effect": "APPLY_TO_ORDER"},
                        "vouchers": [{"code": "A"}, {"code": "A"}]}]},
        "campaigns[0].vouchers[1].code", "duplicate voucher code 'A'"),
    "unknown reference: member's customer": (
        {"loyalty": {"programs": [{"name": "Club", "members": [{"customer": "nobody"}]}]}},
        "loyalty.programs[0].members[0].customer", "unknown customer 'nobody': the scenario defines none"),
    "unknown reference: reward assignment's reward": (
        {"loyalty": {"programs": [{**PROGRAM_WITH_DEF, "rewards": [
            {"reward": "lrew_nope", "costs": [{"card_definition": "lcdef_pts", "points": 1}]}]}]}},
        "loyalty.programs[0].rewards[0].reward", "unknown reward 'lrew_nope': the scenario defines none"),
    "unknown reference: card definition": (
        {"customers": [{"id": "c"}], "loyalty": {"programs": [{**PROGRAM_WITH_DEF, "members": [
            {"customer": "c", "cards": [{"card_definition": "lcdef_other"}]}]}]}},
        "loyalty.programs[0].members[0].cards[0].card_definition",
        "unknown card definition 'lcdef_other' in loyalty.programs[0]; did you mean 'lcdef_pts'?"),
    "unknown reference: incentive's card definition": (
        {"loyalty": {"incentives": [POINTS_INCENTIVE]}},
        "loyalty.incentives[0].points.card_definition_id",
        "unknown card definition 'lcdef_pts': the scenario defines none"),
    "unknown reference: collection product": (
        {"catalogue": {"collections": [{"name": "All", "products": ["prod_nope"]}]}},
        "catalogue.collections[0].products[0]", "unknown product 'prod_nope': the scenario defines none"),
    "unknown reference: segment customer": (
        {"segments": [{"name": "VIP", "customers": ["nobody"]}]}, "segments[0].customers[0]", "unknown customer 'nobody': the scenario defines none"),
    "unknown reference: earning rule incentive": (
        {"event_schema": [{"name": "order_placed"}], "loyalty": {"programs": [{**PROGRAM_WITH_DEF, "earning_rules": [
            {"event": "order_placed", "incentive": "linc_ffff"}]}]}},
        "loyalty.programs[0].earning_rules[0].incentive", "unknown incentive 'linc_ffff': the scenario defines none"),
    "unknown reference: earning rule event": (
        {"loyalty": {"incentives": [POINTS_INCENTIVE], "programs": [{**PROGRAM_WITH_DEF, "earning_rules": [
            {"event": "order_placed", "incentive": "linc_ab"}]}]}},
        "loyalty.programs[0].earning_rules[0].event", "unknown event 'order_placed': the scenario defines none"),
    "unknown reference: referral program": (
        {"event_schema": [{"name": "first_order"}], "campaigns": [{"name": "Ref", "type": "REFERRAL_PROGRAM", "referral": {
            "conversion_event": "first_order", "referrer_reward": {
                "type": "LOYALTY_POINTS", "program_id": "lprg_nope", "card_definition_id": "lcdef_pts", "points": 5}}}],
         "loyalty": {"programs": [{**PROGRAM_WITH_DEF, "id": "lprg_club"}]}},
        "campaigns[0].referral.referrer_reward.program_id", "unknown program 'lprg_nope'"),
    "unknown reference: referral campaign": (
        {"event_schema": [{"name": "first_order"}], "campaigns": [{"name": "Ref", "type": "REFERRAL_PROGRAM", "referral": {
            "conversion_event": "first_order", "referrer_reward": {"type": "DISCOUNT_COUPON", "campaign_id": "camp_nope"}}}]},
        "campaigns[0].referral.referrer_reward.campaign_id", "unknown campaign 'camp_nope': the scenario defines none"),
    "unknown reference: referral conversion event": (
        {"campaigns": [{"name": "Ref", "type": "REFERRAL_PROGRAM", "referral": {"conversion_event": "nope"}}]},
        "campaigns[0].referral.conversion_event", "unknown event 'nope': the scenario defines none"),
    "unknown reference: reward's digital campaign": (
        {"loyalty": {"rewards": [{"name": "R", "type": "DIGITAL", "digital": {"discount_coupons": {"campaign_id": "camp_x"}}}]}},
        "loyalty.rewards[0].digital.discount_coupons.campaign_id", "unknown campaign 'camp_x': the scenario defines none"),
    "bad discount shape: unknown type": (
        tier({"type": "BOGO"}), "campaigns[0].tiers[0].discount",
        "discount.type should be one of AMOUNT, PERCENT, FIXED, UNIT (got {'type': 'BOGO'})"),
    "bad validation rule: unknown rule name": (
        tier(validation_rules=rules({"name": "order.colour", "conditions": {"$is": ["red"]}})),
        "campaigns[0].tiers[0].validation_rules", "unsupported rule order.colour"),
    "bad validation rule: unknown operator": (
        tier(validation_rules=rules({"name": "order.amount", "conditions": {"$roughly": [5000]}})),
        "campaigns[0].tiers[0].validation_rules", "unknown operator $roughly in rule order.amount"),
    "incentive id breaking ^linc_[a-f0-9]+$": (
        incentive(id="linc_XYZ"), "loyalty.incentives[0].id", "String should match pattern '^linc_[a-f0-9]+$' (got 'linc_XYZ')"),
    "incentive name over 200 characters": (
        incentive(name="x" * 201), "loyalty.incentives[0].name", "String should have at most 200 characters (got '" + "x" * 58 + "…)"),
    "incentive detail not matching its type": (
        incentive(type="POINTS"), "loyalty.incentives[0].points", "points is required when type is POINTS"),
    "gift balance above the amount": (
        {"campaigns": [{"name": "Gift", "type": "GIFT_VOUCHERS", "gift_amount": 1000,
                        "vouchers": [{"code": "G-1", "gift": {"amount": 1000, "balance": 1001}}]}]},
        "campaigns[0].vouchers[0].gift.balance", "gift balance cannot exceed the credited amount"),
    "PROMOTION campaign with vouchers": (
        {"campaigns": [{"name": "Promo", "type": "PROMOTION", "vouchers": [{"code": "X"}]}]},
        "campaigns[0].vouchers", "a PROMOTION campaign has tiers, not vouchers"),
    "coupon campaign with tiers": (
        {"campaigns": [{"name": "Coupons", "type": "DISCOUNT_COUPONS", **tier()["campaigns"][0]}]},
        "campaigns[0].tiers", "a DISCOUNT_COUPONS campaign has vouchers, not tiers"),
    "webhook with both url and receiver": (
        {"webhooks": [{"url": "https://example.com/hook", "receiver": "notebook"}]},
        "webhooks[0]", "give exactly one of url or receiver"),
    "webhook with neither url nor receiver": (
        {"webhooks": [{}]}, "webhooks[0]", "give exactly one of url or receiver"),
    "reward assignment without a cost": (
        {"catalogue": {"products": [{"id": "prod_x", "name": "X"}]},
         "loyalty": {"rewards": [{"id": "lrew_a", "name": "A", "type": "MATERIAL", "material": MATERIAL}],
                     "programs": [{**PROGRAM_WITH_DEF, "rewards": [{"reward": "lrew_a", "costs": []}]}]}},
        "loyalty.programs[0].rewards[0].costs", "a reward assignment needs at least one cost"),
    "event defined twice": (
        {"event_schema": [{"name": "e"}, {"name": "e"}]}, "event_schema[1].name", "event 'e' is defined twice"),
    "wrong type at the top: seed": (
        {"seed": "seven"}, "seed", "Input should be a valid integer, unable to parse string as an integer (got 'seven')"),
}


#: A catalogue entry for tiers that scope items (applicable_to).
SCOPED_PRODUCT = {"catalogue": {"products": [{"id": "prod_x", "name": "X", "price": 1000}]}}


def scoped_tier(discount: dict[str, Any], applicable_to: Any, *, tiers_before: int = 0, **fields: Any) -> dict[str, Any]:
    """A promotion campaign whose last tier has `discount` and `applicable_to`,
    after `tiers_before` good tiers (so the path names the right one)."""
    good = {"name": "Good", "discount": {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"}}
    bad = {"name": "Bad", "discount": discount, "applicable_to": applicable_to, **fields}
    return {**SCOPED_PRODUCT, "campaigns": [
        {"name": "First", "tiers": [good]},
        {"name": "Second", "tiers": [*([good] * tiers_before), bad]},
    ]}


ITEMS_OFF = {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS"}

#: Tiers that pass the wire models but that the pricing engine cannot
#: evaluate: refused at load (`compile_tier`), never a 500 on the first
#: validation. kind -> (document, path, problem)
TIER_COMPILE_CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "applicable_to effect APPLY_TO_CHEAPEST": (
        scoped_tier(ITEMS_OFF, {"included": [{"object": "product", "id": "prod_x", "effect": "APPLY_TO_CHEAPEST"}]}),
        "campaigns[1].tiers[0]", "applicable_to effect APPLY_TO_CHEAPEST is not supported (only APPLY_TO_EVERY)"),
    "applicable_to effect APPLY_TO_MOST_EXPENSIVE, after good tiers": (
        scoped_tier(ITEMS_OFF, {"included": [{"object": "product", "id": "prod_x", "effect": "APPLY_TO_MOST_EXPENSIVE"}]},
                    tiers_before=2),
        "campaigns[1].tiers[2]", "applicable_to effect APPLY_TO_MOST_EXPENSIVE is not supported (only APPLY_TO_EVERY)"),
    "excluded entry with an unsupported effect": (
        scoped_tier(ITEMS_OFF, {"excluded": [{"object": "product", "id": "prod_x", "effect": "APPLY_TO_CHEAPEST"}]}),
        "campaigns[1].tiers[0]", "applicable_to effect APPLY_TO_CHEAPEST is not supported (only APPLY_TO_EVERY)"),
    "applicable_to entry of an unknown object": (
        scoped_tier(ITEMS_OFF, {"included": [{"object": "category", "id": "cat_x"}]}),
        "campaigns[1].tiers[0]",
        "applicable_to entry object must be one of ('product', 'sku', 'products_collection'), got 'category'"),
    "applicable_to entry without an id": (
        scoped_tier(ITEMS_OFF, {"included": [{"object": "products_collection"}]}),
        "campaigns[1].tiers[0]", "applicable_to entry {'object': 'products_collection'} needs an id"),
    "applicable_to entry with a negative quantity_limit": (
        scoped_tier(ITEMS_OFF, {"included": [{"object": "product", "id": "prod_x", "quantity_limit": -1}]}),
        "campaigns[1].tiers[0]", "applicable_to entry quantity_limit must be a non-negative integer, got -1"),
    "applicable_to included that is not an array": (
        scoped_tier(ITEMS_OFF, {"included": {"object": "product", "id": "prod_x"}}),
        "campaigns[1].tiers[0]", "applicable_to.included/excluded must be arrays"),
    "applicable_to written with the response's data list": (
        scoped_tier(ITEMS_OFF, {"data": [{"object": "product", "id": "prod_x"}]}),
        "campaigns[1].tiers[0]", "applicable_to accepts 'included' and 'excluded' only, got ['data']"),
    "an inactive tier is compiled too": (
        scoped_tier(ITEMS_OFF, {"included": [{"object": "product", "id": "prod_x", "effect": "APPLY_TO_CHEAPEST"}]},
                    active=False),
        "campaigns[1].tiers[0]", "applicable_to effect APPLY_TO_CHEAPEST is not supported (only APPLY_TO_EVERY)"),
}


@pytest.mark.parametrize(("document", "path", "problem"), TIER_COMPILE_CASES.values(), ids=list(TIER_COMPILE_CASES))
def test_a_tier_the_engine_cannot_evaluate_is_refused_at_load(document: dict[str, Any], path: str, problem: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(document)
    exc = info.value
    assert (exc.origin, exc.path, exc.problem) == ("<scenario>", path, problem)
    assert str(exc) == f"<scenario>: {path}: {problem}"


def test_a_supported_scope_still_loads_and_validates() -> None:
    """The counterpart: the same tier with the supported effect (explicit or
    default) loads and is priced."""
    for entry in ({"object": "product", "id": "prod_x", "effect": "APPLY_TO_EVERY"}, {"object": "product", "id": "prod_x"}):
        sim = Simulator.from_scenario(scoped_tier(ITEMS_OFF, {"included": [entry]}))
        order = {"items": [{"product_id": "prod_x", "quantity": 1, "price": 1000}]}
        response = sim.apply(VALIDATE, request={"order": order}).model()
        bad = next(p for p in response.promotions if p.name == "Bad")
        assert bad.discount_amount == 100


def test_a_bad_tier_in_a_file_names_the_file(tmp_path: Path) -> None:
    document, path, problem = TIER_COMPILE_CASES["applicable_to effect APPLY_TO_CHEAPEST"]
    file = write(tmp_path, "cheapest.yaml", yaml.safe_dump(document))
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(file)
    line = file.read_text().splitlines().index("  - applicable_to:") + 1  # where the refused tier begins
    assert str(info.value) == f"{file}: {path} (line {line}, column 5): {problem}"


@pytest.mark.parametrize(("document", "path", "problem"), CASES.values(), ids=list(CASES))
def test_each_kind_of_error_names_where_and_what(document: dict[str, Any], path: str, problem: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(document)
    exc = info.value
    assert str(exc) == f"<scenario>: {path}: {problem}"
    assert (exc.origin, exc.path, exc.problem) == ("<scenario>", path, problem)
    assert isinstance(exc, ValueError)  # callers may catch ValueError


def test_bad_discount_shape_is_checked_against_the_wire_models() -> None:
    # The wire model's error location carries the discriminator (AMOUNT);
    # accept the path with or without it.
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(tier({"type": "AMOUNT", "effect": "APPLY_TO_ORDER"}))
    assert re.fullmatch(r"<scenario>: campaigns\[0\]\.tiers\[0\]\.discount(\.AMOUNT)?\.amount_off: Field required",
                        str(info.value)), str(info.value)


# -- files: the message names the file ------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text", "where_what"),
    [
        ("broken.yaml", "customers:\n  - {id: cust_a\n", "line 3, column 1: not valid YAML: expected ',' or '}', but got '<stream end>'"),
        ("tabs.yaml", "project:\n\tid: p\n", "line 2, column 1: not valid YAML: found character '\\t' that cannot start any token"),
        ("broken.json", '{"customers": [', "line 1, column 16: not valid JSON: Expecting value"),
    ],
)
def test_syntax_errors_name_the_file_and_the_line(tmp_path: Path, name: str, text: str, where_what: str) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(path)
    assert str(info.value) == f"{path}: {where_what}"
    assert info.value.origin == str(path)


@pytest.mark.parametrize(("text", "kind"), [("- 1\n- 2\n", "list"), ("just text\n", "str"), ("42\n", "int")])
def test_a_document_that_is_not_a_mapping_is_refused(tmp_path: Path, text: str, kind: str) -> None:
    path = write(tmp_path, "scalar.yaml", text)
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(path)
    # The whole document is at fault: the path part is empty and left out.
    assert str(info.value) == f"{path}: the document must be a mapping, not {kind}"
    assert info.value.path == ""


def test_a_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.yaml"
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(path)
    assert str(info.value) == f"{path}: cannot read file (No such file or directory)"


@pytest.mark.parametrize("currency", ["USD", "CLP", "TND", "VND"])
def test_a_currency_of_the_standard_is_the_simulators(currency: str) -> None:
    sim = Simulator.from_scenario({"project": {"currency": currency}})
    assert sim.currency == currency
    assert Simulator.from_scenario({}).currency == "USD"


def test_errors_in_a_yaml_file_name_the_file_and_the_path(tmp_path: Path) -> None:
    document = {"loyalty": {"programs": [{"name": "Club", "members": [{"customer": "nobody"}]}]}}
    path = write(tmp_path, "shop.yaml", yaml.safe_dump(document))
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(path)
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "customer: nobody" in text)
    assert str(info.value) == (f"{path}: loyalty.programs[0].members[0].customer (line {line}, column 17): "
                               "unknown customer 'nobody': the scenario defines none")
    assert (info.value.issues[0].line, info.value.issues[0].column) == (line, 17)


def test_errors_in_a_json_file_name_the_file_and_the_path(tmp_path: Path) -> None:
    path = write(tmp_path, "shop.json", json.dumps(incentive(stock=-1)))
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(path)
    column = path.read_text().index("-1") + 1  # one line of JSON: the column of the value
    assert str(info.value) == (f"{path}: loyalty.incentives[0].stock (line 1, column {column}): "
                               "Input should be greater than or equal to 0 (got -1)")


def test_a_typo_in_the_demo_names_the_demo(tmp_path: Path, demo_path: Path) -> None:
    text = demo_path.read_text(encoding="utf-8")
    assert "\n  purchase_delay_seconds: 2\n" in text
    text = text.replace("\n  purchase_delay_seconds: 2\n", "\n  purchase_delay_secs: 2\n", 1)
    path = write(tmp_path, "demo-typo.yaml", text)
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(path)
    line = text.splitlines().index("  purchase_delay_secs: 2") + 1
    assert str(info.value) == (f"{path}: settings.purchase_delay_secs (line {line}, column 24): "
                               "unknown key; did you mean 'purchase_delay_seconds'?")


def test_cli_validate_reports_the_error_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from promolab.cli import main

    path = write(tmp_path, "bad.yaml", "webhooks:\n  - {url: 'https://x.example', receiver: r}\n")
    assert main(["validate", "--scenario", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"promolab: scenario refused: {path}: webhooks[0] (line 2, column 5): give exactly one of url or receiver"
    )
