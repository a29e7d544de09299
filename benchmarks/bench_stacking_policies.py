"""Stacking-policy comparison benchmark: figures measured in ONE run (never asserts).

    .venv/bin/python benchmarks/bench_stacking_policies.py [--orders 200000] [--engine-sample 2000] [--rounds 3]
    .venv/bin/python benchmarks/bench_stacking_policies.py --quick     # 20,000 orders

The demo scenario, 5 redeemables on every order (item-level PERCENT with
line and order budgets, a scoped code: WELCOME-OPEN-1 made $5 off each
merch line but the tote, in carts over $20 (`SCOPED_CODE`), $10 off over
$50 with an `order.amount` rule read on the running total, gift credits, a
FIXED item price for VIP customers), 4 policies (the project's, PARTIAL, INITIAL_AMOUNT, ONCE +
PARTIAL). A "redeemable application" is one (order, policy, redeemable)
decided: applied, skipped or inapplicable, with its amount and reason.

Variants, interleaved round by round, best and median round, wall and CPU
time, the process pinned to one CPU:

- `prepared`: `compare_stacking_policies(sim, prepare_orders(...), ...)`:
  the arrays, no frame built;
- `prepared + frames`: the same, then the per-order and per-redeemable
  frames (`.orders`, `.redeemables`: 4 M rows at 200,000 orders);
- `from the frame`: from the line-items DataFrame (preparation included);
- the per-request engine on a sample of the same orders (`normalize_order`
  once per order, `evaluate_stack` per policy, as a stacked validation
  prices), and the ratios.

Targets: >= 2,000,000 redeemable applications/s on one core, >= 100x the engine.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: no hidden thread pool in the one-core figures

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from promolab import Simulator
from promolab.analysis import compare_stacking_policies, prepare_orders
from promolab.analysis.stacking_policies.policy_rules import policy_rules
from promolab.engine import PricingContext, evaluate_stack, normalize_order
from promolab.models import RedeemableInput
from promolab.sim.promotions import pricing_view
from promolab.sim.sessions import held
from promolab.sim.stack_redeemables import resolve_redeemables
from promolab.sim.usage import usage_of

REDEEMABLES = [
    {"object": "promotion_tier", "id": "promo_beans_15"},
    {"object": "voucher", "id": "WELCOME-OPEN-1"},
    {"object": "promotion_tier", "id": "promo_welcome_10"},
    {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 1000}},
    {"object": "promotion_tier", "id": "promo_vip_mug_5"},
]
#: WELCOME-OPEN-1's own terms: the scoped code among the five (docs/scenarios.md, codes with scope and rules).
SCOPED_CODE = {
    "discount": {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ITEMS"},
    "applicable_to": {"included": [{"object": "products_collection", "id": "pc_merch"}],
                      "excluded": [{"object": "product", "id": "prod_tote"}]},
    "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [2000]}}}},
}
#: The UNIT case: promo_vip_mug_5 gives way to a free mug (if missing) and two packs of filters
#: for grinder buyers (ADD_MANY_ITEMS, an `order.items.any` rule), its campaign running every day.
UNIT_REDEEMABLES = [*REDEEMABLES[:4], {"object": "promotion_tier", "id": "promo_weekend_starter"}]
#: The total_amount case: the scoped code's rule reads `order.total_amount` (the total once it applied).
TOTAL_AMOUNT_RULES = {"rules": {"1": {"name": "order.total_amount", "conditions": {"$more_than": [2000]}}}}
POLICIES = {
    "project": {},
    "partial": {"redeemables_application_mode": "PARTIAL"},
    "initial": {"discount_calculation_mode": "INITIAL_AMOUNT"},
    "once": {"redeemables_products_application_mode": "ONCE", "redeemables_application_mode": "PARTIAL"},
}
KEYS = [("prod_beans_ethiopia", None), (None, "sku_ethiopia_250"), (None, "sku_ethiopia_1000"),
        ("prod_beans_colombia", None), (None, "sku_colombia_1000"), ("prod_espresso_blend", None),
        ("prod_mug", None), ("prod_tote", None), ("prod_grinder", None), ("prod_kettle", None), ("prod_filters", None)]
CUSTOMERS = [None, None, None, "alice", "bob", "carol", "dave", "erin", "frank"]


def orders_frame(n: int, seed: int = 7) -> pd.DataFrame:
    """1-6 lines an order, quantities 1-4, demo products, a third of orders from demo customers."""
    rng = np.random.default_rng(seed)
    lines = rng.integers(1, 7, size=n)
    order = np.repeat(np.arange(n), lines)
    pick = rng.integers(0, len(KEYS), size=order.size)
    who = rng.integers(0, len(CUSTOMERS), size=n)
    return pd.DataFrame({
        "order_id": pd.array([f"o{i:07d}" for i in order], dtype="string"),
        "product_id": pd.array([KEYS[k][0] for k in pick], dtype="string"),
        "sku_id": pd.array([KEYS[k][1] for k in pick], dtype="string"),
        "quantity": rng.integers(1, 5, size=order.size),
        "customer_source_id": pd.array([CUSTOMERS[w] for w in who[order]], dtype="string"),
    })


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def engine_seconds(sim: Simulator, frame: pd.DataFrame, sample: int) -> tuple[float, float, int]:
    """(wall, CPU, applications) of the per-request engine on the first `sample` orders."""
    view = pricing_view(sim)
    parsed = [RedeemableInput.model_validate(r) for r in REDEEMABLES]
    entries = [r.entry for r in resolve_redeemables(sim, view, parsed, held(sim))]
    rules = list(policy_rules(sim, POLICIES).values())
    ctx = PricingContext(sim.now, {}, usage=usage_of(sim))
    batch = prepare_orders(sim, frame[frame["order_id"].isin(pd.unique(frame["order_id"])[:sample])])

    def run() -> int:
        for i in range(batch.n_orders):
            customer = batch.customer_context(i)
            order = normalize_order(view.catalogue, {"items": batch.items(i)}, customer.id if customer else None)
            for policy in rules:
                evaluate_stack(entries, order, customer, ctx, policy)
        return batch.n_orders * len(rules) * len(entries)

    wall, cpu, applications = timed(run)
    return wall, cpu, applications


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=200_000)
    parser.add_argument("--engine-sample", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.orders, args.engine_sample, args.rounds = 20_000, 500, 2
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"load average before: {os.getloadavg()}")
    sim = scenario()
    frame = orders_frame(args.orders)
    batch = prepare_orders(sim, frame)
    applications = batch.n_orders * len(REDEEMABLES) * len(POLICIES)
    print(f"{batch.n_orders:,} orders ({batch.n_lines:,} lines) x {len(REDEEMABLES)} redeemables x "
          f"{len(POLICIES)} policies = {applications:,} redeemable applications")

    def frames() -> Any:
        result = compare_stacking_policies(sim, batch, REDEEMABLES, POLICIES)
        return result.orders, result.redeemables

    variants: dict[str, Callable[[], Any]] = {
        "prepared": lambda: compare_stacking_policies(sim, batch, REDEEMABLES, POLICIES),
        "prepared + frames": frames,
        "from the frame": lambda: compare_stacking_policies(sim, frame, REDEEMABLES, POLICIES),
    }
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, fn in variants.items():
            wall, cpu, _ = timed(fn)
            figures[name].append((wall, cpu))
    result = compare_stacking_policies(sim, batch, REDEEMABLES, POLICIES)
    print(f"paths: {result.paths['path'].tolist()}, orders priced by the engine: {result.paths['engine_orders'].tolist()}")
    best: dict[str, float] = {}
    for name, rows in figures.items():
        walls = [w for w, _ in rows]
        cpus = [c for _, c in rows]
        best[name] = min(walls)
        print(f"{name:>18}: best {min(walls):.3f} s (median {statistics.median(walls):.3f}, CPU best {min(cpus):.3f})"
              f" = {applications / min(walls):,.0f} applications/s")
    e_wall, e_cpu, e_apps = engine_seconds(sim, frame, args.engine_sample)
    engine_rate = e_apps / e_wall
    print(f"{'engine':>18}: {e_apps:,} applications in {e_wall:.3f} s (CPU {e_cpu:.3f}) = {engine_rate:,.0f} applications/s")
    for name in variants:
        print(f"ratio {name} / engine: {applications / best[name] / engine_rate:,.0f}x")
    cases = {"UNIT among 5": (scenario(every_day="camp_weekend"), UNIT_REDEEMABLES),
             "total_amount rule": (scenario(code_rules=TOTAL_AMOUNT_RULES), REDEEMABLES)}
    case_best: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, (case_sim, redeemables) in cases.items():
            case_batch = prepare_orders(case_sim, frame)
            wall, _, _ = timed(lambda s=case_sim, b=case_batch, r=redeemables: compare_stacking_policies(s, b, r, POLICIES))
            case_best[name].append(wall)
    for name, (case_sim, redeemables) in cases.items():
        result = compare_stacking_policies(case_sim, prepare_orders(case_sim, frame), redeemables, POLICIES)
        walls = case_best[name]
        print(f"{name:>18}: best {min(walls):.3f} s (median {statistics.median(walls):.3f})"
              f" = {applications / min(walls):,.0f} applications/s; paths {result.paths['path'].tolist()},"
              f" engine orders {result.paths['engine_orders'].tolist()}")
    print(f"load average after: {os.getloadavg()}")


def scenario(*, every_day: str | None = None, code_rules: dict[str, Any] | None = None) -> Simulator:
    """The demo with WELCOME-OPEN-1 scoped (`SCOPED_CODE`, its rules `code_rules` if given) and the
    campaign `every_day` running on every day of the week."""
    document = yaml.safe_load(Path("data/scenarios/demo.yaml").read_text(encoding="utf-8"))
    for campaign in document["campaigns"]:
        if campaign["id"] == every_day:
            campaign.pop("validity_day_of_week", None)
        for voucher in campaign.get("vouchers", []):
            if voucher["code"] == "WELCOME-OPEN-1":
                voucher.update(SCOPED_CODE)
                if code_rules is not None:
                    voucher["validation_rules"] = code_rules
    return Simulator.from_scenario(document)


if __name__ == "__main__":
    main()
