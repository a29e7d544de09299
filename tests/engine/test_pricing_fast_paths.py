"""The engine's fast paths give exactly the answers of the plain definitions.

Each optimisation of the hot path replaced a general computation by a cheaper
one that must agree with it: integer arithmetic for Fractions, specialised
condition predicates for the generic operators, caches keyed by a line's
identity. Each is checked here against its reference on random inputs, plus
the aliasing rule: every outcome owns its dicts (caches never leak).
"""

from __future__ import annotations

import json
from datetime import timedelta
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pricing_builders import NOW, ctx, customer, mutate_everything, tier

from promolab.engine import (
    OPERATORS,
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    compile_tier,
    normalize_order,
    outcome_wire,
    price_normalized,
    round_half_up,
    split_proportionally,
)
from promolab.engine import normalize as items_module
from promolab.engine.conditions import compile_predicates
from promolab.engine.money import half_up_ratio, parse_percent, percent_of, percent_of_each
from promolab.engine.scope import compile_scope


# --- money --------------------------------------------------------------------------------------
@given(st.integers(-(10**12), 10**12), st.integers(1, 10**9))
def test_half_up_ratio_is_round_half_up_of_the_fraction(numerator: int, denominator: int) -> None:
    assert half_up_ratio(numerator, denominator) == round_half_up(Fraction(numerator, denominator))


percents = st.one_of(
    st.integers(0, 100),
    st.sampled_from([12.5, 33.3, 0.5, 99.99, 7.25, 0.01, "12.5", "33.333"]),
)


@given(st.lists(st.integers(0, 10**9), max_size=8), percents)
def test_percent_of_is_exact_half_up(amounts: list[int], percent: Any) -> None:
    pct = parse_percent(percent)
    expected = [round_half_up(a * pct / 100) for a in amounts]
    assert [percent_of(a, pct) for a in amounts] == expected
    assert percent_of_each(amounts, pct) == expected


def _water_level(total: int, weights: list[int], caps: list[int]) -> Fraction:
    """The exact water-filling level: the λ with sum(min(cap, λ·w)) = total over
    the lines that take a share (w > 0, cap > 0), found by walking the lines in
    order of cap/w (a formulation of its own, not the engine's loop)."""
    lines = sorted((Fraction(c, w), w, c) for w, c in zip(weights, caps, strict=True) if w > 0 and c > 0)
    filled, open_weight = 0, sum(w for _, w, _ in lines)
    for ratio, w, c in lines:
        level = Fraction(total - filled, open_weight)
        if level <= ratio:
            return level
        filled += c
        open_weight -= w
    return Fraction(10**30)  # every line at its cap


SPLITS = [
    # total, weights, caps, shares (worked by hand)
    (100, [1, 1], [100, 100], [50, 50]),
    (100, [1, 1, 1], [500, 500, 500], [34, 33, 33]),  # 33.3 each, the cent left to the first largest line
    (5, [1, 1], [10, 10], [2, 3]),  # 2.5 each rounds to 3 + 3; the extra cent comes off the first largest
    (100, [1, 1, 1], [500, 600, 500], [33, 34, 33]),  # the cent to the largest line
    (5, [1, 1], [10, 20], [3, 2]),  # and the cent too many off it
    (10, [1, 2], [100, 100], [3, 7]),
    (100, [1, 3], [10, 1000], [10, 90]),  # line 0 would get 25: held at 10, the rest to line 1
    (500, [1, 1], [100, 50], [100, 50]),  # more than the lines hold
    (100, [0, 1], [100, 100], [0, 100]),  # no weight, no share
    (100, [1, 1], [0, 100], [0, 100]),  # no room, no share
    (0, [1, 1], [10, 10], [0, 0]),
    (-5, [1, 1], [10, 10], [0, 0]),
    (7, [], [], []),
]


@pytest.mark.parametrize(("total", "weights", "caps", "shares"), SPLITS)
def test_split_proportionally_worked_cases(total: int, weights: list[int], caps: list[int], shares: list[int]) -> None:
    assert split_proportionally(total, weights, caps) == shares


@settings(max_examples=400)
@given(
    st.integers(-10, 100_000),
    st.lists(st.tuples(st.integers(0, 20_000), st.integers(0, 20_000)), max_size=7),
)
def test_split_proportionally_is_water_filling_rounded_to_cents(total: int, pairs: list[tuple[int, int]]) -> None:
    weights = [w for w, _ in pairs]
    caps = [c for _, c in pairs]
    shares = split_proportionally(total, weights, caps)
    takers = [i for i, (w, c) in enumerate(pairs) if w > 0 and c > 0]
    assert all(0 <= share <= cap for share, cap in zip(shares, caps, strict=True))
    assert all(shares[i] == 0 for i in range(len(pairs)) if i not in takers)
    assert sum(shares) == min(max(total, 0), sum(caps[i] for i in takers))
    if total <= 0:
        return
    level = _water_level(total, weights, caps)
    for i in takers:
        exact = min(Fraction(caps[i]), level * weights[i])
        if exact == caps[i]:
            assert shares[i] == caps[i]  # a line the water covers is held at its cap
        else:  # each share rounded, the leftover cents (at most one per line) on the largest lines
            assert abs(shares[i] - exact) <= Fraction(len(takers) + 1, 2)


