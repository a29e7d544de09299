"""Unit budgets: what a tier with `product_*_quantity_limit` costs against the same tier without.

Prints, never asserts; every figure comes from this one run.

A budgeted tier's discount depends on the usage ledger, so its settlement is
not kept between orders with the same lines (`settle`) and each request
reads the ledger (`unit_allowance`). Measured on one 5-item order, the
ledger holding units spent by 200 customers:
(a) a single tier, `price_normalized` (promotion validation's path), with the
    budget and without; (b) a 5-redeemable stack (`evaluate_stack`) whose
    item tier carries the budget, and the same stack without it. Printed:
    each median, and budgeted / plain.

Timing as in bench_validation.py (interleaved rounds, CPU time).

Run: .venv/bin/python benchmarks/bench_unit_budgets.py
"""

from __future__ import annotations

import platform
import statistics
from datetime import UTC, datetime
from typing import Any

from bench_validation import measure

from promolab.engine import (
    CampaignInfo,
    Catalogue,
    CatalogueProduct,
    PricingContext,
    StackEntry,
    TierSpec,
    UsageLedger,
    compile_tier,
    evaluate_stack,
    normalize_order,
    price_normalized,
)
from promolab.models import StackingRules

ROUNDS = 15
NOW = datetime(2026, 3, 6, 10, tzinfo=UTC)
CATALOGUE = Catalogue(products=[CatalogueProduct(f"prod_{i}", None, f"P{i}", 1000 + 137 * i) for i in range(6)])
ORDER: dict[str, Any] = {"items": [{"product_id": f"prod_{i}", "quantity": 1 + i} for i in range(5)]}
BUDGETS = {"product_campaign_quantity_limit": 10_000, "product_customer_campaign_quantity_limit": 50}


def _tier(tier_id: str, discount: dict[str, Any], budgeted: bool) -> Any:
    entry: dict[str, Any] = {"object": "product", "id": "prod_2", **(BUDGETS if budgeted else {})}
    scope = {"included": [entry, {"object": "product", "id": "prod_4", **(BUDGETS if budgeted else {})}]}
    return compile_tier(TierSpec(tier_id, CampaignInfo(id="camp_b"), discount, applicable_to=scope))


def _stack(budgeted: bool) -> list[StackEntry]:
    tiers = [
        _tier("promo_items", {"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ITEMS"}, budgeted),
        compile_tier(TierSpec("promo_pct", CampaignInfo(id="camp_p"), {"type": "PERCENT", "percent_off": 10})),
        compile_tier(TierSpec("promo_amt", CampaignInfo(id="camp_p"), {"type": "AMOUNT", "amount_off": 500})),
        compile_tier(TierSpec("promo_split", CampaignInfo(id="camp_p"),
                              {"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"})),
        compile_tier(TierSpec("promo_off", CampaignInfo(id="camp_p"), {"type": "AMOUNT", "amount_off": 100})),
    ]
    return [StackEntry(p, "promotion_tier", t.id, discount=t) for p, t in enumerate(tiers)]


def main() -> None:
    ledger = UsageLedger()
    for c in range(200):
        ledger.record_units("promo_items", "camp_b", f"cust_{c}", [("prod_2", 3), ("prod_4", 1)])
    ctx = PricingContext(NOW, usage=ledger)
    plain, budgeted = _tier("promo_items", {"type": "PERCENT", "percent_off": 15}, False), _tier(
        "promo_items", {"type": "PERCENT", "percent_off": 15}, True)
    stacks = {False: _stack(False), True: _stack(True)}
    rules = StackingRules(applicable_redeemables_limit=5)

    def single(tier: Any) -> Any:
        return lambda: price_normalized(CATALOGUE, tier, normalize_order(CATALOGUE, ORDER, "cust_7"), None, ctx)

    def stacked(with_budget: bool) -> Any:
        entries = stacks[with_budget]
        return lambda: evaluate_stack(entries, normalize_order(CATALOGUE, ORDER, "cust_7"), None, ctx, rules)

    assert single(budgeted)().discount_amount == single(plain)().discount_amount  # the budget leaves enough
    variants = {"(a) single tier, plain": (single(plain), 2000), "(a) single tier, budgeted": (single(budgeted), 2000),
                "(b) 5-redeemable stack, plain": (stacked(False), 500),
                "(b) 5-redeemable stack, budgeted": (stacked(True), 500)}
    per_round = measure(variants, ROUNDS)
    median = {name: statistics.median(v) for name, v in per_round.items()}
    print(f"unit budgets; {ROUNDS} rounds; Python {platform.python_version()}")
    for name, us in median.items():
        print(f"{name:<36} median {us:8.1f} us ({1e6 / us:>10,.0f}/s)")
    for part in ("(a) single tier", "(b) 5-redeemable stack"):
        print(f"{part}: budgeted / plain = {median[part + ', budgeted'] / median[part + ', plain']:.2f}")


if __name__ == "__main__":
    main()
