"""Qualifications: one customer and a 5-item cart against 50 promotion tiers.

Prints, never asserts; every figure comes from this one run.

The scenario is built here: the 20 tiers of bench_validation.py's mix
(every discount type and effect, scopes, rules of several families) repeated
over 10 campaigns of 5 tiers (50 tiers), plus a coupon campaign with 3 codes
held by the customer and a gift card. "A qualification" is ONE request that
judges all 53 redeemables (each priced alone on the cart), sorts them and
renders one page.

(a) `sim.apply(QUALIFICATIONS, ...).wire` with the default page (5) and DEFAULT
    order; (b) the same with BEST_DEAL and a full page (50), which renders
    every qualified redeemable; (c) `validate` over the same 50 tiers, for
    scale (it prices the tiers alone, with no sorting nor codes); (d) (a)
    through `sim.client().qualifications(...)` (HTTP in-process, typed).
Target: (a) >= 2,000 qualifications/s on one core (<= 500 us each).

Timing as in bench_validation.py: warm-up, then ROUNDS interleaved rounds,
median and minimum of the per-round means in CPU time of this process.

Run: .venv/bin/python benchmarks/bench_qualifications.py
"""

from __future__ import annotations

import copy
import os
import platform
import statistics
from typing import Any

from bench_validation import REQUEST, SCENARIO, _tier, measure

from promolab import Simulator
from promolab.sim.operations.qualifications import QUALIFICATIONS
from promolab.sim.operations.validation import VALIDATE

TIERS = 50


def scenario() -> dict[str, Any]:
    """bench_validation's scenario with 50 tiers, codes and a gift card for the customer."""
    document = copy.deepcopy(SCENARIO)
    document["campaigns"] = [
        {"id": f"camp_{c}", "name": f"Campaign {c}", "type": "PROMOTION", "category": "Bench",
         "tiers": [{**_tier(i), "id": f"promo_{i:02d}"} for i in range(c * 5, c * 5 + 5)]}
        for c in range(TIERS // 5)
    ]
    document["campaigns"] += [
        {"id": "camp_codes", "name": "Codes", "type": "DISCOUNT_COUPONS",
         "discount": {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"},
         "vouchers": [{"code": f"CODE-{i}", "holder": "cust_1"} for i in range(3)]},
        {"id": "camp_gift", "name": "Gift", "type": "GIFT_VOUCHERS", "gift_amount": 5000,
         "vouchers": [{"code": "GIFT-1", "holder": "cust_1"}]},
    ]
    return document


def main() -> None:
    sim = Simulator.from_scenario(scenario())
    assert len(sim.state.tiers) == TIERS
    request = {key: REQUEST[key] for key in ("customer", "order", "metadata")}
    best_page = {**request, "options": {"limit": 50, "sorting_rule": "BEST_DEAL"}}
    answer = sim.apply(QUALIFICATIONS, request=best_page).wire
    qualified = len(answer["redeemables"]["data"])
    client = sim.client()
    variants = {
        "(a) qualifications, page of 5": (lambda: sim.apply(QUALIFICATIONS, request=request).wire, 200),
        "(b) qualifications, BEST_DEAL page of 50": (lambda: sim.apply(QUALIFICATIONS, request=best_page).wire, 100),
        "(c) validate, same 50 tiers": (lambda: sim.apply(VALIDATE, request=request).wire, 200),
        "(d) (a) through sim.client()": (lambda: client.qualifications(request), 100),
    }
    per_round = measure(variants)
    print(f"qualifications: {TIERS} tiers + 4 codes, {qualified} qualify; python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.2f}")
    medians = {}
    for name, samples in per_round.items():
        medians[name] = statistics.median(samples)
        print(f"  {name:<42} median {medians[name]:8.1f} us  min {min(samples):8.1f} us  "
              f"-> {1e6 / medians[name]:8.0f}/s")
    a = medians["(a) qualifications, page of 5"]
    print(f"  target (a) >= 2,000/s: {1e6 / a:.0f}/s ({'met' if 1e6 / a >= 2000 else 'NOT met'}); "
          f"(a)/(c) = {a / medians['(c) validate, same 50 tiers']:.2f}x, "
          f"(d)/(a) = {medians['(d) (a) through sim.client()'] / a:.2f}x")


if __name__ == "__main__":
    main()