# --- condition predicates ------------------------------------------------------------------------
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 20_000),
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.sampled_from(["gold", "silver", "100", " 100 ", "1e2", "NaN", "", "go", "card", "2026-01-01T00:00:00Z"]),
    st.lists(st.sampled_from(["gold", "silver", "100", 100, 3, True]), max_size=3),
)
arguments = st.lists(
    st.one_of(
        st.integers(-5, 20_000),
        st.sampled_from(["gold", "silver", "100", "12.5", "NaN", "Infinity", "x", 12.5, 1e30, True]),
    ),
    min_size=0,
    max_size=3,
)


@settings(max_examples=1500)
@given(st.sampled_from(sorted(OPERATORS)), arguments, values)
def test_compiled_predicates_agree_with_the_generic_operators(op: str, args: list[Any], value: Any) -> None:
    (predicate,) = compile_predicates({op: args})

    def outcome(fn: Any) -> Any:
        try:
            return ("ok", fn())
        except Exception as exc:  # noqa: BLE001 - the fast path must fail exactly when the generic one does
            return ("raised", type(exc))

    assert outcome(lambda: predicate(value, NOW)) == outcome(lambda: OPERATORS[op](value, tuple(args), NOW))


# --- caches keyed by a line's identity -----------------------------------------------------------
CAT = Catalogue(
    products=[CatalogueProduct("prod_a", "a", "A", 1000), CatalogueProduct("prod_b", "b", "B", 500), CatalogueProduct("prod_c", None, "C", 300)],
    skus=[CatalogueSku("sku_a1", "a1", "A1", "prod_a", 1250)],
    collections=[CatalogueCollection("pc_ab", "AB", product_ids=frozenset({"prod_a", "prod_b"}))],
)
ENTRY_TARGETS = [
    {"object": "product", "id": "prod_a"},
    {"object": "product", "source_id": "b"},
    {"object": "sku", "id": "sku_a1", "quantity_limit": 1},
    {"object": "sku", "source_id": "a1", "amount_limit": 300},
    {"object": "products_collection", "id": "pc_ab", "aggregated_quantity_limit": 3},
]
ITEMS = [
    {"product_id": "prod_a", "quantity": 1},
    {"product_id": "prod_b", "quantity": 2},
    {"product_id": "prod_c", "quantity": 1},
    {"sku_id": "sku_a1", "quantity": 1},
    {"product_id": "prod_x", "quantity": 1, "price": 100},
    {"source_id": "b", "related_object": "product", "quantity": 1},
    {"source_id": "a1", "related_object": "sku", "quantity": 1},
]


@given(
    st.lists(st.sampled_from(range(len(ENTRY_TARGETS))), max_size=3),
    st.lists(st.sampled_from(range(len(ENTRY_TARGETS))), max_size=2),
    st.lists(st.sampled_from(ITEMS), min_size=1, max_size=6),
)
def test_scope_cache_gives_what_matching_gives(included: list[int], excluded: list[int], items: list[dict[str, Any]]) -> None:
    scope = compile_scope({
        "included": [ENTRY_TARGETS[i] for i in included],
        "excluded": [{k: v for k, v in ENTRY_TARGETS[i].items() if k in ("object", "id", "source_id")} for i in excluded],
    })
    lines = normalize_order(CAT, {"items": items}).lines
    for _ in range(2):  # cold, then from the cache
        for line in lines:
            assert scope.line_scope(line) == scope._match(line)
        assert scope.eligible(lines) == [
            (i, found.entries) for i, line in enumerate(lines) if (found := scope._match(line)) is not None
        ]


def test_caches_are_bounded() -> None:
    cat = Catalogue(products=[CatalogueProduct("prod_a", "a", "A", 1000)])
    scope = compile_scope({"included": [{"object": "product", "id": "prod_a"}]})
    limit = items_module._CACHE_LIMIT
    for k in range(limit + 10):
        order = normalize_order(cat, {"items": [{"product_id": f"prod_new_{k}", "quantity": 1, "price": 1}]})
        scope.line_scope(order.lines[0])
    assert len(cat._resolved_items) <= limit
    assert len(scope._lines) <= limit


def test_same_product_and_sku_ids_resolve_the_same_in_every_request() -> None:
    first = normalize_order(CAT, {"items": ITEMS})
    second = normalize_order(CAT, {"items": ITEMS})
    assert first == second


