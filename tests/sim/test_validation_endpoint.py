"""POST /v1/promotions/validation through the simulator (`sim.apply(VALIDATE)`:
its wire JSON, `.wire`, and that read as `models.ValidationResponse`): the
service's example reproduced from a scenario, audienceRulesOnly, filters, tier
order, tracking id, empty results, category expansion, malformed orders, the
simulated clock, customers, and every demo tier on a hand-checked cart.

The HTTP face of the same endpoint (status codes, bracketed filters, the typed
client in-process and served) is in tests/http/test_validation_http.py.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator, models
from promolab.sim.operations.validation import VALIDATE
from promolab.sim.refusals import InvalidPayload, InvalidQueryParams
from wire_asserts import assert_same_json, model_refusal, payload_refusal

EXAMPLES = json.loads(
    (Path(__file__).parents[1] / "engine" / "data" / "promotions_validation_examples.json").read_text()
)
DEMO = Path(__file__).resolve().parents[2] / "data" / "scenarios" / "demo.yaml"
TRACKING_ID = re.compile(r"^track_[A-Za-z0-9_-]{32}$")


def validate(sim: Simulator, request: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return sim.apply(VALIDATE, request=request, **kw).wire


def validate_typed(sim: Simulator, request: dict[str, Any], **kw: Any) -> models.ValidationResponse:
    """The same answer read as the typed client reads it."""
    return models.ValidationResponse.model_validate(validate(sim, request, **kw))


def tier_ids(response: Mapping[str, Any]) -> list[str]:
    return [p["id"] for p in response["promotions"]]


def items(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"sku_id" if ident.startswith("sku_") else "product_id": ident, "quantity": q} for ident, q in pairs]


def order_of(response: Mapping[str, Any], tier_id: str) -> dict[str, Any]:
    for promo in response["promotions"]:
        if promo["id"] == tier_id:
            return promo["order"]  # type: ignore[no-any-return]
    raise AssertionError(f"{tier_id} not in {tier_ids(response)}")


# --- the service's "Campaign Specific" example, through the simulator ------------------------
CAMPAIGN_SPECIFIC = EXAMPLES["Campaign Specific"]

#: A scenario seeding the example's catalogue (products exactly as the response
#: shows them: the T-shirts have no source_id) and its one campaign/tier.
#: The example's category, hierarchy and creation instant included, is a
#: top-level category the campaign names by the service's `category_id`.
EXAMPLE_SCENARIO: dict[str, Any] = {
    "version": 1,
    "seed": 11,
    "clock": {"start": "2022-07-13T08:27:14.926Z"},
    "categories": [{"id": "cat_0b5f66bc97ce5be3c6", "name": "Sixth", "hierarchy": 6,
                    "created_at": "2022-07-13T08:27:14.926Z"}],
    "catalogue": {
        "products": [
            {"id": "prod_0a9f9ab4ab019a42d5", "name": "Red T-Shirt", "price": 2900},
            {"id": "prod_0a9f9aeddb019a42db", "name": "Blue T-Shirt", "price": 3100},
            {"id": "prod_0b7d7dfb05cbe5c616", "source_id": "Books", "name": "Comic Books1", "price": 2100,
             "skus": [{"id": "sku_0b7d7dfb090be5c619", "source_id": "ComicBook_1", "sku": "Comics1", "price": 1700}]},
            {"id": "prod_0b72b0bd64d198e3ae", "source_id": "vase_1", "name": "Vase - Boho Vintage", "price": 1500},
            {"id": "prod_0b7d7c4e814be5c502", "source_id": "prod_1", "name": "Apple iPhone 12", "price": 60000},
        ],
    },
    "campaigns": [
        {
            "id": "camp_nYcAyjFXmEaBU0nB7EQ4hVTr",
            "name": "Campaign specific",
            "type": "PROMOTION",
            "category_id": "cat_0b5f66bc97ce5be3c6",  # the service's one-category field: categories: [id]
            "tiers": [
                {"id": "promo_g83qUzYZpfX0OMAFOVoQuOYG", "name": "1", "hierarchy": 1,
                 "discount": {"type": "AMOUNT", "effect": "APPLY_TO_ORDER", "amount_off": 100}},
            ],
        },
        {   # a second campaign the example's filter leaves out
            "id": "camp_other",
            "name": "Other",
            "type": "PROMOTION",
            "tiers": [{"id": "promo_other", "name": "other", "discount": {"type": "PERCENT", "percent_off": 5}}],
        },
    ],
}


def _expected_campaign_specific(tracking_id: str) -> dict[str, Any]:
    """The example response with the one field a simulator cannot reproduce
    replaced: `tracking_id` (top level and tier), a keyed hash of the
    customer's source_id whose key is the project (the real service's key is
    unknown). Everything else (order amounts, items, products, SKUs, discount,
    campaign and its category of hierarchy 6, ids, key order) must match byte
    for byte.
    """
    expected = copy.deepcopy(CAMPAIGN_SPECIFIC["response"])
    expected["tracking_id"] = tracking_id
    promo = expected["promotions"][0]
    promo["tracking_id"] = tracking_id
    return expected  # type: ignore[no-any-return]


def test_campaign_specific_example_reproduced_from_a_scenario() -> None:
    """72100 -> 72000: AMOUNT 100 off the order, the whole response field by field."""
    sim = Simulator.from_scenario(EXAMPLE_SCENARIO)
    response = validate(
        sim, CAMPAIGN_SPECIFIC["request"],
        filters={"promotion_id": {"conditions": {"$is": "camp_nYcAyjFXmEaBU0nB7EQ4hVTr"}}},
    )
    assert TRACKING_ID.match(response["tracking_id"])
    assert_same_json(response, _expected_campaign_specific(response["tracking_id"]))
    order = response["promotions"][0]["order"]
    assert (order["amount"], order["total_discount_amount"], order["total_amount"]) == (72100, 100, 72000)


def test_campaign_specific_example_parses_into_the_typed_response() -> None:
    sim = Simulator.from_scenario(EXAMPLE_SCENARIO)
    typed = validate_typed(
        sim, CAMPAIGN_SPECIFIC["request"],
        filters={"promotion_id": {"conditions": {"$is": "camp_nYcAyjFXmEaBU0nB7EQ4hVTr"}}},
    )
    (tier,) = typed.promotions
    assert (tier.id, tier.order.amount, tier.order.total_amount, tier.discount_amount) == (
        "promo_g83qUzYZpfX0OMAFOVoQuOYG", 72100, 72000, 100,
    )
    assert [c.name for c in tier.campaign.categories or []] == ["Sixth"]


def test_campaign_specific_without_the_filter_lists_both_campaigns_in_creation_order() -> None:
    sim = Simulator.from_scenario(EXAMPLE_SCENARIO)
    response = validate(sim, CAMPAIGN_SPECIFIC["request"])
    assert tier_ids(response) == ["promo_g83qUzYZpfX0OMAFOVoQuOYG", "promo_other"]
    assert order_of(response, "promo_other")["total_amount"] == 72100 - 3605  # 5% of 72100, half up


# --- audienceRulesOnly ---------------------------------------------------------------------------
MUG = {"items": items(("prod_mug", 1))}  # 1200: fails every order-amount rule of the demo


def test_audience_rules_only_lets_tiers_with_failing_order_rules_through(sim: Simulator) -> None:
    bob = {"source_id": "bob"}  # silver, not VIP
    assert tier_ids(validate(sim, {"customer": bob, "order": MUG})) == ["promo_merch_split", "promo_mug_3"]
    assert tier_ids(validate(sim, {"customer": bob, "order": MUG}, audience_rules_only=True)) == [
        "promo_welcome_10", "promo_free_shipping", "promo_beans_15", "promo_beans_per_bag",
        "promo_gear_split", "promo_merch_split", "promo_mug_3", "promo_brew_bundle",
        "promo_kettle_10pct", "promo_kettle_filters",  # the kettle campaign's rules are order rules
    ]


def test_audience_rules_only_still_excludes_customer_rule_failures(sim: Simulator) -> None:
    bob = validate(sim, {"customer": {"source_id": "bob"}, "order": MUG}, audience_rules_only=True)
    alice = validate(sim, {"customer": {"source_id": "alice"}, "order": MUG}, audience_rules_only=True)
    assert "promo_vip_10pct" not in tier_ids(bob) and "promo_vip_mug_5" not in tier_ids(bob)
    assert {"promo_vip_10pct", "promo_vip_mug_5"} <= set(tier_ids(alice))
    anonymous = validate(sim, {"order": MUG}, audience_rules_only=True)
    assert "promo_vip_10pct" not in tier_ids(anonymous)


def test_audience_rules_only_prices_the_cart_as_sent(sim: Simulator) -> None:
    """A tier whose order rule is skipped still computes its discount on the real cart."""
    response = validate(sim, {"customer": {"source_id": "bob"}, "order": MUG}, audience_rules_only=True)
    welcome = order_of(response, "promo_welcome_10")  # $10 off, but the cart is $12
    assert (welcome["amount"], welcome["discount_amount"], welcome["total_amount"]) == (1200, 1000, 200)
    beans = order_of(response, "promo_beans_15")  # no beans in the cart: valid, nothing off
    assert "total_discount_amount" not in beans and beans["total_amount"] == 1200


def test_audience_rules_only_never_lists_a_campaign_that_is_not_running(sim: Simulator) -> None:
    listed = tier_ids(validate(sim, {"customer": {"source_id": "alice"}, "order": MUG}, audience_rules_only=True))
    # expired (winter), inactive (paused), off-day (weekend), off-hours (app happy hour)
    for tier_id in ("promo_winter_20", "promo_flash_5", "promo_weekend_filters", "promo_app_espresso"):
        assert tier_id not in listed


# --- filters ----------------------------------------------------------------------------------
BIG_CART = {"items": items(("prod_grinder", 1), ("prod_kettle", 1), ("prod_mug", 2), ("prod_beans_ethiopia", 3))}
ALL_VALID_NOW = [  # alice, BIG_CART, Friday 10:00
    "promo_welcome_10", "promo_free_shipping", "promo_beans_15", "promo_beans_per_bag", "promo_gear_split",
    "promo_merch_split", "promo_mug_3", "promo_vip_10pct", "promo_vip_mug_5",
    "promo_kettle_10pct", "promo_kettle_filters",  # the cart has a kettle
]


def _filtered(sim: Simulator, filters: dict[str, Any]) -> list[str]:
    return tier_ids(validate(sim, {"customer": {"source_id": "alice"}, "order": BIG_CART}, filters=filters))


def test_unfiltered_big_cart(sim: Simulator) -> None:
    assert tier_ids(validate(sim, {"customer": {"source_id": "alice"}, "order": BIG_CART})) == ALL_VALID_NOW


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        pytest.param({"promotion_id": {"conditions": {"$is": "camp_vip"}}},
                     ["promo_vip_10pct", "promo_vip_mug_5"], id="promotion_id-is"),
        pytest.param({"campaign_id": {"conditions": {"$in": ["camp_welcome", "camp_vip"]}}},
                     ["promo_welcome_10", "promo_free_shipping", "promo_vip_10pct", "promo_vip_mug_5"],
                     id="campaign_id-in"),
        pytest.param({"promotion_id": {"conditions": {"$is_not": "camp_beans"}}},
                     ["promo_welcome_10", "promo_free_shipping", "promo_vip_10pct", "promo_vip_mug_5", "promo_kettle_10pct", "promo_kettle_filters"],
                     id="promotion_id-is_not"),
        pytest.param({"promotion_id": {"conditions": {"$not_in": ["camp_beans", "camp_vip"]}}},
                     ["promo_welcome_10", "promo_free_shipping", "promo_kettle_10pct", "promo_kettle_filters"], id="promotion_id-not_in"),
        pytest.param({"id": {"conditions": {"$is": "promo_mug_3"}}}, ["promo_mug_3"], id="tier-id-is"),
        pytest.param({"tier_id": {"conditions": {"$in": ["promo_mug_3", "promo_welcome_10", "promo_winter_20"]}}},
                     ["promo_welcome_10", "promo_mug_3"], id="tier-id-in-keeps-response-order"),
        pytest.param({"metadata.has_budget": {"conditions": {"$is": "true"}}}, ["promo_gear_split"],
                     id="metadata-bool-as-text"),
        pytest.param({"metadata.audience_restricted": {"conditions": {"$is": True}}},
                     ["promo_vip_10pct", "promo_vip_mug_5"], id="metadata-bool"),
        pytest.param({"metadata.audience_restricted": {"conditions": {"$is_not": "true"}}},
                     [t for t in ALL_VALID_NOW if t not in ("promo_vip_10pct", "promo_vip_mug_5")],
                     id="metadata-is_not"),
        pytest.param({"metadata.region": {"conditions": {"$is": "EU"}}}, [], id="metadata-absent-key"),
        pytest.param({"metadata.region": {"conditions": {"$is_not": "EU"}}}, ALL_VALID_NOW,
                     id="metadata-absent-key-is_not"),
        pytest.param({"promotion_id": {"conditions": {"$is": "camp_vip"}},
                      "metadata.audience_restricted": {"conditions": {"$is": "true"}},
                      "id": {"conditions": {"$is_not": "promo_vip_mug_5"}}},
                     ["promo_vip_10pct"], id="several-fields-and"),
        pytest.param({"promotion_id": {"$is": "camp_vip"}}, ["promo_vip_10pct", "promo_vip_mug_5"],
                     id="conditions-shorthand"),
    ],
)
def test_filters_json_form(sim: Simulator, filters: dict[str, Any], expected: list[str]) -> None:
    assert _filtered(sim, filters) == expected


@pytest.mark.parametrize(
    "filters",
    [
        {"promotion_id": {"conditions": {"$starts_with": "camp"}}},
        {"colour": {"conditions": {"$is": "red"}}},
        {"promotion_id": {"conditions": {}}},
        {"promotion_id": "camp_vip"},
    ],
    ids=["unsupported-operator", "unknown-field", "no-conditions", "not-an-object"],
)
def test_bad_filters_are_invalid_query_params(sim: Simulator, filters: dict[str, Any]) -> None:
    with pytest.raises(InvalidQueryParams):
        _filtered(sim, filters)


def test_filters_narrow_but_do_not_bypass_rules(sim: Simulator) -> None:
    """A filter naming a tier whose rules fail does not make it valid."""
    bob = tier_ids(validate(sim, {"customer": {"source_id": "bob"}, "order": BIG_CART},
                            filters={"promotion_id": {"conditions": {"$is": "camp_vip"}}}))
    assert bob == []


# --- tier order -------------------------------------------------------------------------------
def test_tier_order_is_campaign_creation_then_hierarchy() -> None:
    """Declared out of hierarchy order, in campaigns whose ids sort the other way."""
    scenario = {
        "version": 1,
        "catalogue": {"products": [{"id": "prod_x", "name": "X", "price": 1000}]},
        "campaigns": [
            {"id": "camp_z", "name": "Z (created first)", "type": "PROMOTION", "tiers": [
                {"id": "promo_z3", "name": "z3", "hierarchy": 3, "discount": {"type": "AMOUNT", "amount_off": 3}},
                {"id": "promo_z1", "name": "z1", "hierarchy": 1, "discount": {"type": "AMOUNT", "amount_off": 1}},
                {"id": "promo_z2", "name": "z2", "hierarchy": 2, "discount": {"type": "AMOUNT", "amount_off": 2}},
            ]},
            {"id": "camp_a", "name": "A (created second)", "type": "PROMOTION", "tiers": [
                {"id": "promo_a2", "name": "a2", "hierarchy": 2, "discount": {"type": "AMOUNT", "amount_off": 2}},
                {"id": "promo_a0", "name": "a0", "hierarchy": 0, "discount": {"type": "AMOUNT", "amount_off": 9}},
            ]},
        ],
    }
    sim = Simulator.from_scenario(scenario)
    response = validate(sim, {"order": {"items": items(("prod_x", 1))}})
    assert tier_ids(response) == ["promo_z1", "promo_z2", "promo_z3", "promo_a0", "promo_a2"]
    assert [p["hierarchy"] for p in response["promotions"]] == [1, 2, 3, 0, 2]


def test_demo_tier_order(sim: Simulator) -> None:
    sim.advance(14 * 3600)  # Saturday 00:00: the weekend campaign runs too
    response = validate(sim, {"customer": {"source_id": "alice"}, "order": BIG_CART}, audience_rules_only=True)
    assert tier_ids(response) == [
        "promo_welcome_10", "promo_free_shipping",
        "promo_beans_15", "promo_beans_per_bag", "promo_gear_split", "promo_merch_split", "promo_mug_3",
        "promo_vip_10pct", "promo_vip_mug_5", "promo_brew_bundle",
        "promo_weekend_filters", "promo_weekend_starter", "promo_kettle_10pct", "promo_kettle_filters",
    ]


# --- tracking id ------------------------------------------------------------------------------
def test_tracking_id_is_stable_per_customer_and_differs_between_customers(sim: Simulator) -> None:
    def track(customer: dict[str, Any] | None) -> str:
        request: dict[str, Any] = {"order": MUG}
        if customer is not None:
            request["customer"] = customer
        response = validate(sim, request)
        assert all(p["tracking_id"] == response["tracking_id"] for p in response["promotions"])
        return response["tracking_id"]  # type: ignore[no-any-return]

    alice = track({"source_id": "alice"})
    assert TRACKING_ID.match(alice)
    assert track({"source_id": "alice"}) == alice
    assert track({"id": "cust_alice"}) == alice  # the stored customer's source_id is hashed
    assert track({"source_id": "alice", "metadata": {"x": 1}}) == alice
    others = {track({"source_id": s}) for s in ("bob", "carol", "stranger-1", "stranger-2")}
    assert len(others) == 4 and alice not in others
    assert "alice" not in alice  # not reversible to the source_id
    # stable across simulators of the same project, whatever else happened
    again = Simulator.from_scenario(DEMO)
    assert validate(again, {"customer": {"source_id": "alice"}, "order": MUG})["tracking_id"] == alice


def test_tracking_id_of_an_empty_result_too(sim: Simulator) -> None:
    response = validate(sim, {"customer": {"source_id": "alice"}, "order": {"items": []}})
    assert TRACKING_ID.match(response["tracking_id"])


# --- nothing applies ------------------------------------------------------------------------
def test_nothing_applies_is_valid_false_with_no_promotions(sim: Simulator) -> None:
    response = validate(sim, {"customer": {"source_id": "bob"}, "order": {"items": items(("prod_filters", 1))}})
    assert response["valid"] is False
    assert response["promotions"] == []
    assert list(response) == ["valid", "tracking_id", "promotions"]
    typed = validate_typed(sim, {"customer": {"source_id": "bob"}, "order": {"items": items(("prod_filters", 1))}})
    assert (typed.valid, typed.promotions) == (False, [])


def test_an_empty_body_is_a_valid_request(sim: Simulator) -> None:
    response = validate(sim, {})
    assert response["valid"] is False and response["promotions"] == []


def test_a_filter_matching_nothing_is_valid_false(sim: Simulator) -> None:
    response = validate(sim, {"order": BIG_CART}, filters={"promotion_id": {"conditions": {"$is": "camp_none"}}})
    assert (response["valid"], response["promotions"]) == (False, [])


# --- options.expand -----------------------------------------------------------------------------
def test_expand_category_adds_the_campaign_categories() -> None:
    scenario = copy.deepcopy(EXAMPLE_SCENARIO)
    scenario["categories"].append({"id": "cat_seasonal", "name": "Seasonal", "hierarchy": 0})
    scenario["categories"].append({"id": "cat_spring", "name": "Spring"})  # the default hierarchy, 1
    scenario["campaigns"][1]["categories"] = ["cat_seasonal", "cat_spring"]
    sim = Simulator.from_scenario(scenario)
    request = {"order": CAMPAIGN_SPECIFIC["request"]["order"]}
    plain = validate(sim, request)
    assert all("categories" not in p["campaign"] for p in plain["promotions"])
    expanded = validate(sim, {**request, "options": {"expand": ["category"]}})
    first, second = (p["campaign"] for p in expanded["promotions"])
    assert list(first) == ["id", "start_date", "expiration_date", "active", "categories", "object"]
    assert first["categories"] == [{"id": "cat_0b5f66bc97ce5be3c6", "name": "Sixth", "hierarchy": 6,
                                    "created_at": "2022-07-13T08:27:14.926Z", "object": "category"}]
    assert [(c["id"], c["hierarchy"]) for c in second["categories"]] == [("cat_seasonal", 0), ("cat_spring", 1)]
    # the typed response accepts them (a category needs id, name, hierarchy, created_at)
    typed = validate_typed(sim, {**request, "options": {"expand": ["category"]}})
    assert [t.campaign.categories[0].name for t in typed.promotions if t.campaign.categories] == ["Sixth", "Seasonal"]


def test_expand_category_on_a_campaign_without_category_adds_nothing(sim: Simulator) -> None:
    response = validate(sim, {"order": BIG_CART, "options": {"expand": ["category"]}})
    assert response["promotions"]
    for promotion in response["promotions"]:
        if promotion["campaign"]["id"] == "camp_brewers_club":  # the demo's one categorised promotion campaign
            assert [c["id"] for c in promotion["campaign"]["categories"]] == ["cat_shop_offers"]
        else:
            assert "categories" not in promotion["campaign"]


# --- malformed orders -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("order", "field"),
    [
        pytest.param({"items": [{"product_id": "prod_mug", "quantity": -1}]}, ".order.items[0].quantity",
                     id="negative-quantity"),
        pytest.param({"items": [{"product_id": "prod_mug", "quantity": 1},
                                {"product_id": "prod_unknown", "quantity": 1}]}, ".order.items[1].price",
                     id="unknown-product-no-price"),
        pytest.param({"items": [{"sku_id": "sku_unknown", "quantity": 1}]}, ".order.items[0].price",
                     id="unknown-sku-no-price"),
        pytest.param({"amount": 1.5, "items": []}, ".order.amount", id="non-integer-order-amount"),
        pytest.param({"items": [{"product_id": "prod_mug", "quantity": 1, "amount": 1200.0}]},
                     ".order.items[0].amount", id="float-item-amount"),
        pytest.param({"items": [{"product_id": "prod_mug", "quantity": 1, "price": 12.5}]},
                     ".order.items[0].price", id="float-price"),
        pytest.param({"items": [{"product_id": "prod_mug", "quantity": 1.0}]}, ".order.items[0].quantity",
                     id="float-quantity"),
        pytest.param({"items": {"product_id": "prod_mug", "quantity": 1}}, ".order.items", id="items-an-object"),
        pytest.param({"items": "prod_mug"}, ".order.items", id="items-a-string"),
        pytest.param({"items": [{"quantity": 1}]}, ".order.items[0]", id="item-without-identifier"),
        pytest.param({"items": [{"product_id": "prod_mug", "quantity": 1, "colour": "red"}]},
                     ".order.items[0].colour", id="unknown-item-field"),
    ],
)
def test_malformed_order_is_invalid_payload_naming_the_field(sim: Simulator, order: dict[str, Any], field: str) -> None:
    before = sim.snapshot()
    with pytest.raises(InvalidPayload) as caught:
        validate(sim, {"customer": {"source_id": "newcomer"}, "order": order})
    error = caught.value
    assert (error.status, error.key) == (400, "invalid_payload")
    assert f"Property {field}" in str(error), str(error)
    assert sim.snapshot() == before  # no state change (the unknown customer was not created either)


def test_a_valid_request_changes_no_state_either(sim: Simulator) -> None:
    before = sim.snapshot()
    validate(sim, {"customer": {"source_id": "newcomer"}, "order": BIG_CART})
    assert sim.snapshot() == before


# --- the simulated clock ---------------------------------------------------------------------
FILTERS = {"items": items(("prod_filters", 2))}


def test_day_of_week_campaign_switches_with_the_clock(sim: Simulator) -> None:
    def weekend_listed() -> bool:
        return "promo_weekend_filters" in tier_ids(validate(sim, {"order": FILTERS}))

    assert sim.now.isoformat() == "2026-03-06T10:00:00+00:00"  # Friday
    assert not weekend_listed()
    sim.advance(13 * 3600 + 59 * 60 + 59)  # Friday 23:59:59
    assert not weekend_listed()
    sim.advance(1)  # Saturday 00:00
    assert weekend_listed()
    sim.advance(24 * 3600)  # Sunday
    assert weekend_listed()
    sim.advance(24 * 3600)  # Monday
    assert not weekend_listed()


def test_timeframe_campaign_switches_with_the_clock(sim: Simulator) -> None:
    """Two hours a day from 16:00 (the campaign's start time of day): [16:00, 18:00)."""
    request = {"order": {"items": items(("prod_espresso_blend", 2))}, "metadata": {"channel": "app"}}

    def happy_hour() -> bool:
        return "promo_app_espresso" in tier_ids(validate(sim, request))

    assert not happy_hour()  # Friday 10:00
    sim.advance(6 * 3600 - 1)
    assert not happy_hour()  # 15:59:59
    sim.advance(1)
    assert happy_hour()  # 16:00:00
    sim.advance(2 * 3600 - 1)
    assert happy_hour()  # 17:59:59
    sim.advance(1)
    assert not happy_hour()  # 18:00:00
    sim.advance(22 * 3600)
    assert happy_hour()  # Saturday 16:00


def test_expired_and_inactive_campaigns_are_never_listed(sim: Simulator) -> None:
    request = {"customer": {"source_id": "alice"}, "order": BIG_CART}
    for step in (0, 3600, 86400, 86400 * 30):
        sim.advance(step)
        for audience_only in (False, True):
            listed = tier_ids(validate(sim, request, audience_rules_only=audience_only))
            assert "promo_winter_20" not in listed  # expired 2026-02-28
            assert "promo_flash_5" not in listed  # campaign active: false
        # a filter naming them does not bring them back
        assert _filtered(sim, {"id": {"conditions": {"$in": ["promo_winter_20", "promo_flash_5"]}}}) == []


# --- customers -----------------------------------------------------------------------------
def test_customer_by_id_or_source_id_is_the_stored_customer(sim: Simulator) -> None:
    by_source = validate(sim, {"customer": {"source_id": "alice"}, "order": BIG_CART})
    by_id = validate(sim, {"customer": {"id": "cust_alice"}, "order": BIG_CART})
    assert by_source == by_id
    assert "promo_vip_10pct" in tier_ids(by_id)  # her segment and metadata count
    assert order_of(by_id, "promo_vip_10pct")["customer_id"] == "cust_alice"


def test_an_unknown_customer_is_evaluated_as_sent_and_not_created(sim: Simulator) -> None:
    before = len(sim.state.customers)
    plain = validate(sim, {"customer": {"source_id": "walk-in"}, "order": BIG_CART})
    assert "promo_vip_10pct" not in tier_ids(plain)
    assert order_of(plain, "promo_welcome_10")["customer_id"] is None
    gold = validate(sim, {"customer": {"source_id": "walk-in", "metadata": {"tier": "gold"}}, "order": BIG_CART})
    assert "promo_vip_10pct" in tier_ids(gold)  # customer.metadata rule sees the request's metadata
    assert "promo_vip_mug_5" not in tier_ids(gold)  # segments are stored facts only
    unknown_id = validate(sim, {"customer": {"id": "cust_nobody"}, "order": BIG_CART})
    assert order_of(unknown_id, "promo_welcome_10")["customer_id"] == "cust_nobody"
    assert len(sim.state.customers) == before


def test_request_metadata_overlays_a_stored_customer(sim: Simulator) -> None:
    bob_gold = validate(sim, {"customer": {"source_id": "bob", "metadata": {"tier": "gold"}}, "order": BIG_CART})
    assert "promo_vip_10pct" in tier_ids(bob_gold)
    assert sim.state.customers["cust_bob"].metadata["tier"] == "silver"


def test_no_customer_at_all(sim: Simulator) -> None:
    response = validate(sim, {"order": BIG_CART})
    assert "promo_vip_10pct" not in tier_ids(response)
    assert order_of(response, "promo_welcome_10")["customer_id"] is None


# --- every demo tier on a hand-checked cart -----------------------------------------------------
#: (tier, customer source_id, clock advance in s, order, redemption metadata,
#:  expected order fields, expected per-line (discount, subtotal) or None for "no discount")
DEMO_CASES: list[tuple[str, str | None, int, dict[str, Any], dict[str, Any] | None, dict[str, int], list[Any]]] = [
    # AMOUNT 1000 APPLY_TO_ORDER, order over $50: 8900 - 1000
    ("promo_welcome_10", None, 0, {"items": items(("prod_grinder", 1))}, None,
     {"amount": 8900, "discount_amount": 1000, "total_discount_amount": 1000, "total_amount": 7900}, [None]),
    # UNIT free shipping: a price-less line, no amounts change, no tier discount_amount
    ("promo_free_shipping", None, 0, {"items": items(("prod_grinder", 1))}, None,
     {"amount": 8900, "total_amount": 8900}, [None, None]),
    # PERCENT 15 on beans, 1500 a line, 3000 an order: 810 + min(1650,1500) + min(1350, 3000-2310)
    ("promo_beans_15", None, 0,
     {"items": items(("prod_beans_ethiopia", 3), ("sku_colombia_1000", 2), ("prod_espresso_blend", 6), ("prod_mug", 1))},
     None, {"amount": 26600, "items_discount_amount": 3000, "total_discount_amount": 3000, "total_amount": 23600},
     [(810, 4590), (1500, 9500), (690, 8310), None]),
    # AMOUNT 200 per bag, 6 bags at most: 4 Ethiopia + 2 of the 4 Colombia
    ("promo_beans_per_bag", None, 0,
     {"items": items(("prod_beans_ethiopia", 4), ("prod_beans_colombia", 4), ("prod_mug", 1))}, None,
     {"amount": 14800, "items_discount_amount": 1200, "total_discount_amount": 1200, "total_amount": 13600},
     [(800, 6400), (400, 6000), None]),
    # AMOUNT 1000 split by amount over 8900/5400/8900: 383.6->384, 232.8->233, 384; the
    # -1 remainder goes to the largest line, first on ties
    ("promo_gear_split", None, 0,
     {"items": items(("prod_grinder", 1), ("prod_kettle", 1), ("prod_grinder", 1))}, None,
     {"amount": 23200, "items_discount_amount": 1000, "total_discount_amount": 1000, "total_amount": 22200},
     [(383, 8517), (233, 5167), (384, 8516)]),
    # AMOUNT 500 split by quantity 2:1: 333.3 -> 333, 166.7 -> 167
    ("promo_merch_split", None, 0, {"items": items(("prod_mug", 2), ("prod_tote", 1))}, None,
     {"amount": 4900, "items_discount_amount": 500, "total_discount_amount": 500, "total_amount": 4400},
     [(333, 2067), (167, 2333)]),
    # AMOUNT 300 a mug line (2 mugs counted at most): 300 per line
    ("promo_mug_3", None, 0, {"items": items(("prod_mug", 5), ("prod_mug", 1))}, None,
     {"amount": 7200, "items_discount_amount": 600, "total_discount_amount": 600, "total_amount": 6600},
     [(300, 5700), (300, 900)]),
    # PERCENT 10 of the order, at most $50: 6230 capped at 5000
    ("promo_vip_10pct", "alice", 0, {"items": items(("prod_grinder", 7))}, None,
     {"amount": 62300, "discount_amount": 5000, "total_discount_amount": 5000, "total_amount": 57300}, [None]),
    # FIXED mugs at $5 for VIPs: (1200 - 500) x 3
    ("promo_vip_mug_5", "dave", 0, {"items": items(("prod_mug", 3), ("prod_tote", 1))}, None,
     {"amount": 6100, "items_discount_amount": 2100, "total_discount_amount": 2100, "total_amount": 4000},
     [(2100, 1500), None]),
    # FIXED order total $119 for grinder + kettle: 14300 -> 11900
    ("promo_brew_bundle", None, 0, {"items": items(("prod_grinder", 1), ("prod_kettle", 1))}, None,
     {"amount": 14300, "discount_amount": 2400, "total_discount_amount": 2400, "total_amount": 11900},
     [None, None]),
    # UNIT ADD_NEW_ITEMS 1 filter pack, Saturday: 2 -> 3 packs, one free
    ("promo_weekend_filters", None, 14 * 3600, {"items": items(("prod_filters", 2))}, None,
     {"amount": 1800, "initial_amount": 1200, "items_discount_amount": 600, "total_discount_amount": 600,
      "total_amount": 1200}, [(600, 1200)]),
    # UNIT ADD_MANY_ITEMS (missing mug + 2 new filter packs) for grinder buyers, Sunday
    ("promo_weekend_starter", None, 38 * 3600, {"items": items(("prod_grinder", 1))}, None,
     {"amount": 11300, "initial_amount": 8900, "items_discount_amount": 2400, "total_discount_amount": 2400,
      "total_amount": 8900}, [None, (1200, 0), (1200, 0)]),
    # FIXED espresso at $12 in the app, 16:00-18:00: (1500 - 1200) x 2
    ("promo_app_espresso", None, 6 * 3600 + 1800, {"items": items(("prod_espresso_blend", 2))}, {"channel": "app"},
     {"amount": 3000, "items_discount_amount": 600, "total_discount_amount": 600, "total_amount": 2400},
     [(600, 2400)]),
    # PERCENT 10 on the kettle's line only (its scope): 540 of 5400
    ("promo_kettle_10pct", None, 0, {"items": items(("prod_kettle", 1), ("prod_mug", 1))}, None,
     {"amount": 6600, "items_discount_amount": 540, "total_discount_amount": 540, "total_amount": 6060},
     [(540, 4860), None]),
    # UNIT ADD_NEW_ITEMS 2 filter packs with a kettle: a new line, both free
    ("promo_kettle_filters", None, 0, {"items": items(("prod_kettle", 1))}, None,
     {"amount": 6600, "initial_amount": 5400, "items_discount_amount": 1200, "total_discount_amount": 1200,
      "total_amount": 5400}, [None, (1200, 0)]),
]


@pytest.mark.parametrize(
    ("tier_id", "source_id", "advance", "order", "metadata", "expected", "lines"), DEMO_CASES,
    ids=[c[0] for c in DEMO_CASES],
)
def test_demo_tier_on_a_hand_checked_cart(
    sim: Simulator, tier_id: str, source_id: str | None, advance: int, order: dict[str, Any],
    metadata: dict[str, Any] | None, expected: dict[str, int], lines: list[Any],
) -> None:
    sim.advance(advance)
    request: dict[str, Any] = {"order": order}
    if source_id is not None:
        request["customer"] = {"source_id": source_id}
    if metadata is not None:
        request["metadata"] = metadata
    response = validate(sim, request, filters={"id": {"conditions": {"$is": tier_id}}})
    assert tier_ids(response) == [tier_id]
    (promo,) = response["promotions"]
    got = promo["order"]
    amounts = {k: v for k, v in got.items() if k.endswith("amount")}
    applied = {k: v for k, v in amounts.items() if "applied" in k}
    assert {k: v for k, v in amounts.items() if "applied" not in k} == expected
    assert applied == {k.replace("discount_amount", "applied_discount_amount"): v
                       for k, v in expected.items() if "discount_amount" in k}
    assert len(got["items"]) == len(lines)
    for item, line in zip(got["items"], lines):
        if line is None:
            assert "discount_amount" not in item
        else:
            assert (item["discount_amount"], item["subtotal_amount"]) == line
    total = expected.get("total_discount_amount")
    if total is None:  # the free-shipping line has no price: no monetary discount
        assert "discount_amount" not in promo and "applied_discount_amount" not in promo
    else:
        assert promo["discount_amount"] == promo["applied_discount_amount"] == total


def test_demo_cases_cover_every_active_demo_tier(sim: Simulator) -> None:
    running = {t.id for t in sim.state.tiers.values()} - {"promo_winter_20", "promo_flash_5"}
    assert {c[0] for c in DEMO_CASES} == running


def test_demo_covers_every_discount_type_and_effect(sim: Simulator) -> None:
    seen = set()
    for tier in sim.state.tiers.values():
        d = tier.discount
        seen.add((d["type"], d.get("effect")))
        for unit in d.get("units", ()):
            seen.add(("UNIT", unit["effect"]))
    assert seen >= {
        ("AMOUNT", "APPLY_TO_ORDER"), ("AMOUNT", "APPLY_TO_ITEMS"), ("AMOUNT", "APPLY_TO_ITEMS_PROPORTIONALLY"),
        ("AMOUNT", "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY"), ("AMOUNT", "APPLY_TO_ITEMS_BY_QUANTITY"),
        ("PERCENT", "APPLY_TO_ORDER"), ("PERCENT", "APPLY_TO_ITEMS"), ("FIXED", "APPLY_TO_ORDER"),
        ("FIXED", "APPLY_TO_ITEMS"), ("UNIT", "ADD_MISSING_ITEMS"), ("UNIT", "ADD_NEW_ITEMS"),
        ("UNIT", "ADD_MANY_ITEMS"),
    }


# --- invariants over random demo carts ---------------------------------------------------------
DEMO_PRODUCTS = ["prod_beans_ethiopia", "prod_beans_colombia", "prod_espresso_blend", "prod_mug", "prod_tote",
                 "prod_grinder", "prod_kettle", "prod_filters", "prod_5h1pp1ng"]
DEMO_SKUS = ["sku_ethiopia_250", "sku_ethiopia_1000", "sku_colombia_250", "sku_colombia_1000"]


@st.composite
def demo_items(draw: st.DrawFn) -> dict[str, Any]:
    ident = draw(st.sampled_from(DEMO_PRODUCTS + DEMO_SKUS))
    item: dict[str, Any] = {"sku_id" if ident.startswith("sku_") else "product_id": ident,
                            "quantity": draw(st.integers(1, 9))}
    if draw(st.integers(0, 4)) == 0:
        item["price"] = draw(st.integers(0, 20_000))
    return item


@st.composite
def demo_requests(draw: st.DrawFn) -> dict[str, Any]:
    order: dict[str, Any] = {"items": draw(st.lists(demo_items(), max_size=6))}
    if draw(st.integers(0, 5)) == 0:
        order["amount"] = draw(st.integers(0, 60_000))
    request: dict[str, Any] = {"order": order}
    customer = draw(st.sampled_from([None, "alice", "bob", "dave", "walk-in"]))
    if customer is not None:
        request["customer"] = {"source_id": customer}
    if draw(st.booleans()):
        request["metadata"] = {"channel": "app"}
    return request


@pytest.fixture(scope="module")
def demo_sims() -> list[Simulator]:
    """The demo at three instants: Friday 10:00, Friday 16:30 (happy hour), Saturday noon."""
    sims = []
    for advance in (0, 6 * 3600 + 1800, 26 * 3600):
        sim = Simulator.from_scenario(DEMO)
        sim.advance(advance)
        sims.append(sim)
    return sims


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(request=demo_requests(), which=st.integers(0, 2), audience_only=st.booleans())
def test_random_demo_carts_keep_the_amount_invariants(
    demo_sims: list[Simulator], request: dict[str, Any], which: int, audience_only: bool
) -> None:
    sim = demo_sims[which]
    response = validate_typed(sim, request, audience_rules_only=audience_only)
    assert response.valid == bool(response.promotions)
    for tier in response.promotions:
        o = tier.order
        assert o.amount is not None and o.total_amount is not None
        total_discount = o.total_discount_amount or 0
        items_discount = o.items_discount_amount or 0
        assert o.total_amount == o.amount - total_discount
        assert sum(item.discount_amount or 0 for item in o.items) == items_discount
        assert total_discount == (o.discount_amount or 0) + items_discount
        assert (tier.discount_amount or 0) == total_discount or tier.discount_amount is None
        money = [o.amount, o.initial_amount, o.discount_amount, o.items_discount_amount,
                 o.total_discount_amount, o.total_amount]
        for item in o.items:
            money += [item.amount, item.discount_amount, item.subtotal_amount, item.price, item.quantity]
            if item.amount is not None and item.discount_amount is not None:
                assert item.discount_amount <= item.amount
        assert all(v >= 0 for v in money if v is not None)
    again = validate_typed(sim, request, audience_rules_only=audience_only)
    assert again == response


# --- the request body: the model alone decides ----------------------------------------------------
_ODD = st.one_of(
    st.sampled_from(["", "x", "1", "product", "sku", 0, 1, -1, 2**63 - 1, 2**63, True, False, 1.0, 0.5, None]),
    # containers are built anew for every draw: the mutations below write into them
    st.sampled_from([list, dict, lambda: ["category"], lambda: [1], lambda: {"k": 1}, lambda: {1: "v"}]).map(
        lambda make: make()
    ),
)
_INT64 = st.integers(0, 2**63 - 1)


@st.composite
def _valid_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """Bodies the model accepts."""
    ident = st.text(alphabet="abc_", min_size=1, max_size=4)
    meta = st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(st.integers(), st.text(max_size=2), st.none()), max_size=2)

    def item() -> dict[str, Any]:
        out: dict[str, Any] = {"quantity": draw(st.integers(1, 2**63 - 1))}
        how = draw(st.sampled_from(["product", "sku", "source"]))
        if how == "source":
            out["source_id"] = draw(ident)
            out["related_object"] = draw(st.sampled_from(["product", "sku"]))
        else:
            out[f"{how}_id"] = draw(ident)
        for key in ("price", "amount"):
            if draw(st.booleans()):
                out[key] = draw(_INT64)
        if draw(st.booleans()):
            out["metadata"] = draw(meta)
        return out

    body: dict[str, Any] = {}
    if draw(st.booleans()):
        body["customer"] = {k: draw(ident) for k in draw(st.sets(st.sampled_from(["id", "source_id", "name", "email"])))}
    if draw(st.booleans()):
        order: dict[str, Any] = {"items": [item() for _ in range(draw(st.integers(0, 3)))]}
        if draw(st.booleans()):
            order["amount"] = draw(_INT64)
        if draw(st.booleans()):
            order["metadata"] = draw(meta)
        body["order"] = order
    if draw(st.booleans()):
        body["metadata"] = draw(meta)
    if draw(st.booleans()):
        body["options"] = {"expand": draw(st.lists(st.sampled_from(["category", "x"]), max_size=2))}
    return body


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def _nearly_valid_bodies(draw: st.DrawFn) -> Any:
    """A valid body with one or two values replaced, removed or added."""
    body = draw(_valid_bodies())
    for _ in range(draw(st.integers(0, 2))):
        paths = _paths(body)
        if not paths:
            body = draw(_ODD)
            break
        path = draw(st.sampled_from(paths))
        parent: Any = body
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(_ODD)
        elif action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["unknown", "product", "sku", "address", "override"]))] = draw(_ODD)
    return body


