"""Codes with scope and rules; gift cards with amount rules; `order.total_amount` rules.

A discount code (a voucher of its own or its campaign's terms) carries
`applicable_to` and `validation_rules` as a promotion tier does, compiled by
the same `compile_tier`; a gift card carries validation rules. Checked on
every path that prices a code: a code alone in a stacked validation, stacked
validation and redemption, qualifications, and the wire answers. The
differential tests hold a code to the promotion tier with the same terms
(promotion validation and the single-tier engine); a hypothesis invariant
holds over generated stacks of scoped codes and gift cards.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.sim import ScenarioError
from promolab.sim.operations.qualifications import QUALIFICATIONS, qualification_exclusions
from promolab.sim.operations.redemptions import REDEEM_STACKED
from promolab.sim.operations.stacked_validation import VALIDATE_STACKED
from promolab.sim.operations.validation import VALIDATE
from scoped_codes_scenario import ONLY_MUG, SCENARIO, TOTAL_AT_LEAST_2500

MUG = {"product_id": "prod_mug", "quantity": 1}
TOTE = {"product_id": "prod_tote", "quantity": 1}
BEANS_1KG = {"sku_id": "sku_beans_1000", "quantity": 1}
BEANS_250 = {"sku_id": "sku_beans_250", "quantity": 2}


@pytest.fixture(scope="module")
def sim() -> Simulator:
    return Simulator.from_scenario(copy.deepcopy(SCENARIO))


def validate(sim: Simulator, codes: list[Any], items: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    redeemables = [c if isinstance(c, dict) else {"object": "voucher", "id": c} for c in codes]
    return sim.apply(VALIDATE_STACKED, request={"redeemables": redeemables, "order": {"items": items}, **body}).wire


def every(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each redeemable's answer by id (applicable, skipped or not)."""
    out: dict[str, dict[str, Any]] = {}
    for key in ("redeemables", "inapplicable_redeemables", "skipped_redeemables"):
        for r in answer[key]:
            out.setdefault(r["id"], r)
    return out


def line_discounts(order: dict[str, Any]) -> list[int]:
    return [item.get("discount_amount", 0) for item in order["items"]]


# -- scope: which lines a code reaches -------------------------------------------------------
SCOPE_CASES = [
    # (code, items, discount of each line)
    ("MUG50", [MUG, TOTE], [600, 0]),  # the campaign's scope: the mug only
    ("MUG50", [TOTE], None),  # nothing in scope: no effect (applied 0)
    ("SKU500", [BEANS_1KG, BEANS_250], [500, 0]),  # a SKU entry: that SKU's lines
    ("MERCH10", [MUG, TOTE, BEANS_250], [120, 0, 0]),  # a collection, less its excluded product
    ("POOL-", [MUG, TOTE, BEANS_1KG], [240, 500, 0]),  # a pool's codes: the campaign's scope and rules
    ("BIG", [MUG, TOTE, BEANS_1KG], [0, 0, 0]),  # `applicable_to: {}`: no scope, order-level
]


def _code(sim: Simulator, name: str) -> str:
    if not name.endswith("-"):
        return name
    return min(v.code for v in sim.state.vouchers.values() if v.code.startswith(name))


@pytest.mark.parametrize(("code", "items", "lines"), SCOPE_CASES, ids=[f"{c[0]}-{len(c[1])}" for c in SCOPE_CASES])
def test_a_codes_scope_decides_the_lines_it_discounts(
    sim: Simulator, code: str, items: list[dict[str, Any]], lines: list[int] | None
) -> None:
    code = _code(sim, code)
    answer = validate(sim, [code], items)
    mine = every(answer)[code]
    assert mine["status"] == "APPLICABLE"
    if lines is None:
        assert mine["order"].get("total_applied_discount_amount", 0) == 0
    else:
        assert line_discounts(mine["order"]) == lines
        assert answer["order"].get("items_discount_amount", 0) == sum(lines)


