"""The validate operation's caches never change an answer, and follow the state.

`validate` now answers from caches that live with the state's pricing view
(which campaigns run over a span of instants, orders of plain items with their
lines, rule verdicts, settlements and wire templates, the entry templates of
each tier) and from a shared pricing context. These tests replay many requests
over days of simulated time against the plain algorithm (a freshly built view,
`price_normalized` for every tier, `promotion_tier_wire`), and check that a
state replaced by restore / load_snapshot / reset, or a customer changed in
place, is answered from the new data.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from promolab import Simulator
from promolab.engine import PricingContext, price_normalized, promotion_tier_wire
from promolab.sim.operations.validation import VALIDATE
from promolab.sim.promotions import build_view, customer_context, tracking_id

PRODUCTS = ["prod_beans_ethiopia", "prod_beans_colombia", "prod_espresso_blend", "prod_mug", "prod_tote",
            "prod_filters", "prod_grinder", "prod_kettle"]
WHO = ["alice", "bob", "carol", "dave", "erin", "frank", "guest-1", "guest-2", None]


def reference(sim: Simulator, request: dict[str, Any], audience_only: bool = False,
              keep: set[str] | None = None) -> dict[str, Any]:
    """The validate answer computed the plain way, with nothing cached."""
    view = build_view(sim.state)
    customer, source = customer_context(sim, view, request.get("customer"))
    from promolab.engine import normalize_order

    order = normalize_order(view.catalogue, request.get("order"), customer.id if customer else None)
    expand = frozenset((request.get("options") or {}).get("expand") or ())
    ctx = PricingContext(now=sim.now, redemption_metadata=request.get("metadata") or {},
                         audience_only=audience_only, expand=expand)
    track = tracking_id(sim.state.project.id, source)
    promotions = []
    for tier in view.tiers:
        if keep is not None and tier.id not in keep:
            continue
        if tier.campaign.evaluate(sim.now) is not None:
            continue
        outcome = price_normalized(view.catalogue, tier, order, customer, ctx)
        if outcome.valid:
            promotions.append(promotion_tier_wire(tier.spec, outcome, track))
    return {"valid": bool(promotions), "tracking_id": track, "promotions": promotions}


def random_request(rng: random.Random) -> dict[str, Any]:
    items = [{"product_id": p, "quantity": rng.choice((1, 1, 2, 3))}
             for p in rng.sample(PRODUCTS, rng.choice((1, 1, 2, 3)))]
    request: dict[str, Any] = {"order": {"items": items}}
    who = rng.choice(WHO)
    if who is not None:
        request["customer"] = {"source_id": who}
        if rng.random() < 0.1:
            request["customer"]["metadata"] = {"tier": "gold"}
    if rng.random() < 0.15:
        request["metadata"] = {"channel": rng.choice(("app", "web"))}
    if rng.random() < 0.1:
        request["options"] = {"expand": ["category"]}
    if rng.random() < 0.1:
        request["order"]["amount"] = rng.choice((1000, 20000))
    return request


def as_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def test_many_requests_over_days_answer_as_the_plain_algorithm(sim: Simulator) -> None:
    """Weekdays and the weekend, in and out of the app's happy hour, with
    repeated carts (so every cache is both built and reused)."""
    rng = random.Random(11)
    for step in range(260):
        sim.advance(rng.choice((60, 600, 1800, 3700, 7200)))
        request = random_request(rng)
        audience = rng.random() < 0.1
        got = sim.apply(VALIDATE, request=copy.deepcopy(request), audience_rules_only=audience).wire
        assert as_json(got) == as_json(reference(sim, request, audience)), (step, request)
        if step % 7 == 0:  # the caller owns the answer: mutating it changes nothing later
            for promo in got["promotions"]:
                promo["order"]["items"].clear()
                promo["campaign"]["id"] = "changed"
                promo["metadata"]["x"] = 1
        again = sim.apply(VALIDATE, request=copy.deepcopy(request), audience_rules_only=audience).wire
        assert as_json(again) == as_json(reference(sim, request, audience))


def test_filters_and_the_running_tiers(sim: Simulator) -> None:
    request = {"customer": {"source_id": "alice"},
               "order": {"items": [{"product_id": "prod_mug", "quantity": 2},
                                   {"product_id": "prod_grinder", "quantity": 1}]}}
    filters = {"promotion_id": {"conditions": {"$in": ["camp_vip", "camp_weekend"]}}}
    keep = {"promo_vip_10pct", "promo_vip_mug_5", "promo_brew_bundle", "promo_weekend_filters",
            "promo_weekend_starter"}
    for _ in range(12):  # Friday 10:00 into the weekend
        sim.advance(6 * 3600)
        got = sim.apply(VALIDATE, request=request, filters=filters).wire
        assert as_json(got) == as_json(reference(sim, request, keep=keep))


def _changed(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The demo with a pricier mug, a bigger welcome discount, the VIP campaign
    paused and the bean collection holding the mug."""
    snap = copy.deepcopy(snapshot)
    state = snap["state"]
    state["products"]["prod_mug"]["price"] = 1900
    state["tiers"]["promo_welcome_10"]["discount"]["amount_off"] = 1500
    state["campaigns"]["camp_vip"]["active"] = False
    state["collections"]["pc_beans"]["products"].append("prod_mug")
    return snap