def _model_refusal(request: Any) -> str | None:
    return model_refusal(models.ValidationRequest, request)


def _operation_refusal(sim: Simulator, request: Any) -> str | None:
    return payload_refusal(lambda: sim.apply(VALIDATE, request=request).wire)


def _engine_wording(refusal: str) -> bool:
    """Whether a 400 is the pricing engine's (an item without a price, an
    amount out of range), which the model's messages never say."""
    engine = ("is not in the catalogue", ": must be", ": must not be", ", the largest amount", ", the largest order amount")
    return any(words in refusal for words in engine)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_nearly_valid_bodies())
def test_the_operation_refuses_a_body_exactly_when_the_model_does(sim: Simulator, request: Any) -> None:
    """Differential, against the public model path: a body the model refuses
    gets the model's first error as its 400; a body it accepts is priced (the
    engine may still refuse an item it cannot price, or an amount it computes
    past 64 bits, in its own wording)."""
    want = _model_refusal(request)
    got = _operation_refusal(sim, request)
    if want is not None:
        assert got == want
    else:
        assert got is None or _engine_wording(got), got


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_valid_bodies())
def test_bodies_the_model_accepts_are_answered(sim: Simulator, request: dict[str, Any]) -> None:
    models.ValidationRequest.model_validate(copy.deepcopy(request))
    got = _operation_refusal(sim, request)
    assert got is None or _engine_wording(got), got


