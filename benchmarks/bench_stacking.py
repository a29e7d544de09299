"""Stacked validation: 5 redeemables (codes, a scoped one among them, a gift card, tiers) on a 5-item order.

Prints, never asserts; every figure comes from this one run.

(a) The engine alone: `normalize_order` once, then `evaluate_stack` over the
    five entries (resolved once, as the simulator caches them): each
    redeemable's verdict, reason and amounts, the running order's totals.
    "A stacked validation" is ONE request with five redeemables.
    Target: >= 10,000 stacked validations/s on one core (<= 100 us each).
(a') The same with a UNIT (free item) tier among the five, in place of the
    proportional split: it tops one line up and adds another, so every
    later redeemable sees the order the units left. Same target.
(b) The engine with every wire order read: each applicable redeemable's
    running order and the final order, what the operation answers with.
(c) The whole operation in-process: `sim.apply(VALIDATE_STACKED, request=...).wire`
    (request model, resolution against state, engine, rendering), and (d) the
    same through `sim.client().validate_stacked(...)` (httpx, JSON both ways,
    typed answer).
(e) The operation's function alone, `VALIDATE_STACKED.run(sim, request=...)`:
    (c) less the write path of `Simulator.apply` (the lock, the id-counter
    mark a failed write rewinds to, the try around the run), whose cost is
    printed as (c) - (e) and (c) / (e), with the mark's own cost.
(f) (a) with every redeemable in categories (`CATEGORISED`: two per campaign,
    hierarchies, an always-stackable gift card, limits per category) under
    CATEGORY_HIERARCHY: what the categories' order and limits cost, as (f) / (a).

Timing as in bench_validation.py: warm-up, then ROUNDS rounds in which every
variant runs its batch back to back (interleaved, so a slow moment hits all
alike); per variant the median and the minimum of the per-round means, in
CPU time of this process (`time.process_time_ns`).

Run: .venv/bin/python benchmarks/bench_stacking.py
"""

from __future__ import annotations

import os
import platform
import statistics
from typing import Any

from bench_validation import measure

from promolab import Simulator, models
from promolab.engine import (
    PricingContext,
    evaluate_stack,
    normalize_order,
    redeemable_order,
    stack_order,
)
from promolab.sim.operations.stacked_validation import VALIDATE_STACKED
from promolab.sim.operations.stacking_rules import stacking_rules_in_force
from promolab.sim.promotions import customer_context, pricing_view
from promolab.sim.sessions import held
from promolab.sim.stack_redeemables import resolve_redeemables

ROUNDS = 15

SCENARIO: dict[str, Any] = {
    "version": 1,
    "seed": 1,
    "clock": {"start": "2026-03-06T10:00:00Z"},
    "catalogue": {
        "products": [{"id": f"prod_{i}", "name": f"Product {i}", "price": 1000 + 137 * i} for i in range(6)],
        "collections": [{"id": "pc_even", "name": "Even", "products": ["prod_0", "prod_2", "prod_4"]}],
    },
    "customers": [{"id": "cust_1", "source_id": "c1", "metadata": {"tier": "gold"}}],
    "campaigns": [
        {"id": "camp_promo", "name": "Promotions", "tiers": [
            {"id": "promo_pct", "name": "12.5% off", "discount": {"type": "PERCENT", "percent_off": 12.5}},
            {"id": "promo_amount", "name": "$5 off over $50", "discount": {"type": "AMOUNT", "amount_off": 500},
             "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [5000]}}}}},
            {"id": "promo_free", "name": "A free 5 and a free 1", "discount": {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": [
                {"effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_5"},
                {"effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_1"}]}},
        ]},
        {"id": "camp_items", "name": "Item codes", "type": "DISCOUNT_COUPONS",
         "discount": {"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ITEMS", "aggregated_amount_limit": 4000},
         # a scoped code: its campaign's scope and rule (the even products, in a cart over $20)
         "applicable_to": {"included": [{"object": "products_collection", "id": "pc_even"}]},
         "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [2000]}}}},
         "vouchers": [{"code": "EVEN15", "discount": {"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ITEMS"}}]},
        {"id": "camp_fixed", "name": "Fixed codes", "type": "DISCOUNT_COUPONS",
         "discount": {"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"},
         "vouchers": [{"code": "SPLIT3"}]},
        {"id": "camp_gift", "name": "Gift cards", "type": "GIFT_VOUCHERS", "gift_amount": 5000,
         "vouchers": [{"code": "GIFT50"}]},
    ],
    "project": {"stacking_rules": {"applicable_redeemables_limit": 5}},
}

#: SCENARIO with its campaigns in categories (the same five redeemables all apply).
CATEGORISED: dict[str, Any] = {
    **SCENARIO,
    "categories": [{"id": "cat_a", "name": "A", "hierarchy": 2}, {"id": "cat_b", "name": "B", "hierarchy": 0},
                   {"id": "cat_c", "name": "C"}, {"id": "cat_gift", "name": "Gift", "stacking_rules_type": "JOINT"}],
    "campaigns": [{**c, **{"camp_promo": {"categories": ["cat_a", "cat_b"]}, "camp_items": {"categories": ["cat_c"]},
                          "camp_fixed": {"categories": ["cat_c", "cat_a"]},
                          "camp_gift": {"category_id": "cat_gift"}}[c["id"]]} for c in SCENARIO["campaigns"]],
    "project": {"stacking_rules": {"applicable_redeemables_limit": 5, "redeemables_sorting_rule": "CATEGORY_HIERARCHY",
                                   "applicable_redeemables_per_category_limit": 3,
                                   "applicable_redeemables_category_limits": {"cat_a": 4}}},
}

