"""UNIT (free item) tiers in stacked validations, redemptions and rollbacks.

A free mug (ADD_MISSING 1) then 10 % off the order: the validation's
running orders carry the mug, a redemption stores them and counts the UNIT
tier's redemption toward its budget, and a rollback gives the budget back
and leaves the records as they were before, byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from promolab import Simulator
from promolab.client import ApiError
from promolab.sim.operations.qualifications import QUALIFICATIONS

SCENARIO: dict[str, Any] = {
    "version": 1,
    "project": {"id": "proj_units"},
    "catalogue": {"products": [{"id": "prod_mug", "name": "Mug", "price": 1200},
                               {"id": "prod_beans", "name": "Beans", "price": 1800}]},
    "campaigns": [{"id": "camp_units", "name": "Free mug", "tiers": [
        {"id": "promo_free_mug", "name": "A free mug, once",
         "discount": {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_mug"},
         "validation_rules": {"rules": {"1": {"name": "campaign.redemptions.count", "conditions": {"$less_than": [1]}}}}},
        {"id": "promo_ten", "name": "10 % off", "discount": {"type": "PERCENT", "percent_off": 10}},
    ]}],
}
STACK = [{"object": "promotion_tier", "id": "promo_free_mug"}, {"object": "promotion_tier", "id": "promo_ten"}]
ORDER = {"items": [{"product_id": "prod_beans", "quantity": 1}]}


def test_a_validation_shows_the_free_unit_in_each_running_order() -> None:
    sim = Simulator(scenario=SCENARIO)
    with sim.client() as client:
        answer = client.validate_stacked(redeemables=STACK, order=ORDER)
    assert answer.valid
    mug, ten = answer.redeemables
    assert (mug.status, ten.status) == ("APPLICABLE", "APPLICABLE")
    first = mug.order
    assert (first.amount, first.initial_amount, first.items_discount_amount, first.total_amount) == (3000, 1800, 1200, 1800)
    line = first.items[1]
    assert (line.product_id, line.quantity, line.initial_quantity, line.discount_quantity, line.subtotal_amount) == (
        "prod_mug", 1, 0, 1, 0)
    assert (ten.order.applied_discount_amount, ten.order.total_amount) == (180, 1620)
    assert (answer.order.amount, answer.order.total_discount_amount, answer.order.total_amount) == (3000, 1380, 1620)


def test_a_redemption_counts_the_unit_tier_and_a_rollback_gives_it_back() -> None:
    sim = Simulator(scenario=SCENARIO)
    before = json.dumps(sim.state.dump()["vouchers"], sort_keys=True)
    with sim.client() as client:
        done = client.redeem_stacked(redeemables=STACK, order=ORDER)
        assert [r.order.total_amount for r in done.redemptions] == [1800, 1620]
        assert done.order.total_amount == 1620 and done.order.amount == 3000
        # the budget (one redemption of the campaign) is spent: the free mug no longer applies
        again = client.validate_stacked(redeemables=STACK[:1], order=ORDER)
        assert (again.valid, again.redeemables[0].result.error.key) == (False, "redemption_rules_violated")
        try:
            client.redeem_stacked(redeemables=STACK[:1], order=ORDER)
            raise AssertionError("the budget is spent")
        except ApiError as exc:
            assert (exc.status, exc.key) == (400, "redemption_rules_violated")
        back = client.rollback_redemption(done.parent_redemption.id)
        # cancelled: the order as sent, without the free mug (nothing to pay for a unit never ordered)
        assert (back.order.status, back.order.amount, back.order.total_amount) == ("CANCELED", 1800, 1800)
        assert [(i.product_id, i.quantity, i.initial_quantity) for i in back.order.items] == [("prod_beans", 1, None)]
        assert [(r.order.amount, r.order.total_amount, len(r.order.items)) for r in back.rollbacks] == [(1800, 1800, 1)] * 2
        assert all(sim.state.redemptions[r.id].status == "ROLLED_BACK" for r in done.redemptions)
        # rolled back: the budget is free again
        assert client.validate_stacked(redeemables=STACK[:1], order=ORDER).valid
    assert json.dumps(sim.state.dump()["vouchers"], sort_keys=True) == before


def test_a_promotion_stack_with_a_unit_tier_validates_and_qualifies() -> None:
    """The same two tiers as a promotion stack: a stacked validation by the
    stack's id gives the same running orders, and qualifications
    (`PROMOTION_STACKS`) return the stack with the free mug in its order."""
    scenario = json.loads(json.dumps(SCENARIO))
    scenario["campaigns"][0]["tiers"][0].pop("validation_rules")
    scenario["campaigns"][0]["stacks"] = [{"id": "stack_mug", "name": "Mug and 10 %", "tiers": ["promo_free_mug", "promo_ten"]}]
    sim = Simulator(scenario=scenario)
    with sim.client() as client:
        answer = client.validate_stacked(redeemables=[{"object": "promotion_stack", "id": "stack_mug"}], order=ORDER)
    assert [(r.id, r.order.total_amount) for r in answer.redeemables] == [("promo_free_mug", 1800), ("promo_ten", 1620)]
    qualified = sim.apply(QUALIFICATIONS, request={"scenario": "PROMOTION_STACKS", "order": ORDER}).wire
    (stack,) = qualified["redeemables"]["data"]
    assert (stack["id"], stack["order"]["amount"], stack["order"]["total_amount"]) == ("stack_mug", 3000, 1620)
    assert [item["product_id"] for item in stack["order"]["items"]] == ["prod_beans", "prod_mug"]
