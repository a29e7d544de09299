"""The per-request engine as the reference of the stacking-policy comparison, and random stacks."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from promolab.analysis.stacking_policies import StackingComparison
from promolab.analysis.stacking_policies.api import price_group
from promolab.analysis.stacking_policies.reason_table import ReasonTable
from promolab.analysis.sweep import OrderBatch
from promolab.engine import (
    Catalogue,
    PricingContext,
    RuleFailure,
    StackCategory,
    StackEntry,
    compile_tier,
    evaluate_stack,
    normalize_order,
    stack_order,
)
from promolab.models import StackingRules

from .support import random_tier

CATEGORIES = ["cat_a", "cat_b", "cat_c", "cat_d"]


def engine_rows(batch: OrderBatch, entries: Sequence[StackEntry], rules: Mapping[str, StackingRules],
                catalogue: Catalogue, ctx: PricingContext) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(per order and policy, per order, policy and redeemable) rows, as `evaluate_stack` answers."""
    orders, redeemables = [], []
    for i, order_id in enumerate(batch.order_ids):
        customer = batch.customer_context(i)
        order = normalize_order(catalogue, {"items": batch.items(i)}, customer.id if customer else None)
        for name, policy in rules.items():
            result = evaluate_stack(list(entries), order, customer, ctx, policy, catalogue=catalogue)
            total = stack_order(result)["total_amount"]  # free units (UNIT) raise the amount and are taken off
            orders.append((order_id, name, result.valid, len(result.applicable), order.amount, result.discount, total))
            for r in result.redeemables:
                redeemables.append((order_id, name, r.entry.position, r.entry.object, r.entry.id, r.status,
                                    r.applied, r.reason_key, r.reason, r.why))
    return orders, redeemables


def plain(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """Rows as Python values (NA -> None) for an exact comparison."""
    def value(v: Any) -> Any:
        if v is pd.NA or v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        return v.item() if hasattr(v, "item") else v
    return [tuple(value(v) for v in row) for row in frame.astype(object).itertuples(index=False)]


def assert_same(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]], what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} rows, engine {len(want)}"
    diffs = [(g, w) for g, w in zip(got, want) if g != w]
    assert not diffs, f"{what}: {len(diffs)} differences, first: numpy {diffs[0][0]} engine {diffs[0][1]}"


def compare_entries(batch: OrderBatch, entries: Sequence[StackEntry], rules: Mapping[str, StackingRules],
                    catalogue: Catalogue, ctx: PricingContext, chunk_size: int = 4096) -> StackingComparison:
    table = ReasonTable()
    group = price_group(batch, entries, rules, catalogue, ctx, table, chunk_size=chunk_size)
    return StackingComparison(batch.order_ids, tuple(rules), [group], table)


def assert_equals_engine(batch: OrderBatch, entries: Sequence[StackEntry], rules: Mapping[str, StackingRules],
                         catalogue: Catalogue, ctx: PricingContext, chunk_size: int = 4096) -> StackingComparison:
    """Every cell of both frames equals the engine's answer; returns the comparison."""
    result = compare_entries(batch, entries, rules, catalogue, ctx, chunk_size)
    want_orders, want_redeemables = engine_rows(batch, entries, rules, catalogue, ctx)
    assert_same(plain(result.orders), want_orders, "orders")
    assert_same(plain(result.redeemables), want_redeemables, "redeemables")
    return result


# -- random stacks -------------------------------------------------------------------------------
def random_categories(rng: np.random.Generator) -> tuple[StackCategory, ...]:
    n = int(rng.choice([0, 1, 1, 1, 2]))
    picked = rng.choice(len(CATEGORIES), size=n, replace=False)
    return tuple(StackCategory(CATEGORIES[int(k)], int(rng.integers(0, 4))) for k in picked)


def random_entries(rng: np.random.Generator, n: int, seed_index: int = 0) -> list[StackEntry]:
    """Discounts (random tiers), gift credits, and now and then a refused one, with random categories."""
    out = []
    for position in range(n):
        categories = random_categories(rng)
        pick = rng.random()
        if pick < 0.15:
            out.append(StackEntry(position, "voucher", f"GIFT-{position}", gift_credits=int(rng.integers(0, 6000)),
                                  categories=categories))
        elif pick < 0.2:
            out.append(StackEntry(position, "voucher", f"GONE-{position}", categories=categories,
                                  refusal=RuleFailure("quantity_exceeded", "voucher's redemptions limit has been exceeded")))
        else:
            tier = compile_tier(random_tier(rng, seed_index * 100 + position))
            obj = "promotion_tier" if rng.random() < 0.5 else "voucher"
            out.append(StackEntry(position, obj, tier.id, discount=tier, categories=categories))
    return out


def random_rules(rng: np.random.Generator) -> StackingRules:
    """A valid `StackingRules` with every setting drawn."""
    cats = list(CATEGORIES)
    rng.shuffle(cats)
    split = rng.integers(0, 3, size=len(cats))  # 0 neither, 1 exclusive, 2 joint
    limit = int(rng.integers(1, 6))
    per_category = None if rng.random() < 0.3 else int(rng.integers(1, limit + 1))
    modes = rng.integers(0, 3, size=len(cats))
    skips = rng.integers(0, 3, size=len(cats))
    return StackingRules(
        exclusive_categories=[c for c, s in zip(cats, split) if s == 1],
        joint_categories=[c for c, s in zip(cats, split) if s == 2],
        applicable_redeemables_limit=limit,
        applicable_redeemables_per_category_limit=per_category,
        applicable_redeemables_category_limits={c: int(rng.integers(1, 3)) for c in cats if rng.random() < 0.25},
        applicable_exclusive_redeemables_limit=int(rng.integers(1, 3)),
        applicable_exclusive_redeemables_per_category_limit=None if rng.random() < 0.3 else int(rng.integers(1, 3)),
        discount_calculation_mode=str(rng.choice(["DISCOUNTED_AMOUNT", "INITIAL_AMOUNT"])),
        initial_amount_mode_categories=[c for c, m in zip(cats, modes) if m == 1],
        discounted_amount_mode_categories=[c for c, m in zip(cats, modes) if m == 2],
        redeemables_application_mode=str(rng.choice(["ALL", "PARTIAL"])),
        redeemables_sorting_rule=str(rng.choice(["REQUESTED_ORDER", "CATEGORY_HIERARCHY"])),
        redeemables_products_application_mode=str(rng.choice(["STACK", "ONCE"])),
        redeemables_no_effect_rule=str(rng.choice(["REDEEM_ANYWAY", "SKIP"])),
        no_effect_skip_categories=[c for c, m in zip(cats, skips) if m == 1],
        no_effect_redeem_anyway_categories=[c for c, m in zip(cats, skips) if m == 2],
    )
