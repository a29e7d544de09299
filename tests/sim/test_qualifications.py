"""Qualifications (`POST /v1/qualifications`): what a customer can get for a cart.

Table-driven over the demo: each scenario with and without a customer, the
refused requests, the rules qualifications ignore against the ones they
check; walks of every page against the unpaged list; hypothesis for the
invariants (nothing returned that a stacked validation of it alone refuses
for a reason qualifications do not ignore; a tier's order is its order in
`validate_promotions`); determinism.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator, models
from promolab.engine import QUALIFICATION_IGNORED
from promolab.replay.summaries import summarize
from promolab.sim.operations.qualifications import QUALIFICATIONS, qualification_exclusions
from promolab.sim.operations.validation import VALIDATE
from promolab.sim.refusals import InvalidPayload

MUGS_AND_BEANS = {"items": [{"product_id": "prod_mug", "quantity": 2}, {"product_id": "prod_beans_ethiopia", "quantity": 1}]}
GEAR = {"items": [{"product_id": "prod_grinder", "quantity": 1}, {"product_id": "prod_kettle", "quantity": 1}]}
ALICE = {"source_id": "alice"}

_BEANS_AND_MERCH = {"promo_beans_15", "promo_beans_per_bag", "promo_merch_split", "promo_mug_3"}
_ALICES_CODES = {"GIFT-ALICE-50", "REF-ALICE", "WELCOME-ALICE"}
_OPEN_TIERS = _BEANS_AND_MERCH | {"promo_free_shipping", "promo_welcome_10"}

#: (scenario, cart, customer, the ids that qualify)
SCENARIO_CASES: list[tuple[str, dict[str, Any], dict[str, Any] | None, set[str]]] = [
    ("ALL", MUGS_AND_BEANS, ALICE, _OPEN_TIERS | _ALICES_CODES | {"promo_vip_10pct", "promo_vip_mug_5"}),
    ("ALL", MUGS_AND_BEANS, None, _OPEN_TIERS),  # no customer: no wallet, no customer rules
    ("CUSTOMER_WALLET", MUGS_AND_BEANS, ALICE, _ALICES_CODES),
    ("CUSTOMER_WALLET", MUGS_AND_BEANS, {"source_id": "bob"}, {"GIFT-BOB-25"}),
    ("CUSTOMER_WALLET", MUGS_AND_BEANS, None, set()),
    # customer rules only: the gear tiers' product rules are not checked
    ("AUDIENCE_ONLY", MUGS_AND_BEANS, ALICE,
     _OPEN_TIERS | _ALICES_CODES | {"promo_vip_10pct", "promo_vip_mug_5", "promo_brew_bundle", "promo_gear_split",
                                    "promo_kettle_10pct", "promo_kettle_filters"}),
    ("AUDIENCE_ONLY", MUGS_AND_BEANS, None, _OPEN_TIERS | {"promo_brew_bundle", "promo_gear_split", "promo_kettle_10pct", "promo_kettle_filters"}),
    ("PRODUCTS", MUGS_AND_BEANS, ALICE, _BEANS_AND_MERCH),  # the products, not the customer
    ("PRODUCTS", MUGS_AND_BEANS, None, _BEANS_AND_MERCH),
    ("PRODUCTS", GEAR, None, {"promo_brew_bundle", "promo_gear_split", "promo_kettle_10pct", "promo_kettle_filters"}),  # a rule names a cart product
    ("PRODUCTS_DISCOUNT", GEAR, None, {"promo_gear_split", "promo_kettle_10pct"}),  # the discount must reach one
    ("PRODUCTS_DISCOUNT", MUGS_AND_BEANS, ALICE, _BEANS_AND_MERCH),
    ("PRODUCTS_BY_CUSTOMER", MUGS_AND_BEANS, ALICE, _BEANS_AND_MERCH | {"promo_vip_mug_5"}),
    ("PRODUCTS_BY_CUSTOMER", MUGS_AND_BEANS, None, _BEANS_AND_MERCH),
    ("PRODUCTS_DISCOUNT_BY_CUSTOMER", MUGS_AND_BEANS, ALICE, _BEANS_AND_MERCH | {"promo_vip_mug_5"}),
    ("PRODUCTS_DISCOUNT_BY_CUSTOMER", GEAR, ALICE, {"promo_gear_split", "promo_kettle_10pct"}),
    ("PROMOTION_STACKS", MUGS_AND_BEANS, ALICE, set()),  # the demo declares no promotion stacks
]


def _request(scenario: str = "ALL", order: dict[str, Any] | None = None, customer: dict[str, Any] | None = None,
             **options: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"scenario": scenario, "options": {"limit": 50, **options}}
    if order is not None:
        request["order"] = order
    if customer is not None:
        request["customer"] = customer
    return request


def _ids(answer: dict[str, Any]) -> list[str]:
    return [r["id"] for r in answer["redeemables"]["data"]]


@pytest.mark.parametrize(("scenario", "order", "customer", "expected"), SCENARIO_CASES,
                         ids=[f"{c[0]}-{'customer' if c[2] else 'anonymous'}-{len(c[1]['items'])}" for c in SCENARIO_CASES])
def test_each_scenario_returns_what_it_considers_and_qualifies(
    sim: Simulator, scenario: str, order: dict[str, Any], customer: dict[str, Any] | None, expected: set[str]
) -> None:
    before = sim.dump_json()
    answer = sim.apply(QUALIFICATIONS, request=_request(scenario, order, customer)).wire
    assert set(_ids(answer)) == expected
    assert sim.dump_json() == before, "a qualification is a read"
    returned = set(_ids(answer))
    excluded = {e["id"] for e in qualification_exclusions(sim, _request(scenario, order, customer))}
    assert not returned & excluded
    response = models.QualificationResponse.model_validate(answer)  # the wire model reads it
    assert response.redeemables.total == len(expected) and not response.redeemables.has_more
    assert ("tracking_id" in answer) is (customer is not None)


def test_every_tier_is_returned_or_excluded_with_its_reason(sim: Simulator) -> None:
    request = _request("ALL", MUGS_AND_BEANS, ALICE)
    returned = set(_ids(sim.apply(QUALIFICATIONS, request=request).wire))
    exclusions = {e["id"]: (e["key"], e["message"]) for e in qualification_exclusions(sim, request)}
    assert returned | set(exclusions) >= set(sim.state.tiers)
    assert exclusions["promo_flash_5"][0] == "promotion_inactive"
    assert exclusions["promo_winter_20"] == ("promotion_not_active_now", "campaign has expired")
    assert exclusions["promo_brew_bundle"] == ("order_rules_violated", "product.id must match one of prod_grinder")
    anonymous = {e["id"]: e["key"] for e in qualification_exclusions(sim, _request("ALL", MUGS_AND_BEANS))}
    assert anonymous["promo_vip_10pct"] == "customer_rules_violated"  # needs a customer profile


# -- refused requests ---------------------------------------------------------------------------------

BAD_REQUESTS: list[tuple[dict[str, Any], str]] = [
    ({"options": {"limit": 0}}, "options.limit"),
    ({"options": {"limit": 51}}, "options.limit"),
    ({"options": {"limit": 5.0}}, "options.limit"),
    ({"scenario": "EVERYTHING"}, "scenario"),
    ({"options": {"starting_after": "yesterday"}}, "options.starting_after"),
    ({"options": {"starting_after": "position:-1"}}, "options.starting_after"),
    ({"options": {"starting_after": "2026-03-06T10:00:00"}}, "options.starting_after"),  # no offset
    ({"options": {"sorting_rule": "BEST"}}, "options.sorting_rule"),
    ({"options": {"sorting_rule": "BEST_DEAL", "starting_after": "2026-03-06T10:00:00Z"}}, "options.starting_after"),
    ({"options": {"expand": ["everything"]}}, "options.expand"),
    ({"options": {"filters": {"colour": {"conditions": {"$is": "red"}}}}}, "options.filters"),
    ({"session": {"type": "UNLOCK"}}, "session.type"),
    ({"surprise": 1}, "surprise"),
]


@pytest.mark.parametrize(("request_body", "field"), BAD_REQUESTS, ids=[f for _, f in BAD_REQUESTS])
def test_a_bad_request_is_refused_naming_the_field_and_changes_nothing(
    sim: Simulator, request_body: dict[str, Any], field: str
) -> None:
    before = sim.dump_json()
    with pytest.raises(InvalidPayload) as refused:
        sim.apply(QUALIFICATIONS, request=request_body)
    assert f"Property .{field}" in refused.value.details
    assert sim.dump_json() == before
    with sim.client() as client, pytest.raises(Exception, match="invalid_payload"):
        client.qualifications(request_body)


def test_the_string_null_is_no_cursor_and_a_session_lock_is_accepted(sim: Simulator) -> None:
    plain = sim.apply(QUALIFICATIONS, request=_request(customer=ALICE)).wire
    assert sim.apply(QUALIFICATIONS, request=_request(customer=ALICE, starting_after="null")).wire == plain
    locked = sim.apply(QUALIFICATIONS, request={**_request(customer=ALICE), "session": {"type": "LOCK"}}).wire
    assert locked == plain  # the simulator locks no credits


# -- ignored rules against checked ones ---------------------------------------------------------------


def _with_rule(sim: Simulator, tier_id: str, rule: dict[str, Any]) -> None:
    """The tier's rules replaced by `rule` (a fresh simulator: its compiled view rebuilt)."""
    sim.state.tiers[tier_id].validation_rules = {"rules": {"1": rule, "logic": "1"}}
    sim.indexes.derived.clear()


