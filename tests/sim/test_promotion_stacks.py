"""Promotion stacks: a campaign's tiers redeemed together by the stack's id.

The service's worked example (two items at $2,000.00; 10 % then $5.00 off)
reproduced to the cent, the request rules (a stack comes alone) and the
scenario's checks of a stack.
"""

from __future__ import annotations

from typing import Any

import pytest

from promolab import Simulator
from promolab.client import ApiError
from promolab.sim.scenario.issues import ScenarioError


def _scenario(stacks: list[dict[str, Any]], other_tiers: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "version": 1,
        "project": {"id": "proj_stacks"},
        "catalogue": {"products": [{"id": "prod_a", "name": "A", "price": 200000}]},
        "campaigns": [
            {"id": "camp_stack", "name": "Stacked", "tiers": [
                {"id": "promo_ten", "name": "10% off", "discount": {"type": "PERCENT", "percent_off": 10}},
                {"id": "promo_five", "name": "$5 off", "discount": {"type": "AMOUNT", "amount_off": 500}},
            ], "stacks": stacks},
            {"id": "camp_other", "name": "Other", "tiers": other_tiers or [
                {"id": "promo_other", "name": "1% off", "discount": {"type": "PERCENT", "percent_off": 1}},
            ]},
        ],
    }


ORDER = {"items": [{"product_id": "prod_a", "quantity": 2}]}


def test_example_d_a_stack_applies_its_tiers_in_order() -> None:
    sim = Simulator(scenario=_scenario([{"id": "stack_d", "name": "Both", "tiers": ["promo_ten", "promo_five"]}]))
    with sim.client() as client:
        answer = client.validate_stacked(redeemables=[{"object": "promotion_stack", "id": "stack_d"}], order=ORDER)
        redeemed = client.redeem_stacked(redeemables=[{"object": "promotion_stack", "id": "stack_d"}], order=ORDER)
    assert answer.valid
    rows = [(r.id, r.object, r.status, r.order.applied_discount_amount, r.order.discount_amount, r.order.total_amount)
            for r in answer.redeemables]
    assert rows == [
        ("promo_ten", "promotion_tier", "APPLICABLE", 40000, 40000, 360000),
        ("promo_five", "promotion_tier", "APPLICABLE", 500, 40500, 359500),
    ]
    assert answer.order.total_amount == 359500
    assert [r.related_object_id for r in redeemed.redemptions] == ["promo_ten", "promo_five"]
    assert redeemed.parent_redemption is not None and redeemed.order.total_amount == 359500


@pytest.mark.parametrize(("redeemables", "status", "key"), [
    ([{"object": "promotion_stack", "id": "stack_d"}, {"object": "promotion_tier", "id": "promo_other"}],
     400, "invalid_redeemables"),
    ([{"object": "promotion_stack", "id": "stack_d"}, {"object": "promotion_stack", "id": "stack_e"}],
     400, "invalid_redeemables"),
    ([{"object": "promotion_stack", "id": "stack_nope"}], 404, "not_found"),
    ([{"object": "promotion_stack", "id": "stack_d"}, {"object": "promotion_stack", "id": "stack_d"}],
     400, "duplicated_redeemables"),
])
def test_a_stack_comes_alone(redeemables: list[dict[str, Any]], status: int, key: str) -> None:
    sim = Simulator(scenario=_scenario([
        {"id": "stack_d", "name": "Both", "tiers": ["promo_ten", "promo_five"]},
        {"id": "stack_e", "name": "One", "tiers": ["promo_five"]},
    ]))
    before = sim.dump()
    with sim.client() as client, pytest.raises(ApiError) as caught:
        client.redeem_stacked(redeemables=redeemables, order=ORDER)
    assert (caught.value.status, caught.value.key) == (status, key)
    assert sim.dump() == before


@pytest.mark.parametrize(("stack", "message"), [
    ({"name": "Foreign", "tiers": ["promo_ten", "promo_other"]}, "'promo_other' is not a promotion tier of campaigns[0]"),
    ({"name": "Twice", "tiers": ["promo_ten", "promo_ten"]}, "a stack names each tier once"),
    ({"name": "Empty", "tiers": []}, "tiers"),
    ({"name": "Missing", "tiers": ["promo_gone"]}, "unknown promotion tier 'promo_gone' in campaigns[0]"),
])
def test_the_scenario_checks_its_stacks(stack: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        Simulator(scenario=_scenario([stack]))
    assert message in str(caught.value)
    assert "campaigns[0].stacks[0]" in str(caught.value)


def test_qualifications_list_the_stacks_that_apply_as_a_stacked_validation_would() -> None:
    """PROMOTION_STACKS: each stack priced as its tiers stacked; one whose
    tier fails is left out with that tier's reason; a stack's answer holds
    its tiers with their running orders, equal to the stacked validation's."""
    scenario = _scenario([
        {"id": "stack_d", "name": "Both", "tiers": ["promo_ten", "promo_five"]},
        {"id": "stack_min", "name": "Big carts", "tiers": ["promo_five", "promo_min"]},
    ])
    scenario["campaigns"][0]["tiers"].append({
        "id": "promo_min", "name": "over $5,000", "discount": {"type": "AMOUNT", "amount_off": 500},
        "validation_rules": {"rules": {"1": {"name": "order.initial_amount", "conditions": {"$more_than": [500000]}}}},
    })
    sim = Simulator(scenario=scenario)
    request = {"order": ORDER, "scenario": "PROMOTION_STACKS"}
    with sim.client() as client:
        found = client.qualifications(request).redeemables.data
        left_out = client.control.why_not_qualified(request)["data"]
        validated = client.validate_stacked(redeemables=[{"object": "promotion_stack", "id": "stack_d"}], order=ORDER)
        everything = client.qualifications(order=ORDER, scenario="ALL", options={"limit": 50}).redeemables.data
    assert [(r.id, r.object, r.order.total_amount) for r in found] == [("stack_d", "promotion_stack", 359500)]
    stack = found[0]
    assert stack.redeemables is not None
    assert [t.model_dump(mode="json")["order"] for t in stack.redeemables] == [
        r.model_dump(mode="json")["order"] for r in validated.redeemables]
    assert left_out == [{"id": "stack_min", "object": "promotion_stack", "key": "order_rules_violated",
                         "message": "promo_min: order.initial_amount must be more than 500000"}]
    assert "promotion_stack" not in {r.object for r in everything}  # stacks are listed by their own scenario


def test_a_qualifying_stack_shows_only_the_tiers_it_applies() -> None:
    """With its campaign in a category, the default limit of one redeemable
    per category leaves the second tier out (SKIPPED): the stack still
    qualifies, with the one tier it applies."""
    scenario = _scenario([{"id": "stack_d", "name": "Both", "tiers": ["promo_ten", "promo_five"]}])
    scenario["categories"] = [{"id": "cat_weekend", "name": "Weekend"}]
    scenario["campaigns"][0]["category_id"] = "cat_weekend"  # the service's one-category field
    sim = Simulator(scenario=scenario)
    with sim.client() as client:
        found = client.qualifications(order=ORDER, scenario="PROMOTION_STACKS").redeemables.data
        validated = client.validate_stacked(redeemables=[{"object": "promotion_stack", "id": "stack_d"}], order=ORDER)
    assert [r.status for r in validated.redeemables] == ["APPLICABLE", "SKIPPED"]
    assert [(t.id, t.order.total_amount) for t in found[0].redeemables or []] == [("promo_ten", 360000)]
    assert found[0].order.total_amount == 360000