def test_the_wire_shows_a_codes_scope_as_the_service_does(sim: Simulator) -> None:
    mine = every(validate(sim, ["MERCH10"], [MUG]))["MERCH10"]
    assert mine["applicable_to"] == {
        "data": [{"object": "products_collection", "id": "pc_merch", "effect": "APPLY_TO_EVERY"}],
        "total": 1, "data_ref": "data", "object": "list"}
    assert mine["inapplicable_to"] == {
        "data": [{"object": "product", "id": "prod_tote", "source_id": "tote", "effect": "APPLY_TO_EVERY"}],
        "total": 1, "data_ref": "data", "object": "list"}
    assert every(validate(sim, ["BIG"], [MUG] * 5))["BIG"]["applicable_to"]["data"] == []


# -- rules: a code's and a gift card's ----------------------------------------------------------
RULE_CASES = [
    # (code, items, customer, status, key)
    ("BIG", [MUG, TOTE, BEANS_1KG], None, "APPLICABLE", None),
    ("BIG", [MUG, TOTE], None, "INAPPLICABLE", "order_rules_violated"),
    ("GOLD", [MUG], {"id": "cust_gold"}, "APPLICABLE", None),
    ("GOLD", [MUG], {"id": "cust_plain"}, "INAPPLICABLE", "customer_rules_violated"),
    ("POOL-", [TOTE], None, "INAPPLICABLE", "order_rules_violated"),  # the campaign's rule: a mug in the cart
    ("GIFT1", [MUG, TOTE], None, "APPLICABLE", None),  # 3700 >= 3000
    ("GIFT1", [TOTE], None, "INAPPLICABLE", "order_rules_violated"),  # the campaign's amount rule
    ("GIFT-FREE", [TOTE], None, "APPLICABLE", None),  # its own empty rules replace the campaign's
]


@pytest.mark.parametrize(("code", "items", "customer", "status", "key"), RULE_CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in RULE_CASES])
def test_a_codes_rules_pass_or_refuse_it_with_the_services_key(
    sim: Simulator, code: str, items: list[dict[str, Any]], customer: dict[str, Any] | None, status: str,
    key: str | None,
) -> None:
    code = _code(sim, code)
    body = {"customer": customer} if customer else {}
    mine = every(validate(sim, [code], items, **body))[code]
    assert mine["status"] == status
    if key is not None:
        assert mine["result"]["error"]["key"] == key
        assert mine["result"]["details"]["key"] == key


def test_a_gift_cards_rule_reads_the_running_order(sim: Simulator) -> None:
    """GIFT1 needs order.amount >= 3000 (the total before it): the cart is
    3100; after MUG50's 600 off it is 2500."""
    cart = [MUG, {"product_id": "prod_tote", "quantity": 1, "price": 1900}]
    first = validate(sim, ["GIFT1", "MUG50"], cart)
    assert every(first)["GIFT1"]["status"] == "APPLICABLE"
    late = every(validate(sim, ["MUG50", "GIFT1"], cart))["GIFT1"]
    assert late["status"] == "INAPPLICABLE" and late["result"]["error"]["key"] == "order_rules_violated"


# -- order.total_amount: after the redeemable's own discount -----------------------------------------
TOTAL_CASES = [
    # (redeemables, items, status of TOTAL, final total)
    (["TOTAL"], [MUG, TOTE], "APPLICABLE", 2700),  # 3700 - 1000 = 2700 >= 2500
    (["TOTAL"], [TOTE, {"product_id": "prod_mug", "quantity": 1, "price": 500}], "INAPPLICABLE", 3000),  # 2000
    (["MUG50", "TOTAL"], [MUG, TOTE], "INAPPLICABLE", 3700),  # 3100 - 1000 < 2500; ALL: nothing applies
    (["TOTAL", "MUG50"], [MUG, TOTE], "APPLICABLE", 2100),  # the rule is read when TOTAL is tried
    ([{"object": "voucher", "id": "GIFT-FREE", "gift": {"credits": 300}}, "TOTAL"], [MUG, TOTE], "INAPPLICABLE", 3700),
]