#: (rule on promo_welcome_10, qualifies, the exclusion's key)
RULE_CASES: list[tuple[dict[str, Any], bool, str | None]] = [
    # ignored by qualifications: budgets of the campaign and per customer, the amount before discounts
    ({"name": "campaign.redemptions.count", "conditions": {"$less_than": [0]}}, True, None),
    ({"name": "campaign.orders.amount_discounted", "conditions": {"$less_than": [0]}}, True, None),
    ({"name": "redemption.count.per_customer", "conditions": {"$less_than": [0]}}, True, None),
    ({"name": "campaign.redemptions.customers_count.daily", "conditions": {"$less_than": [0]}}, True, None),
    ({"name": "order.amount", "conditions": {"$more_than": [10_000_000]}}, True, None),
    # checked
    ({"name": "redemption.count.daily", "conditions": {"$less_than": [0]}}, False, "redemption_rules_violated"),
    ({"name": "campaign.orders.amount", "conditions": {"$less_than": [0]}}, False, "redemption_rules_violated"),
    ({"name": "order.items.quantity", "conditions": {"$more_than": [99]}}, False, "order_rules_violated"),
    ({"name": "customer.metadata", "property": "tier", "conditions": {"$is": ["bronze"]}}, False,
     "customer_rules_violated"),
]


