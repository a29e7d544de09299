"""Promotion validation: an order of 5 items against 20 active tiers.

Prints, never asserts; every figure comes from this one run.

(a) The pricing engine called directly: what one validation request costs the
    engine, i.e. `normalize_order` once + `price_normalized` for each of the 20
    tiers, giving each tier's verdict, reason and amounts (discount, total).
    "A validation" is ONE request with 20 tiers (not one tier).
    Target: >= 5,000 validations/s on one core (<= 200 us each).
    The engine answers with typed results (engine.TierOutcome with its
    OrderPricing); their wire parts (order with items, applicable_to, ...) are
    rendered apart (engine.outcome_wire); the next line shows the engine with
    every part of every tier rendered, which is what the validate operation
    needs for the tiers it answers with. Also shown: the whole `validate`
    operation in-process (request checks, customer, tracking id, wire JSON),
    i.e. `sim.apply(VALIDATE, ...).wire`.
(b) The same request through `sim.client().validate_promotions(...)` (httpx,
    in-process transport, routing, auth, JSON both ways, typed response) against
    the bare httpx round trip defined as in `bench_get_incentive.py`: an
    `httpx.Client(transport=httpx.MockTransport(echo))` whose echo answers
    `httpx.Response(200, content=PAYLOAD, headers=<the simulator's response
    headers>)`, called as `client.post(URL, json=REQUEST, headers=<the same
    auth headers>)`, then `models.ValidationResponse.model_validate_json`.
    PAYLOAD is the exact byte string the client receives. Target: ratio <= 2x.

Timing, as in bench_get_incentive.py: warm-up, then ROUNDS rounds in which
every variant runs its batch of calls back to back, the variants interleaved
so that a slow moment of the machine hits all of them alike; per variant, the
median and the minimum of the per-round means, in CPU time of this process
(`time.process_time_ns`: other processes sharing the machine do not count),
garbage collector enabled as in real use. A reference loop and the load
average are printed so that figures from different moments can be compared.

Run: .venv/bin/python benchmarks/bench_validation.py
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx

from promolab import Simulator, models
from promolab.engine import PricingContext, normalize_order, outcome_wire, price_normalized
from promolab.http import SimulatorTransport
from promolab.sim.operations.validation import VALIDATE
from promolab.sim.promotions import customer_context, pricing_view

ROUNDS = 15

PRODUCTS = [
    {"id": f"prod_{i}", "source_id": f"p{i}", "name": f"Product {i}", "price": 1000 + 137 * i,
     "metadata": {"brand": "acme" if i % 2 else "other"}}
    for i in range(10)
]
PRODUCTS[1]["skus"] = [{"id": "sku_1", "source_id": "s1", "sku": "S1", "price": 999}]

#: 20 tiers: every discount type and effect, with and without applicable_to,
#: caps, and rules of several families (order, items, collections, customer).
_RULES: list[dict[str, Any] | None] = [
    None,
    {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [1000]}}, "logic": "1"}},
    {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [1000]}},
               "2": {"name": "customer.segment", "conditions": {"$in": ["seg_vip"]}},
               "3": {"name": "order.items.any", "conditions": {"$in": ["pc_even"]}},
               "logic": "1 and (2 or 3)"}},
    {"rules": {"1": {"name": "product.id", "conditions": {"$in": ["prod_0"]}},
               "2": {"name": "customer.metadata", "property": "tier", "conditions": {"$in": ["gold", "silver"]}},
               "logic": "1 and 2"}},
    {"rules": {"1": {"name": "products_collection.id", "conditions": {"$in": ["pc_even"]},
                     "rules": {"1": {"name": "products_collection.aggregated_quantity",
                                     "conditions": {"$more_than_or_equal": [2]}}}},
               "2": {"name": "order.items.quantity", "conditions": {"$more_than": [3]}},
               "logic": "1 and 2"}},
]
_DISCOUNTS: list[dict[str, Any]] = [
    {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"},
    {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ITEMS"},
    {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"},
    {"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY"},
    {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"},
    {"type": "PERCENT", "percent_off": 12.5, "effect": "APPLY_TO_ORDER", "amount_limit": 3000},
    {"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ITEMS", "aggregated_amount_limit": 4000},
    {"type": "FIXED", "fixed_amount": 800, "effect": "APPLY_TO_ITEMS"},
    {"type": "FIXED", "fixed_amount": 5000, "effect": "APPLY_TO_ORDER"},
    {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 3, "unit_type": "prod_0"},
    {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_9"},
    {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": [
        {"effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "sku_1"},
        {"effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_5h1pp1ng"}]},
]
_SCOPE = {
    "included": [{"object": "products_collection", "id": "pc_even", "quantity_limit": 2},
                 {"object": "sku", "id": "sku_1", "amount_limit": 500}],
    "excluded": [{"object": "product", "id": "prod_4"}],
}


def _tier(i: int) -> dict[str, Any]:
    discount = _DISCOUNTS[i % len(_DISCOUNTS)]
    tier: dict[str, Any] = {"id": f"promo_{i:02d}", "name": f"Tier {i}", "hierarchy": i // 4 + 1,
                            "discount": discount, "metadata": {"group": "even" if i % 2 == 0 else "odd"}}
    rules = _RULES[i % len(_RULES)]
    if rules is not None:
        tier["validation_rules"] = rules
    if i % 3 == 0 and discount["type"] != "UNIT" and discount["effect"] != "APPLY_TO_ORDER":
        tier["applicable_to"] = _SCOPE
    return tier


SCENARIO: dict[str, Any] = {
    "version": 1,
    "seed": 1,
    "clock": {"start": "2026-03-06T10:00:00Z"},
    "catalogue": {
        "products": [*PRODUCTS, {"id": "prod_5h1pp1ng", "source_id": "5h1pp1ng", "name": "Shipping"}],
        "collections": [{"id": "pc_even", "name": "Even", "products": [f"prod_{i}" for i in range(0, 10, 2)]}],
    },
    "customers": [{"id": "cust_1", "source_id": "c1", "metadata": {"tier": "gold"}}],
    "segments": [{"id": "seg_vip", "name": "VIP", "customers": ["cust_1"]}],
    "campaigns": [
        {"id": f"camp_{c}", "name": f"Campaign {c}", "type": "PROMOTION", "category": "Bench",
         "tiers": [_tier(i) for i in range(c * 5, c * 5 + 5)]}
        for c in range(4)
    ],
}

REQUEST: dict[str, Any] = {
    "customer": {"source_id": "c1"},
    "order": {
        "items": [
            {"product_id": "prod_0", "quantity": 2},
            {"sku_id": "sku_1", "quantity": 1},
            {"product_id": "prod_2", "quantity": "3"},
            {"product_id": "prod_3", "quantity": 1, "price": 4999},
            {"product_id": "prod_4", "quantity": 5},
        ],
        "metadata": {"channel": "web"},
    },
    "metadata": {"store": "online"},
    "options": {"expand": ["category"]},
}


def measure(variants: dict[str, tuple[Callable[[], Any], int]], rounds: int = ROUNDS) -> dict[str, list[float]]:
    """Per-round mean CPU µs per call of each (function, batch) variant, interleaved."""
    for func, batch in variants.values():
        for _ in range(max(3, batch // 4)):
            func()
    per_round: dict[str, list[float]] = {name: [] for name in variants}
    gc.collect()
    for _ in range(rounds):
        for name, (func, batch) in variants.items():
            start = time.process_time_ns()
            for _ in range(batch):
                func()
            per_round[name].append((time.process_time_ns() - start) / batch / 1000)
    return per_round


def main() -> None:
    sim = Simulator.from_scenario(SCENARIO)
    view = pricing_view(sim)
    assert len(view.tiers) == 20
    customer, _ = customer_context(sim, view, REQUEST["customer"])
    ctx = PricingContext(now=sim.now, redemption_metadata=REQUEST["metadata"], expand=frozenset({"category"}))
    catalogue, tiers = view.catalogue, view.tiers

    def engine() -> list[Any]:
        order = normalize_order(catalogue, REQUEST["order"], customer.id if customer else None)
        return [price_normalized(catalogue, t, order, customer, ctx) for t in tiers]

    valid = sum(o.valid for o in engine())
    if valid != 20:  # a benchmark of refusals would be meaningless: say so loudly
        print(f"WARNING: only {valid} of 20 tiers are valid for the benchmark order")

    def operation() -> Any:
        return sim.apply(VALIDATE, request=REQUEST).wire

    client = sim.client()

    def through_client() -> models.ValidationResponse:
        return client.validate_promotions(REQUEST)

    # The exact bytes and headers the client receives, replayed by the baseline.
    url = "http://promolab.local/v1/promotions/validation"
    creds = sim.state.project.credentials
    headers = {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token.get_secret_value()}
    first = httpx.Client(transport=SimulatorTransport(sim)).post(url, json=REQUEST, headers=headers)
    assert first.status_code == 200, first.text
    payload = first.content
    response_headers = list(first.headers.items())
    bare = httpx.Client(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, content=payload, headers=response_headers))
    )

    def bare_round_trip() -> models.ValidationResponse:
        return models.ValidationResponse.model_validate_json(bare.post(url, json=REQUEST, headers=headers).content)

    assert through_client() == bare_round_trip()

    def engine_with_wire() -> list[Any]:
        return [outcome_wire(o) for o in engine()]

    samples = measure({
        "reference": (lambda: sum(range(100)), 2000),
        "engine": (engine, 20),
        "normalize": (lambda: normalize_order(catalogue, REQUEST["order"], "cust_1"), 200),
        "wire": (engine_with_wire, 20),
        "operation": (operation, 20),
        "client": (through_client, 4),
        "bare": (bare_round_trip, 4),
    })
    med = {name: statistics.median(values) for name, values in samples.items()}
    low = {name: min(values) for name, values in samples.items()}

    def row(label: str, name: str, rate: bool = False) -> str:
        text = f"{label:52} {med[name]:8.1f} {low[name]:8.1f}"
        if rate:
            text += f"   {1e6 / med[name]:7,.0f} {1e6 / low[name]:7,.0f}"
        return text

    print(f"promotion validation benchmark (python {platform.python_version()}, one core, CPU time)")
    print(f"machine: load average {os.getloadavg()[0]:.1f}; reference loop sum(range(100)) = "
          f"{med['reference']:.2f} us (median)")
    print(f"order: 5 items; tiers: 20 active ({valid} valid); response: {len(payload):,} bytes; "
          f"{ROUNDS} interleaved rounds")
    print(f"{'':52} {'median':>8} {'min':>8}   {'valid./s':>7} {'(min)':>7}")
    print(f"{'':52} {'us':>8} {'us':>8}")
    print(row("(a) engine: normalize once + 20 tiers (amounts)", "engine", rate=True) + "   target >= 5,000/s")
    print(row("    of which normalize_order", "normalize"))
    print(row("    engine + every wire part of every tier read", "wire", rate=True))
    print(row("    validate operation in-process (sim.apply)", "operation", rate=True))
    print(row("(b) sim.client().validate_promotions", "client"))
    print(row("    bare httpx round trip (same bytes, parsed)", "bare"))
    print(f"    ratio client / bare: median {med['client'] / med['bare']:.2f}x, "
          f"min {low['client'] / low['bare']:.2f}x   (target <= 2x)")


if __name__ == "__main__":
    main()