REQUEST: dict[str, Any] = {
    "customer": {"source_id": "c1"},
    "redeemables": [
        {"object": "voucher", "id": "EVEN15"},
        {"object": "voucher", "id": "SPLIT3"},
        {"object": "promotion_tier", "id": "promo_pct"},
        {"object": "voucher", "id": "GIFT50", "gift": {"credits": 1000}},
        {"object": "promotion_tier", "id": "promo_amount"},
    ],
    "order": {"items": [
        {"product_id": "prod_0", "quantity": 2},
        {"product_id": "prod_1", "quantity": 1},
        {"product_id": "prod_2", "quantity": 3},
        {"product_id": "prod_3", "quantity": 1, "price": 4999},
        {"product_id": "prod_4", "quantity": 5},
    ]},
}


#: The same stack with the UNIT tier in place of the proportional split.
REQUEST_UNIT: dict[str, Any] = {
    **REQUEST,
    "redeemables": [r if r["id"] != "SPLIT3" else {"object": "promotion_tier", "id": "promo_free"}
                    for r in REQUEST["redeemables"]],
}


def main() -> None:
    sim = Simulator.from_scenario(SCENARIO)
    view = pricing_view(sim)
    body = models.StackedValidationRequest.model_validate(REQUEST)
    customer, _ = customer_context(sim, view, REQUEST["customer"])
    entries = [r.entry for r in resolve_redeemables(sim, view, body.redeemables, held(sim))]
    unit_body = models.StackedValidationRequest.model_validate(REQUEST_UNIT)
    unit_entries = [r.entry for r in resolve_redeemables(sim, view, unit_body.redeemables, held(sim))]
    rules = stacking_rules_in_force(sim)
    ctx = PricingContext(now=sim.now)
    catalogue = view.catalogue

    def engine(stack: list[Any] = entries) -> Any:
        order = normalize_order(catalogue, REQUEST["order"], customer.id if customer else None)
        return evaluate_stack(stack, order, customer, ctx, rules, catalogue=catalogue)

    def engine_unit() -> Any:
        return engine(unit_entries)

    for check in (engine(), engine_unit()):
        assert check.valid and len(check.applicable) == 5, [(r.entry.id, r.status, r.reason) for r in check.redeemables]

    def engine_with_wire(stack: list[Any] = entries) -> Any:
        result = engine(stack)
        return [redeemable_order(result, r) for r in result.redeemables], stack_order(result)

    def wire_unit() -> Any:
        return engine_with_wire(unit_entries)

    def operation() -> Any:
        return sim.apply(VALIDATE_STACKED, request=REQUEST).wire

    def bare_operation() -> Any:
        return VALIDATE_STACKED.run(sim, request=REQUEST)

    client = sim.client()

    def through_client() -> Any:
        return client.validate_stacked(REQUEST)

    categorised = Simulator.from_scenario(CATEGORISED)
    cat_view = pricing_view(categorised)
    cat_entries = [r.entry for r in resolve_redeemables(categorised, cat_view, body.redeemables, held(categorised))]
    cat_rules = stacking_rules_in_force(categorised)
    assert all(e.categories for e in cat_entries)

    def engine_with_categories() -> Any:
        order = normalize_order(cat_view.catalogue, REQUEST["order"], customer.id if customer else None)
        return evaluate_stack(cat_entries, order, customer, ctx, cat_rules, catalogue=cat_view.catalogue)

    ordered = engine_with_categories()
    assert ordered.valid and len(ordered.applicable) == 5 and ordered.tried != engine().tried, ordered.tried

    per_round = measure({
        "engine": (engine, 400), "engine_unit": (engine_unit, 400), "wire": (engine_with_wire, 200),
        "wire_unit": (wire_unit, 200), "operation": (operation, 100),
        "client": (through_client, 50), "bare": (bare_operation, 100), "mark": (sim.ids.mark, 2000),
        "categories": (engine_with_categories, 400),
    }, ROUNDS)
    client.close()
    print(f"stacked validation: 5 redeemables (item %, proportional split, order %, gift credits, amount with a rule)"
          f" on a 5-item order; {ROUNDS} rounds; Python {platform.python_version()}; load {os.getloadavg()[0]:.2f}")
    labels = {
        "engine": "(a) engine: normalize + evaluate_stack (amounts)",
        "engine_unit": "(a') the same, a UNIT tier among the five",
        "wire": "(b) engine + every running order and the final order",
        "wire_unit": "(b') the same, a UNIT tier among the five",
        "operation": "(c) the validate_stacked operation in-process",
        "client": "(d) through sim.client().validate_stacked",
        "bare": "(e) the operation's function, without apply's write path",
        "categories": "(f) (a) with categories, under CATEGORY_HIERARCHY",
    }
    for name, label in labels.items():
        median, best = statistics.median(per_round[name]), min(per_round[name])
        target = "   target >= 10,000/s" if name in ("engine", "engine_unit", "categories") else ""
        print(f"{label:<58} median {median:8.1f} us ({1e6 / median:9,.0f}/s)  best {best:8.1f} us{target}")
    with_path, bare = statistics.median(per_round["operation"]), statistics.median(per_round["bare"])
    print(f"the write path of apply (c) - (e): {with_path - bare:+.1f} us a write, (c) / (e) = {with_path / bare:.3f}; "
          f"of it, the id-counter mark: {statistics.median(per_round['mark']):.2f} us "
          f"({len(sim.ids.state())} kinds of id)")
    ratio = statistics.median(per_round["categories"]) / statistics.median(per_round["engine"])
    print(f"categories' order and limits: (f) / (a) = {ratio:.3f}")


if __name__ == "__main__":
    main()