@pytest.mark.parametrize(("rule", "qualifies", "key"), RULE_CASES, ids=[c[0]["name"] for c in RULE_CASES])
def test_the_ignored_rules_are_ignored_and_the_others_checked(
    sim: Simulator, rule: dict[str, Any], qualifies: bool, key: str | None
) -> None:
    assert (rule["name"] in QUALIFICATION_IGNORED) is qualifies or rule["name"].startswith(("order.items", "customer"))
    _with_rule(sim, "promo_welcome_10", rule)
    request = _request("ALL", MUGS_AND_BEANS, ALICE)
    assert ("promo_welcome_10" in _ids(sim.apply(QUALIFICATIONS, request=request).wire)) is qualifies
    found = [e["key"] for e in qualification_exclusions(sim, request) if e["id"] == "promo_welcome_10"]
    assert found == ([] if qualifies else [key])


def test_a_code_at_its_redemption_limit_and_an_empty_gift_card_are_excluded(sim: Simulator) -> None:
    code = sim.state.vouchers[sim.indexes.voucher_by_code["WELCOME-ALICE"]]
    code.redemption_quantity, code.redeemed_quantity = 1, 1
    gift = sim.state.vouchers[sim.indexes.voucher_by_code["GIFT-ALICE-50"]]
    assert gift.gift is not None
    gift.gift.balance = 0
    request = _request("CUSTOMER_WALLET", MUGS_AND_BEANS, ALICE)
    assert _ids(sim.apply(QUALIFICATIONS, request=request).wire) == ["REF-ALICE"]
    keys = {e["id"]: e["key"] for e in qualification_exclusions(sim, request)}
    assert keys == {"WELCOME-ALICE": "quantity_exceeded", "GIFT-ALICE-50": "gift_balance_empty"}


def test_a_gift_card_offers_what_the_order_can_use_of_its_balance(sim: Simulator) -> None:
    small = {"items": [{"product_id": "prod_mug", "quantity": 1}]}  # $12.00, the card holds $50.00
    with sim.client() as client:
        answer = client.qualifications(customer=ALICE, order=small, scenario="CUSTOMER_WALLET",
                                       options={"sorting_rule": "BEST_DEAL"})
    best = answer.redeemables.data[0]
    assert (best.id, best.result.gift) == ("GIFT-ALICE-50", models.QualificationGift(balance=5000, credits=1200))
    assert best.order.total_amount == 0


# -- order and paging ---------------------------------------------------------------------------------