# --- outcomes own their dicts ---------------------------------------------------------------------
SCOPED = {"included": [{"object": "products_collection", "id": "pc_ab", "quantity_limit": 2}],
          "excluded": [{"object": "product", "id": "prod_c"}]}


def test_every_outcome_gets_fresh_objects() -> None:
    """The engine caches wire parts per tier and item templates per line: a
    caller mutating what it received must not change the next answers."""
    from promolab.engine import CampaignInfo

    specs = [
        tier({"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS"}, applicable_to=SCOPED,
             campaign=CampaignInfo(id="camp_1", categories=({"id": "cat_1", "name": "C", "hierarchy": 0},))),
        tier({"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": [
            {"effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "sku_a1"},
            {"effect": "ADD_MISSING_ITEMS", "unit_off": 2, "unit_type": "prod_b"}]}),
        tier({"type": "PERCENT", "percent_off": 10}),
    ]
    # (flat metadata: the order's metadata is a shallow copy of the request's, as
    # it always was; nested values stay the caller's own)
    order_in = {"items": ITEMS, "metadata": {"channel": "app"}}
    context = ctx(expand=frozenset({"category"}), now=NOW + timedelta(hours=1))
    for spec in specs:
        compiled = compile_tier(spec)
        order = normalize_order(CAT, order_in)
        first = price_normalized(CAT, compiled, order, None, context)
        snapshot = outcome_wire(first)
        for _ in range(3):  # the first, second and templated renderings of the shared pricing
            wire = outcome_wire(first)
            mutate_everything([wire.order, wire.applicable_to, wire.inapplicable_to, wire.discount, wire.campaign])
        again = price_normalized(CAT, compiled, order, None, context)
        assert again == first and outcome_wire(again) == snapshot
        fresh_order = price_normalized(CAT, compiled, normalize_order(CAT, order_in), None, context)
        assert outcome_wire(fresh_order) == snapshot


def _order_of(lines: list[tuple[str, int]]) -> dict[str, Any]:
    """An order body from (product or SKU id, quantity) pairs."""
    return {
        "items": [
            {"sku_id": i, "quantity": q} if i.startswith("sku") else {"product_id": i, "quantity": q}
            for i, q in lines
        ]
    }


# --- wire parts rendered late ----------------------------------------------------------------------------
_LAZY_TIERS = [
    tier({"type": "AMOUNT", "amount_off": 700, "effect": "APPLY_TO_ORDER"}),
    tier({"type": "PERCENT", "percent_off": 12.5, "effect": "APPLY_TO_ITEMS"}),
    tier({"type": "AMOUNT", "amount_off": 900, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"}),
    tier({"type": "FIXED", "fixed_amount": 300, "effect": "APPLY_TO_ITEMS"}),
    tier({"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 2, "unit_type": "prod_a"}),
    tier({"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 1, "unit_type": "prod_5h1pp1ng"}),
]


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(
        st.tuples(st.sampled_from(["prod_a", "prod_b", "prod_c", "sku_a1"]), st.integers(1, 5)),
        min_size=1,
        max_size=5,
    ),
    order_of_reads=st.permutations(range(len(_LAZY_TIERS))),
)
def test_wire_parts_built_late_equal_parts_built_at_once(
    lines: list[tuple[str, int]], order_of_reads: list[int]
) -> None:
    """An outcome's order and lists are rendered when asked for, possibly
    after other tiers of the same request were priced and rendered (the
    shared pricing's template then serves): they must be what rendering them
    at once gives, and the computed total must match the order's."""
    order_in = _order_of(lines)
    compiled = [compile_tier(t) for t in _LAZY_TIERS]
    at_once = []
    for c in compiled:
        wire = outcome_wire(price_normalized(CAT, c, normalize_order(CAT, order_in), None, ctx()))
        at_once.append((wire.order, wire.applicable_to, wire.discount, wire.campaign))
    shared = normalize_order(CAT, order_in)
    late = [price_normalized(CAT, c, shared, None, ctx()) for c in compiled]
    for k in order_of_reads:
        outcome = late[k]
        wire = outcome_wire(outcome)
        assert (wire.order, wire.applicable_to, wire.discount, wire.campaign) == at_once[k]
        assert wire.order is not None and outcome.total_amount == wire.order["total_amount"]
        again = outcome_wire(outcome)
        assert again == wire and again.order is not wire.order  # each rendering is the caller's own


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.tuples(st.sampled_from(["prod_a", "prod_b", "prod_c", "sku_a1"]), st.integers(1, 6)),
        min_size=1,
        max_size=6,
    ),
    discount=st.sampled_from([
        {"type": "AMOUNT", "amount_off": 400, "effect": "APPLY_TO_ITEMS"},
        {"type": "AMOUNT", "amount_off": 150, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"},
        {"type": "AMOUNT", "amount_off": 2000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"},
        {"type": "PERCENT", "percent_off": 33.3, "effect": "APPLY_TO_ITEMS"},
        {"type": "FIXED", "fixed_amount": 250, "effect": "APPLY_TO_ITEMS"},
    ]),
    scoped=st.booleans(),
)
def test_lines_without_budgets_equal_the_budgeted_path(
    lines: list[tuple[str, int]], discount: dict[str, Any], scoped: bool
) -> None:
    """Without any aggregated limit, line discounts skip the budget loop; a
    budget that can never bind takes the loop and must give the same lines."""
    order_in = _order_of(lines)
    scope = {"included": ENTRY_TARGETS[:2] + [{"object": "sku", "id": "sku_a1", "amount_limit": 300}]}
    plain = tier(discount, applicable_to=scope if scoped else None)
    budgeted = tier({**discount, "aggregated_amount_limit": 10**12}, applicable_to=scope if scoped else None)
    fast = price_normalized(CAT, compile_tier(plain), normalize_order(CAT, order_in), None, ctx())
    loop = price_normalized(CAT, compile_tier(budgeted), normalize_order(CAT, order_in), None, ctx())
    assert outcome_wire(fast).order is not None and outcome_wire(loop).order is not None
    assert outcome_wire(fast).order == outcome_wire(loop).order
    assert fast.total_amount == loop.total_amount


# --- per-request memos and interning ------------------------------------------------------------
_SHARED_RULES = {
    "rules": {
        "1": {"name": "customer.metadata", "property": "tier", "conditions": {"$is": ["gold"]}},
        "2": {"name": "redemption.metadata", "property": "store", "conditions": {"$is": ["web"]}},
        "3": {"name": "order.amount", "conditions": {"$more_than": [1500]}},
        "logic": "1 and 2 and 3",
    }
}


@pytest.mark.parametrize(
    ("who", "store", "valid", "reason_key"),
    [
        ("gold", "web", True, None),
        ("silver", "web", False, "customer_rules_violated"),
        ("gold", "shop", False, "redemption_rules_violated"),
        (None, "web", False, "customer_rules_violated"),
    ],
)
def test_shared_rule_verdicts_follow_the_customer_and_metadata(
    who: str | None, store: str, valid: bool, reason_key: str | None
) -> None:
    """Rule verdicts are shared by the tiers of a request through the order's
    memo; pricing the SAME normalized order for another customer or other
    redemption metadata must not reuse them."""
    order = normalize_order(CAT, {"items": [{"product_id": "prod_a", "quantity": 2}]})
    first, second = (
        compile_tier(tier({"type": "AMOUNT", "amount_off": off}, id=f"promo_{off}",
                          rules=_SHARED_RULES))
        for off in (100, 200)
    )
    contexts = {store_value: ctx(redemption_metadata={"store": store_value}) for store_value in ("web", "shop")}
    people = {name: customer(id="c", metadata={"tier": name}) for name in ("gold", "silver")}
    people[None] = None  # type: ignore[assignment]
    # warm the memo with every other verdict first, reusing the same objects
    for other in ("gold", "silver", None):
        for other_store in ("web", "shop"):
            price_normalized(CAT, first, order, people[other], contexts[other_store])
    for compiled in (first, second):
        outcome = price_normalized(CAT, compiled, order, people[who], contexts[store])
        assert (outcome.valid, outcome.reason_key) == (valid, reason_key)
    # and in the opposite order: the wanted verdict first, then the others
    fresh = normalize_order(CAT, {"items": [{"product_id": "prod_a", "quantity": 2}]})
    assert price_normalized(CAT, first, fresh, people[who], contexts[store]).valid is valid
    for other in ("gold", "silver", None):
        for other_store in ("web", "shop"):
            expected = other == "gold" and other_store == "web"
            assert price_normalized(CAT, second, fresh, people[other], contexts[other_store]).valid is expected


def test_equal_scopes_and_rules_are_compiled_once() -> None:
    scope = {"included": [{"object": "product", "id": "prod_a", "quantity_limit": 1}]}
    a = compile_tier(tier({"type": "AMOUNT", "amount_off": 100}, applicable_to=scope, rules=_SHARED_RULES))
    b = compile_tier(tier({"type": "PERCENT", "percent_off": 10}, applicable_to=json_copy(scope), rules=json_copy(_SHARED_RULES)))
    assert a.scope is b.scope
    assert a.rules.full is not None and b.rules.full is not None
    other = compile_tier(tier({"type": "AMOUNT", "amount_off": 100},
                              applicable_to={"included": [{"object": "product", "id": "prod_b"}]}))
    assert other.scope is not a.scope


def json_copy(value: Any) -> Any:
    return json.loads(json.dumps(value))