@pytest.mark.parametrize(("sent", "items", "status", "total"), TOTAL_CASES, ids=[str(i) for i in range(len(TOTAL_CASES))])
def test_total_amount_rules_read_the_total_after_the_redeemables_own_discount(
    sim: Simulator, sent: list[Any], items: list[dict[str, Any]], status: str, total: int
) -> None:
    answer = validate(sim, sent, items)
    assert every(answer)["TOTAL"]["status"] == status
    assert answer["order"]["total_amount"] == total


def test_total_amount_standalone_agrees_with_promotion_validation(sim: Simulator) -> None:
    """A tier with the same rule, validated alone: 2700 passes, 2000 does not."""
    for items, valid in (([MUG, TOTE], True), ([TOTE, {"product_id": "prod_mug", "quantity": 1, "price": 500}], False)):
        promotions = sim.apply(VALIDATE, request={"order": {"items": items}}).wire["promotions"]
        assert ("promo_total" in {p["id"] for p in promotions}) is valid
        assert (every(validate(sim, ["TOTAL"], items))["TOTAL"]["status"] == "APPLICABLE") is valid
        tier = every(validate(sim, [{"object": "promotion_tier", "id": "promo_total"}], items))["promo_total"]
        assert (tier["status"] == "APPLICABLE") is valid


def test_a_gift_cards_total_amount_rule_reads_the_total_after_its_credits(sim: Simulator) -> None:
    """GIFT-TOTAL needs the total after its credits >= 1000: a 3700 cart takes 2700 of credits, not 5000."""
    ok = every(validate(sim, [{"object": "voucher", "id": "GIFT-TOTAL", "gift": {"credits": 2700}}], [MUG, TOTE]))
    assert ok["GIFT-TOTAL"]["status"] == "APPLICABLE"
    over = every(validate(sim, ["GIFT-TOTAL"], [MUG, TOTE]))  # its whole balance: the total would be 0
    assert over["GIFT-TOTAL"]["status"] == "INAPPLICABLE"
    assert over["GIFT-TOTAL"]["result"]["error"]["key"] == "order_rules_violated"


# -- the notes' worked example G: amount rules during stacking ------------------------------------
CART_1050 = [{"product_id": "prod_mug", "quantity": 1, "price": 1050}]


def test_worked_example_g_coupon_first_applies() -> None:
    sim = Simulator.from_scenario(copy.deepcopy(SCENARIO))
    answer = validate(sim, ["EXAMPLE-G", {"object": "voucher", "id": "GIFT-FREE", "gift": {"credits": 100}}], CART_1050)
    assert [r["status"] for r in answer["redeemables"]] == ["APPLICABLE", "APPLICABLE"]
    assert answer["order"]["total_amount"] == 1050 - 100 - 100


def test_worked_example_g_gift_first_the_coupon_sees_950() -> None:
    sim = Simulator.from_scenario(copy.deepcopy(SCENARIO))
    answer = validate(sim, [{"object": "voucher", "id": "GIFT-FREE", "gift": {"credits": 100}}, "EXAMPLE-G"], CART_1050)
    coupon = every(answer)["EXAMPLE-G"]
    assert coupon["status"] == "INAPPLICABLE" and coupon["result"]["error"]["key"] == "order_rules_violated"
    assert answer["valid"] is False