def _walk(sim: Simulator, request: dict[str, Any], limit: int) -> Iterator[list[str]]:
    options = dict(request["options"], limit=limit)
    while True:
        page = sim.apply(QUALIFICATIONS, request={**request, "options": options}).wire["redeemables"]
        assert page["total"] == len(page["data"]) <= limit
        yield [r["id"] for r in page["data"]]
        if not page["has_more"]:
            assert "more_starting_after" not in page
            return
        options = dict(options, starting_after=page["more_starting_after"])


@pytest.mark.parametrize("rule", ["DEFAULT", "BEST_DEAL", "LEAST_DEAL"])
@pytest.mark.parametrize("limit", [1, 2, 3])
@pytest.mark.parametrize("spread", [False, True], ids=["same-instant", "distinct-instants"])
def test_walking_every_page_gives_the_unpaged_list(sim: Simulator, rule: str, limit: int, spread: bool) -> None:
    if spread:  # records created at distinct instants: the DEFAULT cursor is then a date-time
        for i, tier in enumerate(sim.state.tiers.values()):
            tier.created_at = tier.created_at.replace(minute=i % 3)  # ties too
    request = _request("ALL", MUGS_AND_BEANS, ALICE, sorting_rule=rule)
    unpaged = _ids(sim.apply(QUALIFICATIONS, request=request).wire)
    pages = list(_walk(sim, request, limit))
    walked = [i for page in pages for i in page]
    assert walked == unpaged and len(set(walked)) == len(walked)
    assert len(pages) == -(-len(unpaged) // limit)


def test_the_sorting_rules_order_by_deal_then_newest_then_id(sim: Simulator) -> None:
    answers = {
        rule: sim.apply(QUALIFICATIONS, request=_request("ALL", MUGS_AND_BEANS, ALICE, sorting_rule=rule)).wire
        for rule in ("DEFAULT", "BEST_DEAL", "LEAST_DEAL")
    }

    def deal(r: dict[str, Any]) -> int:
        gift = r["result"].get("gift")
        return gift["credits"] if gift else r["order"].get("total_applied_discount_amount", 0)

    best = [(deal(r), r["id"]) for r in answers["BEST_DEAL"]["redeemables"]["data"]]
    least = [(deal(r), r["id"]) for r in answers["LEAST_DEAL"]["redeemables"]["data"]]
    assert best == sorted(best, key=lambda p: (-p[0], p[1]))  # one instant: ties by id
    assert least == sorted(least)
    assert _ids(answers["DEFAULT"]) == sorted(_ids(answers["DEFAULT"]))
    assert best[0] == (4200, "GIFT-ALICE-50")  # the whole $42.00 cart, of a $50.00 card


def test_a_date_time_cursor_returns_the_strictly_older(sim: Simulator) -> None:
    sim.state.tiers["promo_welcome_10"].created_at = sim.now.replace(year=2027)
    request = _request("ALL", MUGS_AND_BEANS, ALICE, limit=1)
    first = sim.apply(QUALIFICATIONS, request=request).wire["redeemables"]
    assert [r["id"] for r in first["data"]] == ["promo_welcome_10"]
    assert first["more_starting_after"] == "2027-03-06T10:00:00.000Z"
    rest = sim.apply(QUALIFICATIONS, request=_request("ALL", MUGS_AND_BEANS, ALICE, starting_after="2027-03-06T10:00:00Z")).wire
    assert "promo_welcome_10" not in _ids(rest) and len(_ids(rest)) == 10


# -- invariants ---------------------------------------------------------------------------------------

_PRODUCTS = ["prod_mug", "prod_beans_ethiopia", "prod_espresso_blend", "prod_grinder", "prod_kettle", "prod_tote",
             "prod_filters"]
carts = st.lists(
    st.fixed_dictionaries({"product_id": st.sampled_from(_PRODUCTS), "quantity": st.integers(1, 4)}),
    min_size=0, max_size=4,
).map(lambda items: {"items": items})
customers = st.sampled_from([None, ALICE, {"source_id": "bob"}, {"source_id": "dave"}, {"source_id": "erin"},
                             {"id": "cust_nobody", "metadata": {"tier": "gold"}}])
_DEMO = Simulator.from_scenario("data/scenarios/demo.yaml")
_SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _excused(message: str | None) -> bool:
    """A refusal qualifications do not count: a rule they ignore (the message
    names the rule first)."""
    return any((message or "").startswith(name + " ") for name in QUALIFICATION_IGNORED)


@_SLOW
@given(cart=carts, customer=customers, scenario=st.sampled_from(["ALL", "CUSTOMER_WALLET", "PRODUCTS_BY_CUSTOMER"]))
def test_nothing_returned_is_refused_by_a_stacked_validation_of_it_alone(
    cart: dict[str, Any], customer: dict[str, Any] | None, scenario: str
) -> None:
    sim = _DEMO  # a stacked validation only hands out ids
    answer = sim.apply(QUALIFICATIONS, request=_request(scenario, cart, customer)).wire
    with sim.client() as client:
        for redeemable in answer["redeemables"]["data"]:
            alone = client.validate_stacked(redeemables=[{"object": redeemable["object"], "id": redeemable["id"]}],
                                            order=cart, customer=customer)
            for refused in alone.inapplicable_redeemables:
                details = refused.result.details
                assert details is not None and _excused(details.message), (redeemable["id"], details)


@_SLOW
@given(cart=carts, customer=customers)
def test_a_tiers_order_is_its_order_in_validate_promotions(cart: dict[str, Any], customer: dict[str, Any] | None) -> None:
    request: dict[str, Any] = {"order": cart, **({"customer": customer} if customer else {})}
    validated = {p["id"]: p["order"] for p in _DEMO.apply(VALIDATE, request=request).wire["promotions"]}
    answer = _DEMO.apply(QUALIFICATIONS, request=_request("ALL", cart, customer)).wire
    tiers = {r["id"]: r["order"] for r in answer["redeemables"]["data"] if r["object"] == "promotion_tier"}
    assert set(validated) <= set(tiers)  # qualifications check fewer rules, never more
    for tier_id, order in validated.items():
        assert tiers[tier_id] == order


def test_the_same_calls_give_the_same_bytes() -> None:
    def run() -> list[bytes]:
        sim = Simulator.from_scenario("data/scenarios/demo.yaml")
        out = []
        with sim.client() as client:
            for rule in ("DEFAULT", "BEST_DEAL"):
                request = _request("ALL", MUGS_AND_BEANS, ALICE, limit=3, sorting_rule=rule,
                                   expand=["redeemable", "category", "validation_rules"])
                out.append(json.dumps(sim.apply(QUALIFICATIONS, request=request).wire).encode())
                out.append(client.qualifications(request).model_dump_json().encode())
        return out

    assert run() == run()


# -- through the client, the expansions, the summary --------------------------------------------------


def test_through_the_client_with_every_expansion(sim: Simulator) -> None:
    with sim.client() as client:
        answer = client.qualifications(customer=ALICE, order=GEAR, options={
            "sorting_rule": "BEST_DEAL", "expand": ["redeemable", "category", "validation_rules"], "limit": 2})
    assert isinstance(answer, models.QualificationResponse)
    gift, bundle = answer.redeemables.data  # $50.00 of credits, then $24.00 off a $143.00 cart
    assert (bundle.id, bundle.object, bundle.campaign_id, bundle.name) == (
        "promo_brew_bundle", "promotion_tier", "camp_vip", "Grinder + kettle bundle for $119")
    assert bundle.order.total_amount == 11900 and bundle.result.discount is not None
    assert bundle.validation_rules_assignments is not None and bundle.validation_rules_assignments["total"] == 1
    assert (gift.id, gift.campaign_id, gift.applicable_to.total, gift.order.total_amount) == (
        "GIFT-ALICE-50", "camp_gift", 0, 9300)
    assert gift.validation_rules_assignments == {"object": "list", "data_ref": "data", "data": [], "total": 0}
    assert answer.redeemables.has_more and answer.redeemables.more_starting_after == "position:2"
    assert answer.order is not None and answer.order.amount == 14300 and answer.order.total_discount_amount is None
    assert answer.stacking_rules.applicable_redeemables_limit == 5
    plain = sim.apply(QUALIFICATIONS, request={"customer": ALICE, "order": GEAR}).wire
    assert not {"campaign_id", "categories", "validation_rules_assignments"} & set(plain["redeemables"]["data"][0])


def test_the_replay_summary_names_the_best_deal(sim: Simulator) -> None:
    answer = sim.apply(QUALIFICATIONS, request=_request("ALL", GEAR, ALICE, limit=3)).wire
    text = summarize("qualifications", {"request": {}}, answer)[0]
    assert [r["id"] for r in answer["redeemables"]["data"]] == ["GIFT-ALICE-50", "REF-ALICE", "WELCOME-ALICE"]
    assert text == "3 redeemables; best GIFT-ALICE-50 -$50.00"
    empty = sim.apply(QUALIFICATIONS, request=_request("PROMOTION_STACKS", GEAR, ALICE)).wire
    assert summarize("qualifications", {"request": {}}, empty)[0] == "0 redeemables"