def _body_with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "customer": {"id": "cust_1", "source_id": "c1", "name": "N", "metadata": {"k": 1}, "address": {"city": "X"}},
        "order": {"id": "o1", "amount": 100, "metadata": {"k": 1},
                  "items": [{"product_id": "p", "sku_id": "s", "source_id": "x", "related_object": "product",
                             "quantity": 1, "price": 1, "amount": 1, "metadata": {"k": 1}}]},
        "metadata": {"k": 1},
        "options": {"expand": ["category"]},
    }
    parent: Any = body
    for step in path[:-1]:
        parent = parent[step]
    if value is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return body


class _Delete:
    """The edit that removes a field; named in test ids (an ``object()``'s repr
    holds its address, which differs between pytest-xdist workers)."""

    def __repr__(self) -> str:
        return "<deleted>"


_DELETE = _Delete()
_ITEM0 = ("order", "items", 0)
_REFUSED_EDITS = [
    (("customer", "id"), ""), (("customer", "source_id"), ""), (("customer", "source_id"), 1),
    (("customer", "name"), 1), (("customer", "metadata"), {1: "v"}), (("customer", "metadata"), []),
    (("customer", "address"), "x"), (("customer", "colour"), "red"), (("customer",), "alice"),
    (("order", "id"), 1), (("order", "amount"), -1), (("order", "amount"), 2**63), (("order", "amount"), 1.0),
    (("order", "amount"), True), (("order", "metadata"), "x"), (("order", "items"), {}), (("order", "extra"), 1),
    (("order",), []),
    ((*_ITEM0, "quantity"), 0), ((*_ITEM0, "quantity"), -1), ((*_ITEM0, "quantity"), 2**63),
    ((*_ITEM0, "quantity"), True), ((*_ITEM0, "quantity"), 1.0), ((*_ITEM0, "quantity"), "x"),
    ((*_ITEM0, "quantity"), "0"), ((*_ITEM0, "quantity"), " 1"), ((*_ITEM0, "quantity"), "\u0663"),
    ((*_ITEM0, "quantity"), "1.0"), ((*_ITEM0, "quantity"), str(2**63)), ((*_ITEM0, "quantity"), "12"),
    ((*_ITEM0, "quantity"), _DELETE), ((*_ITEM0, "quantity"), None),
    ((*_ITEM0, "price"), -1), ((*_ITEM0, "price"), 1.5), ((*_ITEM0, "price"), True), ((*_ITEM0, "price"), 2**63),
    ((*_ITEM0, "amount"), "1"), ((*_ITEM0, "product_id"), ""), ((*_ITEM0, "sku_id"), 3),
    ((*_ITEM0, "related_object"), "SKU"), ((*_ITEM0, "related_object"), 1), ((*_ITEM0, "metadata"), {2: 1}),
    ((*_ITEM0, "product"), "x"), ((*_ITEM0, "colour"), "red"), (_ITEM0, "prod_mug"),
    (("metadata",), []), (("metadata",), {1: 1}), (("options", "expand"), "category"),
    (("options", "expand"), [1]), (("options", "other"), 1), (("options",), "x"), (("unknown",), 1),
]