# -- differential: a code priced as a tier of the same terms -------------------------------------
ITEM = st.sampled_from([MUG, TOTE, BEANS_1KG, BEANS_250, {"product_id": "prod_mug", "quantity": 3}])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(ITEM, min_size=1, max_size=5))
def test_a_scoped_code_alone_equals_the_tier_of_the_same_terms(sim: Simulator, items: list[dict[str, Any]]) -> None:
    """MUG50 (its campaign's discount and scope) alone in a stacked
    validation: the same order as promo_mug_half alone in one, and the same
    discount and order as promotion validation gives that tier."""
    code = every(validate(sim, ["MUG50"], items))["MUG50"]
    tier = every(validate(sim, [{"object": "promotion_tier", "id": "promo_mug_half"}], items))["promo_mug_half"]
    assert code["order"] == tier["order"]
    assert code["applicable_to"] == tier["applicable_to"] and code["inapplicable_to"] == tier["inapplicable_to"]
    promotions = {p["id"]: p for p in sim.apply(VALIDATE, request={"order": {"items": items}}).wire["promotions"]}
    single = promotions["promo_mug_half"]
    assert single["discount_amount"] == code["order"].get("total_applied_discount_amount", 0)
    assert single["order"]["total_amount"] == code["order"]["total_amount"]
    assert line_discounts(single["order"]) == line_discounts(code["order"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(ITEM, min_size=1, max_size=5), before=st.sampled_from(["BIG", "MERCH10", "SKU500", "GIFT-FREE"]))
def test_a_scoped_code_in_a_stack_equals_the_tier_of_the_same_terms_there(
    sim: Simulator, items: list[dict[str, Any]], before: str
) -> None:
    as_code = validate(sim, [before, "MUG50"], items)
    as_tier = validate(sim, [before, {"object": "promotion_tier", "id": "promo_mug_half"}], items)
    assert as_code["order"] == as_tier["order"] and as_code["valid"] == as_tier["valid"]
    assert every(as_code)["MUG50"]["status"] == every(as_tier)["promo_mug_half"]["status"]


# -- invariants over generated stacks of scoped codes --------------------------------------------
STACKABLE = ["MUG50", "SKU500", "MERCH10", "BIG", "GOLD", "TOTAL", "EXAMPLE-G", "GIFT1", "GIFT-FREE", "GIFT-TOTAL"]
RULES = st.fixed_dictionaries({
    "redeemables_application_mode": st.sampled_from(["ALL", "PARTIAL"]),
    "discount_calculation_mode": st.sampled_from(["DISCOUNTED_AMOUNT", "INITIAL_AMOUNT"]),
    "redeemables_products_application_mode": st.sampled_from(["STACK", "ONCE"]),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(codes=st.lists(st.sampled_from(STACKABLE), min_size=1, max_size=5, unique=True),
       items=st.lists(ITEM, min_size=1, max_size=6), rules=RULES, gold=st.booleans())
def test_stacks_of_scoped_codes_sum_up_and_never_go_negative(
    codes: list[str], items: list[dict[str, Any]], rules: dict[str, str], gold: bool
) -> None:
    sim = Simulator.from_scenario(copy.deepcopy(SCENARIO))
    with sim.client() as client:
        client.create_stacking_rules(sim.state.project.id, **rules)
    customer = {"id": "cust_gold" if gold else "cust_plain"}
    answer = validate(sim, codes, items, customer=customer)
    order = answer["order"]
    applied = [r for r in every(answer).values() if r["status"] == "APPLICABLE"]
    taken = sum(r["order"].get("total_applied_discount_amount", 0) for r in applied)
    # a valid stack applies what its redeemables applied; an invalid one nothing
    assert order.get("total_applied_discount_amount", 0) == (taken if answer["valid"] else 0)
    assert order.get("total_discount_amount", 0) == order.get("total_applied_discount_amount", 0)
    assert order["total_amount"] >= 0
    assert order["total_amount"] == order["amount"] - order.get("total_discount_amount", 0)
    for r in applied:
        assert r["order"]["total_amount"] >= 0
        for item in r["order"]["items"]:
            assert 0 <= item.get("discount_amount", 0) <= item["amount"]
    # the scopes hold: no code discounted a line it does not reach
    for r in applied:
        if r["id"] in ("MUG50", "SKU500", "MERCH10"):
            reach = {"MUG50": {"prod_mug"}, "SKU500": {"sku_beans_1000"}, "MERCH10": {"prod_mug"}}[r["id"]]
            for item in r["order"]["items"]:
                if item.get("applied_discount_amount"):
                    assert {item.get("product_id"), item.get("sku_id")} & reach


def test_a_redemption_spends_what_the_scoped_validation_showed() -> None:
    sim = Simulator.from_scenario(copy.deepcopy(SCENARIO))
    items = [MUG, TOTE]
    shown = validate(sim, ["MERCH10", "TOTAL"], items)
    redeemed = sim.apply(REDEEM_STACKED, request={"redeemables": [{"object": "voucher", "id": c} for c in ("MERCH10", "TOTAL")],
                                                  "order": {"items": items}}).wire
    assert redeemed["order"]["total_amount"] == shown["order"]["total_amount"] == 3700 - 120 - 1000


# -- qualifications ----------------------------------------------------------------------------
def _qualifications(sim: Simulator, items: list[dict[str, Any]]) -> dict[str, Any]:
    return sim.apply(QUALIFICATIONS, request=_qualification(items)).wire


def _qualification(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"scenario": "ALL", "options": {"limit": 50}, "order": {"items": items}, "customer": {"id": "cust_gold"}}


def test_qualifications_price_a_code_with_its_scope_and_judge_a_gift_cards_rules() -> None:
    """The customer's wallet: MUG50, MERCH10 and three gift cards published
    to cust_gold. Qualifications ignore `order.amount` rules (the service's
    list), not `order.total_amount` ones (decision: docs/decisions.md)."""
    document = copy.deepcopy(SCENARIO)
    for campaign in document["campaigns"]:
        for voucher in campaign.get("vouchers", []):
            if voucher["code"] in ("MUG50", "MERCH10", "GIFT1", "GIFT-FREE", "GIFT-TOTAL"):
                voucher["holder"] = "cust_gold"
    sim = Simulator.from_scenario(document)
    found = {r["id"]: r for r in _qualifications(sim, [MUG, TOTE])["redeemables"]["data"]}
    assert line_discounts(found["MUG50"]["order"]) == [600, 0]
    assert found["MERCH10"]["applicable_to"]["data"] == [
        {"object": "products_collection", "id": "pc_merch", "effect": "APPLY_TO_EVERY"}]
    assert "GIFT1" in found and "GIFT-FREE" in found and "GIFT-TOTAL" not in found
    small = {r["id"] for r in _qualifications(sim, [TOTE])["redeemables"]["data"]}
    assert "GIFT1" in small  # its order.amount rule is not checked here
    excluded = {e["id"]: e["key"] for e in qualification_exclusions(sim, _qualification([MUG, TOTE]))}
    assert excluded["GIFT-TOTAL"] == "order_rules_violated"  # its credits would leave 0 < 1000


# -- the scenario file ------------------------------------------------------------------------
def _with(change: Any) -> dict[str, Any]:
    document = copy.deepcopy(SCENARIO)
    change(document)
    return document


REFUSALS = [
    ("a PROMOTION campaign with applicable_to",
     lambda d: d["campaigns"][3].update(applicable_to=ONLY_MUG),
     "campaigns[3].applicable_to", "tiers carry their own"),
    ("a gift card with a scope",
     lambda d: d["campaigns"][2]["vouchers"][0].update(applicable_to=ONLY_MUG),
     "campaigns[2].vouchers[0].applicable_to", "no applicable_to"),
    ("a scope written with the response's data list",
     lambda d: d["campaigns"][0]["vouchers"][0].update(applicable_to={"data": []}),
     "campaigns[0].vouchers[0]", "accepts 'included' and 'excluded' only"),
    ("an unknown rule on a code campaign",
     lambda d: d["campaigns"][1].update(validation_rules={"rules": {"1": {"name": "order.nope", "conditions": {}}}}),
     "campaigns[1].validation_rules", "unsupported rule order.nope"),
    ("an effect a scoped code's discount does not allow",
     lambda d: d["campaigns"][0]["vouchers"][0].update(discount={"type": "PERCENT", "percent_off": 5, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"}),
     "campaigns[0].vouchers[0]", ""),
]


@pytest.mark.parametrize(("name", "change", "path", "words"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_the_loader_refuses_what_a_code_cannot_carry(name: str, change: Any, path: str, words: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(_with(change))
    text = str(caught.value)
    assert path in text and words in text, text


def test_a_unit_tier_with_a_total_amount_rule_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        d["campaigns"][3]["tiers"].append({"id": "promo_unit", "name": "Unit", "validation_rules": TOTAL_AT_LEAST_2500,
                                           "discount": {"type": "UNIT", "unit_off": 1, "unit_type": "prod_mug"}})
    with pytest.raises(ScenarioError, match="order.total_amount rules are not supported on UNIT discounts"):
        Simulator.from_scenario(_with(change))


def test_a_codes_terms_are_kept_in_the_state_and_restored(sim: Simulator) -> None:
    again = Simulator.restore(sim.snapshot())
    assert again.state.vouchers == sim.state.vouchers and again.state.campaigns == sim.state.campaigns
    assert every(validate(again, ["MERCH10"], [MUG, TOTE]))["MERCH10"]["order"] == \
        every(validate(sim, ["MERCH10"], [MUG, TOTE]))["MERCH10"]["order"]


# -- the notes' worked example B, written as a scenario: the code's scope as the service shows it ---------
def test_worked_example_b_a_scoped_code_as_the_official_response_shows_it() -> None:
    """'True - 5 Redeemables' (less its pay-with-points card): voucher
    GNcuPKGe is 1000 off each item of its scope (a collection, a SKU, a
    product); its running order and its `applicable_to` are the service's."""
    examples = json.loads((Path(__file__).parents[1] / "data" / "stacked_validation_examples.json").read_text())
    request = examples["requests"]["5 Redeemables"]
    official = [r for r in examples["responses"]["True - 5 Redeemables"]["redeemables"] if r["id"] != "AnsvocvP"]
    scope = {"included": [
        {"object": "products_collection", "id": "pc_a11pr0dUc75"},
        {"object": "sku", "id": "sku_0a3efc90375d1217e2", "source_id": "test_standard_ultra_hd",
         "product_id": "prod_s3C0nDpr0DuC7", "product_source_id": "test_prod_id_2"},
        {"object": "product", "id": "prod_0bc3bd8a4e072c5275"},
    ]}
    document = {
        "version": 1, "clock": {"start": "2026-03-06T10:00:00Z"},
        "catalogue": {
            "products": [
                {"id": "prod_s3C0nDpr0DuC7", "source_id": "test_prod_id_2", "name": "Watchflix", "skus": [
                    {"id": "sku_0a3efc90375d1217e2", "source_id": "test_standard_ultra_hd", "sku": "Premium", "price": 2000}]},
                {"id": "prod_0bc3bd8a4e072c5275", "name": "Bouquet - Romantic Roses", "price": 700},
            ],
            "collections": [{"id": "pc_a11pr0dUc75", "name": "All products",
                             "products": ["prod_s3C0nDpr0DuC7", "prod_0bc3bd8a4e072c5275"]}],
        },
        "campaigns": [
            {"name": "Coupons", "type": "DISCOUNT_COUPONS", "vouchers": [
                {"code": "GNcuPKGe", "discount": {"type": "AMOUNT", "effect": "APPLY_TO_ITEMS", "amount_off": 1000},
                 "applicable_to": scope}]},
            {"name": "Gift cards", "type": "GIFT_VOUCHERS", "gift_amount": 5000, "vouchers": [{"code": "M3X8IwW8"}]},
            {"name": "Promotions", "tiers": [
                {"id": "promo_DE1N30D731Tg2F6NoMwNas2W", "name": "40 %",
                 "discount": {"type": "PERCENT", "effect": "APPLY_TO_ORDER", "percent_off": 40}},
                {"id": "promo_NDHgTg4VnOLYNjk9r7WOmQxf", "name": "30 off",
                 "discount": {"type": "AMOUNT", "effect": "APPLY_TO_ORDER", "amount_off": 30}},
            ]},
        ],
    }
    sim = Simulator.from_scenario(document)
    sent = [r for r in request["redeemables"] if r["id"] != "AnsvocvP"]
    answer = validate(sim, sent, request["order"]["items"])
    assert [r["order"] for r in answer["redeemables"]] == [r["order"] for r in official]
    assert answer["redeemables"][0]["applicable_to"] == official[0]["applicable_to"]
    assert answer["redeemables"][0]["inapplicable_to"] == official[0]["inapplicable_to"]
    assert answer["order"]["total_amount"] == 510