CART = {"customer": {"source_id": "alice"},
        "order": {"items": [{"product_id": "prod_mug", "quantity": 3},
                            {"product_id": "prod_beans_ethiopia", "quantity": 2}]}}


@pytest.mark.parametrize("how", ["load_snapshot", "restore", "reset"])
def test_a_replaced_state_is_never_answered_from_the_old_caches(sim: Simulator, how: str) -> None:
    before = sim.apply(VALIDATE, request=CART).wire
    sim.apply(VALIDATE, request=CART)  # twice: templates and settlements now exist
    changed = _changed(sim.snapshot())
    if how == "load_snapshot":
        sim.load_snapshot(changed)
        target = sim
    elif how == "restore":
        target = Simulator.restore(changed)
    else:
        original = sim.snapshot()
        sim.load_snapshot(changed)
        sim.apply(VALIDATE, request=CART)
        sim.apply(VALIDATE, request=CART)
        sim.reset()  # back to the state the simulator was created with
        assert as_json(sim.apply(VALIDATE, request=CART).wire) == as_json(before)
        sim.load_snapshot(original)
        target = sim
        changed = original
    got = target.apply(VALIDATE, request=CART).wire
    assert as_json(got) == as_json(reference(target, CART))
    if how != "reset":
        ids = [p["id"] for p in got["promotions"]]
        assert "promo_vip_10pct" not in ids and "promo_vip_10pct" in [p["id"] for p in before["promotions"]]
        welcome = next(p for p in got["promotions"] if p["id"] == "promo_welcome_10")
        assert welcome["discount"]["amount_off"] == 1500 and welcome["discount_amount"] == 1500
        mug = next(i for i in welcome["order"]["items"] if i["product_id"] == "prod_mug")
        assert mug["price"] == 1900 and mug["product"]["price"] == 1900
        beans = next(p for p in got["promotions"] if p["id"] == "promo_beans_15")
        assert [i["product_id"] for i in beans["order"]["items"] if i.get("discount_amount")] == [
            "prod_mug", "prod_beans_ethiopia"]


def test_customers_are_read_at_every_request(sim: Simulator) -> None:
    """Customers change between requests (events, new guests): nothing about
    them is cached, so a change shows at once."""
    request = {"customer": {"source_id": "bob"},
               "order": {"items": [{"product_id": "prod_grinder", "quantity": 1}]}}
    first = sim.apply(VALIDATE, request=request).wire
    assert "promo_vip_10pct" not in [p["id"] for p in first["promotions"]]
    sim.state.customers["cust_bob"].metadata["tier"] = "gold"
    second = sim.apply(VALIDATE, request=request).wire
    assert "promo_vip_10pct" in [p["id"] for p in second["promotions"]]
    assert as_json(second) == as_json(reference(sim, request))
    for promo in second["promotions"]:
        assert promo["order"]["customer_id"] == "cust_bob"
    guest = {"customer": {"source_id": "guest-x"}, "order": request["order"]}
    as_guest = sim.apply(VALIDATE, request=guest).wire
    assert all(p["order"]["customer_id"] is None for p in as_guest["promotions"])
    assert as_guest["tracking_id"] != second["tracking_id"]
