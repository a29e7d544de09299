"""Unit budgets spent by redemptions and given back by rollbacks, on every pricing path.

A campaign discounts $1.00 per tee up to a budget of tees over all its
redemptions (and per customer). Redemptions spend the units they discounted
(`RedemptionRecord.units`), the budget shrinks on promotion validation,
stacked validation and qualifications alike, a rollback gives the units
back; a snapshot keeps them; a hypothesis walk over redemptions and
rollbacks never discounts more than the budget.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import ScenarioError, Simulator
from promolab.client import ApiError

PER_UNIT = {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"}
CAMPAIGN_LIMIT = 5
CUSTOMER_LIMIT = 3


def _scenario(entry: dict[str, Any] | None = None, *, sibling: bool = False) -> dict[str, Any]:
    entry = entry if entry is not None else {"object": "product", "id": "prod_tee",
                                             "product_campaign_quantity_limit": CAMPAIGN_LIMIT,
                                             "product_customer_campaign_quantity_limit": CUSTOMER_LIMIT}
    tiers = [{"id": "promo_tee", "name": "$1 off each tee", "discount": PER_UNIT,
              "applicable_to": {"included": [entry]}}]
    if sibling:
        tiers.append({"id": "promo_sib", "name": "$1 off each tee too", "discount": PER_UNIT,
                      "applicable_to": {"included": [entry]}})
    return {
        "version": 1,
        "project": {"id": "proj_units"},
        "clock": {"start": "2026-03-02T10:00:00Z"},
        "catalogue": {"products": [{"id": "prod_tee", "name": "Tee", "price": 2000},
                                   {"id": "prod_mug", "name": "Mug", "price": 1000}],
                      "collections": [{"id": "pc_wear", "name": "Wear", "products": ["prod_tee"]}]},
        "customers": [{"id": "cust_ann", "source_id": "ann"}, {"id": "cust_bo", "source_id": "bo"}],
        "campaigns": [{"id": "camp_tees", "name": "Tees", "tiers": tiers}],
    }


def _order(tees: int) -> dict[str, Any]:
    return {"items": [{"product_id": "prod_tee", "quantity": tees}, {"product_id": "prod_mug", "quantity": 1}]}


def _tier() -> list[dict[str, str]]:
    return [{"object": "promotion_tier", "id": "promo_tee"}]


def _quotes(sim: Simulator, who: str, tees: int) -> dict[str, int]:
    """What each pricing path says the tier takes off `tees` tees for `who` now."""
    with sim.client() as client:
        promotions = client.validate_promotions(customer={"source_id": who}, order=_order(tees))
        stacked = client.validate_stacked(redeemables=_tier(), customer={"source_id": who}, order=_order(tees))
        qualified = client.qualifications(scenario="ALL", customer={"source_id": who}, order=_order(tees))
    [promotion] = [p for p in promotions.promotions if p.id == "promo_tee"]
    [redeemable] = stacked.redeemables
    [offer] = [r for r in qualified.redeemables.data if r.id == "promo_tee"]
    return {
        "promotion validation": promotion.discount_amount or 0,
        "stacked validation": (redeemable.order.total_applied_discount_amount or 0) if redeemable.order else 0,
        "qualifications": (offer.order.items_applied_discount_amount or 0) if offer.order else 0,
    }


def _redeem(sim: Simulator, who: str, tees: int) -> tuple[str, int]:
    with sim.client() as client:
        answer = client.redeem_stacked(redeemables=_tier(), customer={"source_id": who}, order=_order(tees))
    return answer.redemptions[0].id, answer.order.total_discount_amount or 0


def _rollback(sim: Simulator, redemption_id: str) -> None:
    with sim.client() as client:
        client.rollback_redemption(redemption_id)


def test_a_sequence_exhausts_the_budget_and_a_rollback_restores_it() -> None:
    sim = Simulator(scenario=_scenario())
    steps = [  # who, tees, discount expected (campaign 5 tees, 3 per customer)
        ("ann", 2, 200), ("ann", 4, 100), ("bo", 4, 200), ("bo", 1, 0),
    ]
    ids = []
    for who, tees, expected in steps:
        quotes = _quotes(sim, who, tees)
        assert set(quotes.values()) == {expected}, (who, tees, quotes)
        rid, discount = _redeem(sim, who, tees)
        assert discount == expected
        ids.append(rid)
    assert [sim.state.redemptions[r].units for r in ids] == [{"prod_tee": 2}, {"prod_tee": 1}, {"prod_tee": 2}, {}]
    # the redemption that gave nothing is still a redemption: the budget reduces, never refuses
    assert sim.state.redemptions[ids[-1]].status == "SUCCEEDED"
    _rollback(sim, ids[0])  # ann's 2 tees come back: to the campaign and to ann
    assert set(_quotes(sim, "ann", 4).values()) == {200}
    assert set(_quotes(sim, "bo", 4).values()) == {100}  # bo has 1 of his 3 left; the campaign 2
    _rollback(sim, ids[2])
    assert set(_quotes(sim, "bo", 4).values()) == {300}


def test_after_a_redemption_and_its_rollback_every_answer_is_the_same_bytes() -> None:
    sim = Simulator(scenario=_scenario())
    fresh = Simulator(scenario=_scenario())
    rid, _ = _redeem(sim, "ann", 2)
    _rollback(sim, rid)
    for who in ("ann", "bo"):
        with sim.client() as a, fresh.client() as b:
            left = a.validate_stacked(redeemables=_tier(), customer={"source_id": who}, order=_order(6))
            right = b.validate_stacked(redeemables=_tier(), customer={"source_id": who}, order=_order(6))
        assert json.dumps(left.redeemables[0].order.model_dump(mode="json"), sort_keys=True) == json.dumps(
            right.redeemables[0].order.model_dump(mode="json"), sort_keys=True)


def test_a_snapshot_keeps_the_units_spent_byte_for_byte() -> None:
    sim = Simulator(scenario=_scenario())
    plain = Simulator(scenario=_scenario()).dump_json()
    assert '"units"' not in plain  # a state without unit spending keeps its bytes
    _redeem(sim, "ann", 2)
    snapshot = sim.snapshot()
    restored = Simulator.restore(json.loads(json.dumps(snapshot)))
    assert json.dumps(restored.snapshot(), sort_keys=True) == json.dumps(snapshot, sort_keys=True)
    assert _quotes(restored, "ann", 4) == _quotes(sim, "ann", 4) == dict.fromkeys(_quotes(sim, "ann", 4), 100)


def test_a_refused_redemption_spends_no_unit() -> None:
    """The tier is priced (and would spend 3 tees), but its stack is refused."""
    sim = Simulator(scenario=_scenario())
    before = sim.dump_json()
    with sim.client() as client, pytest.raises(ApiError) as info:
        client.redeem_stacked(redeemables=[*_tier(), {"object": "promotion_tier", "id": "promo_gone"}],
                              customer={"source_id": "ann"}, order=_order(3))
    assert info.value.status in (400, 404)
    assert sim.dump_json() == before
    assert set(_quotes(sim, "ann", 3).values()) == {300}


def test_two_tiers_of_the_campaign_in_one_stack_share_its_budget() -> None:
    sim = Simulator(scenario=_scenario(sibling=True))
    both = [*_tier(), {"object": "promotion_tier", "id": "promo_sib"}]
    with sim.client() as client:
        answer = client.redeem_stacked(redeemables=both, customer={"source_id": "ann"}, order=_order(6))
    spent = [sim.state.redemptions[r.id].units for r in answer.redemptions]
    assert spent == [{"prod_tee": 3}, {}]  # ann's 3 are gone after the first
    assert answer.order.total_discount_amount == 300


@pytest.mark.parametrize(("field", "entry"), [
    ("product_in_collection_promotion_tier_quantity_limit", {"object": "products_collection", "id": "pc_wear"}),
    ("product_promotion_tier_quantity_limit", {"object": "product", "id": "prod_tee"}),
])
def test_a_tier_budget_counts_the_tier_only(field: str, entry: dict[str, Any]) -> None:
    sim = Simulator(scenario=_scenario({**entry, field: 4}, sibling=True))
    with sim.client() as client:
        client.redeem_stacked(redeemables=[{"object": "promotion_tier", "id": "promo_sib"}],
                              customer={"source_id": "ann"}, order=_order(4))
    assert set(_quotes(sim, "bo", 6).values()) == {400}  # the sibling spent its own 4, not this tier's
    _redeem(sim, "bo", 3)
    assert set(_quotes(sim, "ann", 6).values()) == {100}


BAD_SCENARIOS = {
    "a formula": ({"object": "product", "id": "prod_tee", "product_campaign_quantity_limit_formula": "10"},
                  ("applicable_to entry product_campaign_quantity_limit_formula: formulas are not evaluated; "
                  "give product_campaign_quantity_limit as an integer")),
    "a negative limit": ({"object": "product", "id": "prod_tee", "product_customer_campaign_quantity_limit": -2},
                         ("applicable_to entry product_customer_campaign_quantity_limit must be a non-negative "
                         "integer, got -2")),
}


@pytest.mark.parametrize(("entry", "problem"), BAD_SCENARIOS.values(), ids=list(BAD_SCENARIOS))
def test_the_loader_refuses_a_bad_budget_with_its_path(entry: dict[str, Any], problem: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(_scenario(entry))
    assert info.value.path == "campaigns[0].tiers[0]"
    assert problem in info.value.problem


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(st.one_of(
    st.tuples(st.just("redeem"), st.sampled_from(["ann", "bo"]), st.integers(1, 4)),
    st.tuples(st.just("rollback"), st.integers(0, 20), st.just(0)),
), min_size=1, max_size=10))
def test_units_discounted_never_exceed_the_budget_and_rollbacks_restore(steps: list[tuple[str, Any, int]]) -> None:
    sim = Simulator(scenario=_scenario())
    live: list[tuple[str, str, int]] = []  # (redemption id, who, units) not rolled back
    for action, arg, tees in steps:
        if action == "redeem":
            who = arg
            used = sum(n for _, _, n in live)
            mine = sum(n for _, w, n in live if w == who)
            expected = min(tees, CAMPAIGN_LIMIT - used, CUSTOMER_LIMIT - mine)
            rid, discount = _redeem(sim, who, tees)
            assert discount == 100 * expected
            live.append((rid, who, expected))
        elif live:
            rid, _, _ = live.pop(arg % len(live))
            _rollback(sim, rid)
        spent = [r.units.get("prod_tee", 0) for r in sim.state.redemptions.values() if r.status == "SUCCEEDED"]
        assert sum(spent) <= CAMPAIGN_LIMIT
        assert sum(spent) == sum(n for _, _, n in live)


def test_the_validation_echoes_the_budgets_in_applicable_to() -> None:
    sim = Simulator(scenario=_scenario())
    with sim.client() as client:
        answer = client.validate_promotions(customer={"source_id": "ann"}, order=_order(1))
    [entry] = answer.promotions[0].applicable_to.data
    assert (entry.product_campaign_quantity_limit, entry.product_customer_campaign_quantity_limit) == (
        CAMPAIGN_LIMIT, CUSTOMER_LIMIT)