def _path_text(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


@pytest.mark.parametrize(("path", "value"), _REFUSED_EDITS, ids=[f"{'.'.join(map(str, p))}={v!r}" for p, v in _REFUSED_EDITS])
def test_one_broken_constraint_is_a_400_naming_its_field(sim: Simulator, path: tuple[Any, ...], value: Any) -> None:
    """One edit of a valid body per constraint of the model: the operation
    answers the unedited body; it refuses the edited one when the model does,
    with the model's 400, which names the edited field (a removed required
    field: its parent and its name), and answers it otherwise."""
    assert _operation_refusal(sim, _body_with(("metadata",), {"k": 1})) is None
    body = _body_with(path, value)
    want = _model_refusal(body)
    got = _operation_refusal(sim, body)
    assert got == want
    if want is None:
        assert path[-1] == "quantity" and value == "12"  # the one edit the model takes
    elif value is _DELETE:
        assert got == f"Property {_path_text(path[:-1])} should have required property '{path[-1]}'"
    else:
        assert got is not None and got.startswith(f"Property {_path_text(path)}"), got


def test_an_item_named_by_source_id_needs_related_object(sim: Simulator) -> None:
    item = {"source_id": "x", "quantity": 1}
    assert _operation_refusal(sim, {"order": {"items": [item]}}) == (
        "Property .order.items[0].related_object: related_object (product or sku) is required with source_id"
    )
    assert _operation_refusal(sim, {"order": {"items": [{**item, "related_object": "sku", "price": 100}]}}) is None


def test_a_string_of_digits_is_a_quantity(sim: Simulator) -> None:
    assert _operation_refusal(sim, {"order": {"items": [{"product_id": "prod_mug", "quantity": "1"}]}}) is None
    assert _operation_refusal(sim, {"order": {"items": [{"product_id": "prod_mug", "quantity": "x"}]}}) == (
        "Property .order.items[0].quantity: quantity should be a whole number"
    )
