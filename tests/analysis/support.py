"""Random orders and tiers for the differential tests, and the engine as reference."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from promolab.engine import (
    CampaignInfo,
    CompiledTier,
    PricingContext,
    TierSpec,
    compile_tier,
    normalize_order,
    price_normalized,
)
from promolab.sim.promotions import customer_context, pricing_view

KEYS = [
    ("prod_beans_ethiopia", None), (None, "sku_ethiopia_250"), (None, "sku_ethiopia_1000"),
    ("prod_beans_ethiopia", "sku_ethiopia_1000"), ("prod_beans_colombia", None), (None, "sku_colombia_250"),
    (None, "sku_colombia_1000"), ("prod_espresso_blend", None), ("prod_mug", None), ("prod_tote", None),
    ("prod_grinder", None), ("prod_kettle", None), ("prod_filters", None), ("prod_5h1pp1ng", None),
    ("prod_unknown", None),
]
CUSTOMERS = [None, None, "alice", "bob", "carol", "dave", "erin", "frank", "stranger"]


def random_orders(n: int, seed: int, *, prices: bool = True) -> pd.DataFrame:
    """Line items over the demo catalogue: 1-6 lines, quantities 1-4, some own prices."""
    rng = np.random.default_rng(seed)
    lines = rng.integers(1, 7, size=n)
    order = np.repeat(np.arange(n), lines)
    size = order.size
    pick = rng.integers(0, len(KEYS), size=size)
    unknown = np.array([KEYS[k][0] == "prod_unknown" for k in pick])
    own = unknown | (rng.random(size) < (0.15 if prices else 0.0))
    price = pd.array(rng.integers(0, 12000, size=size), dtype="Int64")
    price[rng.random(size) < 0.03] = 0
    price[~own] = pd.NA
    who = rng.integers(0, len(CUSTOMERS), size=n)
    return pd.DataFrame({
        "order_id": order + 1000,
        "product_id": pd.array([KEYS[k][0] for k in pick], dtype="string"),
        "sku_id": pd.array([KEYS[k][1] for k in pick], dtype="string"),
        "quantity": rng.integers(1, 5, size=size),
        "price": price,
        "customer_source_id": pd.array([CUSTOMERS[w] for w in who[order]], dtype="string"),
    })


def engine_rows(sim: Any, frame: pd.DataFrame, tiers: Sequence[CompiledTier], now: datetime,
                metadata: dict[str, Any] | None = None) -> pd.DataFrame:
    """The per-request engine on every (order, tier): the reference of the sweep."""
    ctx = PricingContext(now=now, redemption_metadata=metadata or {})
    return _engine_rows(sim, frame, tiers, lambda i, request: ctx)


def _engine_rows(sim: Any, frame: pd.DataFrame, tiers: Sequence[CompiledTier],
                 context: Callable[[int, dict[str, Any]], PricingContext]) -> pd.DataFrame:
    """Every (order, tier) priced by the engine, order i in `context(i, request)`."""
    from promolab.analysis import orders_from_frame

    view = pricing_view(sim)
    rows = []
    for i, (order_id, request) in enumerate(orders_from_frame(frame).items()):
        ctx = context(i, request)
        customer, _ = customer_context(sim, view, request.get("customer"))
        order = normalize_order(view.catalogue, request["order"], customer.id if customer else None)
        for tier in tiers:
            out = price_normalized(view.catalogue, tier, order, customer, ctx)
            rows.append((
                order_id, tier.id, out.valid,
                (out.discount_amount if out.valid else 0),
                out.total_amount if out.valid else order.amount,
                out.reason_key,
            ))
    # object columns: amounts stay Python ints (a float column would round those past 2**53)
    return pd.DataFrame(rows, columns=["order_id", "tier_id", "valid", "discount_amount", "total_amount",
                                       "reason_key"], dtype=object)


def assert_same_rows(result: pd.DataFrame, reference: pd.DataFrame) -> None:
    """The sweep's frame has exactly the engine's rows (to the cent, reasons included)."""
    got, want = as_plain(result), as_plain(reference)
    assert len(got) == len(want)
    diffs = [(g, w) for g, w in zip(got, want) if g != w]
    assert not diffs, f"{len(diffs)} differences, first: sweep {diffs[0][0]} engine {diffs[0][1]}"


def as_plain(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """Rows as Python tuples (NA -> None) for an exact comparison."""
    out = []
    for row in frame[["order_id", "tier_id", "valid", "discount_amount", "total_amount", "reason_key"]].itertuples(
        index=False
    ):
        out.append(tuple(None if (v is pd.NA or (isinstance(v, float) and math.isnan(v))) else
                         (v.item() if hasattr(v, "item") else v) for v in row))
    return out


# -- random tiers -------------------------------------------------------------------------------
PRODUCTS = ["prod_beans_ethiopia", "prod_beans_colombia", "prod_espresso_blend", "prod_mug", "prod_tote",
            "prod_grinder", "prod_kettle", "prod_filters", "prod_unknown"]
SKUS = ["sku_ethiopia_250", "sku_ethiopia_1000", "sku_colombia_250", "sku_colombia_1000"]
COLLECTIONS = ["pc_beans", "pc_gear", "pc_merch"]
PERCENTS = [0, 5, 10, 12.5, 15, "33.333", 50, 99.99, 100]


def _maybe(rng: np.random.Generator, p: float, value: Any) -> Any:
    return value if rng.random() < p else None


def _entry(rng: np.random.Generator, fixed: bool) -> dict[str, Any]:
    kind = rng.integers(0, 3)
    if kind == 0:
        entry: dict[str, Any] = {"object": "product", "id": str(rng.choice(PRODUCTS))}
    elif kind == 1:
        entry = {"object": "sku", "id": str(rng.choice(SKUS))}
    else:
        entry = {"object": "products_collection", "id": str(rng.choice(COLLECTIONS))}
    for cap, high in (("quantity_limit", 4), ("aggregated_quantity_limit", 8), ("amount_limit", 4000),
                      ("aggregated_amount_limit", 9000)):
        value = _maybe(rng, 0.25, int(rng.integers(0, high)))
        if value is not None:
            entry[cap] = value
    if fixed and rng.random() < 0.6:
        entry["price"] = int(rng.integers(0, 3000))
    return {k: v for k, v in entry.items() if v is not None}


def _rule(rng: np.random.Generator) -> dict[str, Any]:
    pick = int(rng.integers(0, 17))
    if pick == 0:
        return {"name": "order.amount", "conditions": {"$more_than": [int(rng.integers(0, 20000))]}}
    if pick == 1:
        return {"name": "order.amount", "conditions": {"$less_than_or_equal": ["15000.5"], "$more_than_or_equal": [1000]}}
    if pick == 2:
        return {"name": "order.items.count", "conditions": {"$more_than_or_equal": [int(rng.integers(1, 5))]}}
    if pick == 3:
        return {"name": "order.items.quantity", "conditions": {"$is": [int(rng.integers(1, 12)), "7"]}}
    if pick == 4:
        op = str(rng.choice(["$in", "$not_in"]))
        return {"name": "products_collection.id", "conditions": {op: [str(rng.choice(COLLECTIONS))]}}
    if pick == 5:
        return {"name": "product.id", "conditions": {str(rng.choice(["$in", "$is_not"])): [str(rng.choice(PRODUCTS))]}}
    if pick == 6:
        return {"name": "sku.id", "conditions": {"$is": str(rng.choice(SKUS))}}
    if pick == 7:
        fam = str(rng.choice(["order.items.any", "order.items.every", "order.items.none"]))
        target = str(rng.choice(PRODUCTS + SKUS + COLLECTIONS))
        rule: dict[str, Any] = {"name": fam, "conditions": {str(rng.choice(["$in", "$not_in"])): [target]}}
        if rng.random() < 0.5:
            subs = [
                {"name": "product.aggregated_quantity", "conditions": {"$more_than": [int(rng.integers(0, 6))]}},
                {"name": "product.aggregated_amount", "conditions": {"$less_than": [int(rng.integers(0, 30000))]}},
                {"name": "product.price", "conditions": {"$more_than": [int(rng.integers(0, 6000))]}},
                {"name": "product.quantity", "conditions": {"$more_than_or_equal": [int(rng.integers(1, 5))]}},
                {"name": "product.amount", "conditions": {"$less_than": [int(rng.integers(0, 10000))]}},
                {"name": "product.metadata", "property": "roast", "conditions": {"$is": ["dark", "light"]}},
                {"name": "product.discount_applicable", "conditions": {}},
            ]
            chosen = rng.choice(len(subs), size=int(rng.integers(1, 3)), replace=False)
            rule["rules"] = {str(i + 1): subs[c] for i, c in enumerate(chosen)}
            if len(chosen) == 2 and rng.random() < 0.5:
                rule["rules"]["logic"] = "1 or 2"
        return rule
    if pick == 8:
        return {"name": "customer.metadata", "property": "tier", "conditions": {"$in": ["gold", "silver"]}}
    if pick == 9:
        return {"name": "customer.segment", "conditions": {str(rng.choice(["$in", "$not_in"])): ["seg_vip"]}}
    if pick == 10:
        return {"name": "order.items.price_any", "conditions": {"$more_than": [int(rng.integers(0, 8000))]}}
    if pick == 11:
        return {"name": "order.items.price_each", "conditions": {"$less_than": [int(rng.integers(500, 9000))]}}
    if pick == 12:
        return {"name": "order.items.metadata", "property": "origin", "conditions": {"$is": ["Ethiopia"]}}
    if pick == 13:
        return {"name": "redemption.metadata", "property": "channel", "conditions": {"$is": ["app"]}}
    if pick == 14:
        return {"name": "order.amount", "conditions": {"$starts_with": ["1"]}}
    if pick == 15:
        return {"name": "customer.metadata", "property": "orders", "conditions": {"$more_than": [3]}}
    return {"name": "order.initial_amount", "conditions": {"$less_than": [int(rng.integers(2000, 40000))]}}


LOGICS = {1: ["1", "not 1"], 2: ["1 and 2", "1 or 2", "not 1 or 2"], 3: ["1 and (2 or 3)", "(1 or 2) and not 3", "1 or 2 or 3"]}


def random_tier(rng: np.random.Generator, index: int) -> TierSpec:
    kind = str(rng.choice(["AMOUNT", "AMOUNT", "PERCENT", "PERCENT", "FIXED", "UNIT"]))
    effects = {
        "AMOUNT": ["APPLY_TO_ORDER", "APPLY_TO_ITEMS", "APPLY_TO_ITEMS_PROPORTIONALLY",
                   "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY", "APPLY_TO_ITEMS_BY_QUANTITY"],
        "PERCENT": ["APPLY_TO_ORDER", "APPLY_TO_ITEMS"],
        "FIXED": ["APPLY_TO_ORDER", "APPLY_TO_ITEMS"],
        "UNIT": ["ADD_MISSING_ITEMS", "ADD_NEW_ITEMS", "ADD_MANY_ITEMS"],
    }[kind]
    effect = str(rng.choice(effects))
    discount: dict[str, Any] = {"type": kind, "effect": effect}
    if kind == "AMOUNT":
        discount["amount_off"] = int(rng.choice([0, 1, 99, 333, 500, 1000, 2500, 7777, 50000]))
    elif kind == "PERCENT":
        discount["percent_off"] = PERCENTS[int(rng.integers(0, len(PERCENTS)))]
        if rng.random() < 0.4:
            discount["amount_limit"] = int(rng.integers(0, 5000))
    elif kind == "FIXED":
        discount["fixed_amount"] = int(rng.integers(0, 20000))
    else:
        targets = PRODUCTS[:-1] + SKUS + ["prod_5h1pp1ng"]
        if effect == "ADD_MANY_ITEMS":
            discount["units"] = [
                {"effect": str(rng.choice(["ADD_MISSING_ITEMS", "ADD_NEW_ITEMS"])), "unit_off": int(rng.integers(0, 3)),
                 "unit_type": str(rng.choice(targets))} for _ in range(int(rng.integers(1, 3)))
            ]
        else:
            discount["unit_off"] = int(rng.integers(0, 4))
            discount["unit_type"] = str(rng.choice(targets))
    if kind != "UNIT" and effect != "APPLY_TO_ORDER" and rng.random() < 0.35:
        discount["aggregated_amount_limit"] = int(rng.integers(0, 8000))
    applicable_to = None
    if kind != "UNIT" and effect != "APPLY_TO_ORDER" or rng.random() < 0.2:
        included = [_entry(rng, kind == "FIXED") for _ in range(int(rng.integers(0, 4)))]
        excluded = [_entry(rng, False) for _ in range(int(rng.integers(0, 2)))] if rng.random() < 0.3 else []
        applicable_to = {"included": included, "excluded": excluded}
    rules = None
    n_rules = int(rng.integers(0, 4))
    if n_rules:
        body: dict[str, Any] = {str(i + 1): _rule(rng) for i in range(n_rules)}
        body["logic"] = str(rng.choice(LOGICS[n_rules]))
        rules = {"rules": body}
    campaign = CampaignInfo(
        id=f"camp_rand_{index % 4}",
        active=bool(rng.random() < 0.95),
        validity_day_of_week=[5, 6] if rng.random() < 0.1 else None,
    )
    return TierSpec(id=f"promo_rand_{index}", campaign=campaign, discount=discount, name=f"random {index}",
                    rules=rules, applicable_to=applicable_to)


def random_tiers(n: int, seed: int) -> list[CompiledTier]:
    rng = np.random.default_rng(seed)
    return [compile_tier(random_tier(rng, i)) for i in range(n)]


# -- dated orders (time-aware sweep) ------------------------------------------------------------
CHANNELS = ["app", "web", "store", None]


def date_orders(frame: pd.DataFrame, instants: Sequence[Any], *, seed: int = 0,
                channels: bool = True) -> pd.DataFrame:
    """`frame` with a `placed_at` (per order, cycling through `instants`: strings or
    aware datetimes, kept as given) and, optionally, a `channel` column."""
    out = frame.copy()
    codes, _ = pd.factorize(out["order_id"])
    values = np.empty(len(instants), dtype=object)
    values[:] = list(instants)
    out["placed_at"] = pd.Series(values[codes % len(instants)], index=out.index, dtype=object)
    if channels:
        rng = np.random.default_rng(seed)
        pick = rng.integers(0, len(CHANNELS), size=codes.max() + 1 if len(codes) else 0)
        out["channel"] = pd.array([CHANNELS[k] for k in pick[codes]], dtype="string")
    return out


def engine_rows_dated(sim: Any, frame: pd.DataFrame, tiers: Sequence[CompiledTier],
                      metadata: dict[str, Any] | None = None) -> pd.DataFrame:
    """The per-request engine on every (order, tier), each order at its own `placed_at`
    (a UTC datetime, as the simulator's clock would show it) with its own request
    metadata over `metadata`: the reference of the dated sweep."""
    from promolab.analysis.orders import line_columns

    cols = line_columns(frame)

    def context(i: int, request: dict[str, Any]) -> PricingContext:
        now = cols.placed_at_of(i)
        assert now is not None
        return PricingContext(now=now, redemption_metadata={**(metadata or {}), **request.get("metadata", {})})

    return _engine_rows(sim, frame, tiers, context)
