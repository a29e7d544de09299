"""Stacked redemptions and rollbacks: what is spent, what comes back, and the refusals.

The service's redemption example (a gift card, 20 % off, 8000 off a 200000
order) is redeemed on a simulator built to match it; a hypothesis test
redeems random stacks and rolls them back, and every voucher must be as it
was, byte for byte.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.client import ApiError

DEMO = "data/scenarios/demo.yaml"

EXAMPLE_A = {
    "version": 1,
    "project": {"id": "proj_a"},
    "catalogue": {"products": [{"id": "prod_big", "name": "Big", "price": 200000}]},
    "campaigns": [
        {"id": "camp_gift", "name": "Gift cards", "type": "GIFT_VOUCHERS", "gift_amount": 20500,
         "vouchers": [{"code": "dBj56oqJ", "gift": {"amount": 20500, "balance": 20400}}]},
        {"id": "camp_coupons", "name": "Coupons", "type": "DISCOUNT_COUPONS",
         "discount": {"type": "PERCENT", "percent_off": 20, "effect": "APPLY_TO_ORDER"},
         "vouchers": [{"code": "39vnjyS8"}]},
        {"id": "camp_promo", "name": "Promotions", "tiers": [
            {"id": "promo_wtS1", "name": "8000 off", "discount": {"type": "AMOUNT", "amount_off": 8000}}]},
    ],
}
SENT_A = [{"object": "voucher", "id": "dBj56oqJ", "gift": {"credits": 100}},
          {"object": "voucher", "id": "39vnjyS8"}, {"object": "promotion_tier", "id": "promo_wtS1"}]


def test_example_a_redeemed_parent_children_and_order() -> None:
    sim = Simulator(scenario=EXAMPLE_A)
    with sim.client() as client:
        done = client.redeem_stacked(redeemables=SENT_A, order={"items": [{"product_id": "prod_big", "quantity": 1}]})
    parent = done.parent_redemption
    assert parent is not None and parent.related_object_type == "redemption" and parent.redemption is None
    rows = [(r.amount, r.order.applied_discount_amount, r.order.discount_amount, r.order.total_amount, r.redemption)
            for r in done.redemptions]
    assert rows == [(100, 100, 100, 199900, parent.id), (None, 39980, 40080, 159920, parent.id),
                    (None, 8000, 48080, 151920, parent.id)]
    assert done.redemptions[0].voucher["gift"] == {"amount": 20500, "balance": 20300, "effect": "APPLY_TO_ORDER"}
    assert (done.order.status, done.order.total_amount, done.order.applied_discount_amount) == ("PAID", 151920, 48080)
    entry = done.order.redemptions[parent.id]
    assert (entry.related_object_type, entry.stacked) == ("redemption", [r.id for r in done.redemptions])


def test_one_redeemable_has_no_parent() -> None:
    sim = Simulator.from_scenario(DEMO)
    with sim.client() as client:
        done = client.redeem_stacked(redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"}],
                                     order={"items": [{"product_id": "prod_mug", "quantity": 1}]})
    only = done.redemptions[0]
    assert done.parent_redemption is None and only.redemption is None
    assert done.order.redemptions[only.id].related_object_type == "voucher"
    assert sim.state.vouchers[only.related_object_id].redeemed_quantity == 1


@pytest.mark.parametrize(("setup", "target", "key", "status"), [
    ("stacked", "child", "invalid_redemption_parent", 400),
    ("stacked", "parent twice", "already_rolled_back", 400),
    ("stacked", "parent after 3 months", "invalid_redemption", 400),
    ("stacked", "unknown", "not_found", 404),
])
def test_rollback_refusals_change_nothing(setup: str, target: str, key: str, status: int) -> None:
    sim = Simulator(scenario=EXAMPLE_A)
    with sim.client() as client:
        done = client.redeem_stacked(redeemables=SENT_A, order={"items": [{"product_id": "prod_big", "quantity": 1}]})
        assert done.parent_redemption is not None
        rid = {"child": done.redemptions[0].id, "unknown": "r_00"}.get(target, done.parent_redemption.id)
        if target == "parent twice":
            client.rollback_redemption(rid)
        if target == "parent after 3 months":
            sim.advance(timedelta(days=93))
        before = sim.dump_json()
        with pytest.raises(ApiError) as caught:
            client.rollback_redemption(rid)
    assert (caught.value.status, caught.value.key) == (status, key)
    assert sim.dump_json() == before


def test_a_rollback_within_three_months_and_without_order() -> None:
    sim = Simulator(scenario=EXAMPLE_A)
    with sim.client() as client:
        client.create_stacking_rules("proj_a", redeemables_rollback_order_mode="WITHOUT_ORDER")
        done = client.redeem_stacked(redeemables=SENT_A, order={"items": [{"product_id": "prod_big", "quantity": 1}]})
        sim.advance(timedelta(days=89))
        assert done.parent_redemption is not None
        back = client.rollback_redemption(done.parent_redemption.id, reason="late")
    assert back.order.status == "PAID" and back.order.total_amount == 151920  # the order is kept
    assert [r.amount for r in back.rollbacks] == [-100, None, None]
    assert back.parent_rollback is not None and back.parent_rollback.reason == "late"


def test_a_refused_redemption_changes_nothing() -> None:
    sim = Simulator.from_scenario(DEMO)
    before = sim.dump_json()
    with sim.client() as client, pytest.raises(ApiError) as caught:
        client.redeem_stacked(redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"},
                                           {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 99999}}],
                              order={"items": [{"product_id": "prod_mug", "quantity": 1}]})
    assert caught.value.key == "gift_amount_exceeded"
    assert sim.dump_json() == before


CODES = ["WELCOME-ALICE", "WELCOME-OPEN-1", "WELCOME-OPEN-2", "REF-ALICE", "GIFT-ALICE-50", "GIFT-BOB-25"]
TIERS = ["promo_welcome_10", "promo_beans_15", "promo_mug_3", "promo_merch_split", "promo_vip_mug_5",
         "promo_free_shipping", "promo_weekend_starter"]  # the last two: UNIT (free items)
PRODUCTS = ["prod_mug", "prod_grinder", "prod_beans_ethiopia", "prod_tote"]


@st.composite
def stacks(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(CODES + TIERS), min_size=1, max_size=5, unique=True))
    out: list[dict[str, Any]] = []
    for name in names:
        if name.startswith("promo_"):
            out.append({"object": "promotion_tier", "id": name})
        elif name.startswith("GIFT-"):
            credits = draw(st.one_of(st.none(), st.integers(1, 1800)))
            out.append({"object": "voucher", "id": name, **({"gift": {"credits": credits}} if credits else {})})
        else:
            out.append({"object": "voucher", "id": name})
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sent=stacks(), items=st.lists(st.tuples(st.sampled_from(PRODUCTS), st.integers(1, 4)), min_size=1,
                                      max_size=3, unique_by=lambda t: t[0]),
       mode=st.sampled_from(["ALL", "PARTIAL"]), who=st.sampled_from([None, "alice", "bob"]))
def test_a_rollback_gives_back_exactly_what_was_spent(sent: list[dict[str, Any]], items: list[tuple[str, int]],
                                                       mode: str, who: str | None) -> None:
    sim = Simulator.from_scenario(DEMO)
    order = {"items": [{"product_id": p, "quantity": q} for p, q in items]}
    with sim.client() as client:
        client.create_stacking_rules(sim.state.project.id, redeemables_application_mode=mode,
                                     applicable_redeemables_per_category_limit=None)
        vouchers = json.dumps(sim.state.dump()["vouchers"], sort_keys=True)
        try:
            done = client.redeem_stacked(redeemables=sent, order=order,
                                         **({"customer": {"source_id": who}} if who else {}))
        except ApiError:
            assert json.dumps(sim.state.dump()["vouchers"], sort_keys=True) == vouchers
            return
        spent = sum(r.amount or 0 for r in done.redemptions)
        assert (done.order.total_discount_amount or 0) >= spent
        target = done.parent_redemption.id if done.parent_redemption else done.redemptions[0].id
        back = client.rollback_redemption(target)
    assert json.dumps(sim.state.dump()["vouchers"], sort_keys=True) == vouchers
    assert -sum(r.amount or 0 for r in back.rollbacks) == spent
    assert back.order.status == "CANCELED" and back.order.total_amount == done.order.amount
    assert all(sim.state.redemptions[r.id].status == "ROLLED_BACK" for r in done.redemptions)
