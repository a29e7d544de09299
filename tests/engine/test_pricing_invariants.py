"""Hypothesis invariants over random carts and tiers."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pricing_builders import ctx, tier

from promolab.engine import (
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    compile_tier,
    normalize_order,
    outcome_wire,
    price_normalized,
)

CAT = Catalogue(
    products=[
        CatalogueProduct("prod_a", "a", "A", 1000),
        CatalogueProduct("prod_b", "b", "B", 1999),
        CatalogueProduct("prod_c", "c", "C", 5),
        CatalogueProduct("prod_d", "d", "D", None),
        CatalogueProduct("prod_5h1pp1ng", "5h1pp1ng", "Shipping", None),
    ],
    skus=[CatalogueSku("sku_a1", "a1", "A1", "prod_a", 1250), CatalogueSku("sku_b1", "b1", "B1", "prod_b", None)],
    collections=[
        CatalogueCollection("pc_ab", "AB", product_ids=frozenset({"prod_a", "prod_b"})),
        CatalogueCollection("pc_sku", "sku", sku_ids=frozenset({"sku_a1"})),
    ],
)
IDS = ["prod_a", "prod_b", "prod_c", "sku_a1", "sku_b1"]
SCOPE_TARGETS = [
    ("product", "prod_a"),
    ("product", "prod_b"),
    ("product", "prod_c"),
    ("sku", "sku_a1"),
    ("products_collection", "pc_ab"),
    ("products_collection", "pc_sku"),
]

cents = st.integers(min_value=0, max_value=50_000)
small = st.integers(min_value=0, max_value=12)


@st.composite
def items(draw: st.DrawFn) -> dict[str, Any]:
    ident = draw(st.sampled_from(IDS + ["prod_new"]))
    item: dict[str, Any] = {"sku_id" if ident.startswith("sku_") else "product_id": ident}
    item["quantity"] = draw(st.one_of(small, small.map(str)))
    if ident == "prod_new" or draw(st.booleans()):
        item["price"] = draw(cents)
    if draw(st.integers(0, 5)) == 0:
        item["amount"] = draw(cents)
    return item


@st.composite
def orders(draw: st.DrawFn) -> dict[str, Any]:
    order: dict[str, Any] = {"items": draw(st.lists(items(), max_size=6))}
    if draw(st.integers(0, 4)) == 0:
        order["amount"] = draw(cents)
    return order


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    obj, ident = draw(st.sampled_from(SCOPE_TARGETS))
    entry: dict[str, Any] = {"object": obj, "id": ident}
    for cap in (
        "quantity_limit",
        "aggregated_quantity_limit",
        "amount_limit",
        "aggregated_amount_limit",
        "price",
    ):
        if draw(st.integers(0, 3)) == 0:
            entry[cap] = draw(small if "quantity" in cap else cents)
    return entry


@st.composite
def discounts(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["AMOUNT", "PERCENT", "FIXED", "UNIT"]))
    if kind == "AMOUNT":
        d = {
            "type": kind,
            "amount_off": draw(cents),
            "effect": draw(
                st.sampled_from(
                    [
                        "APPLY_TO_ORDER",
                        "APPLY_TO_ITEMS",
                        "APPLY_TO_ITEMS_PROPORTIONALLY",
                        "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY",
                        "APPLY_TO_ITEMS_BY_QUANTITY",
                    ]
                )
            ),
        }
    elif kind == "PERCENT":
        pct = draw(st.one_of(st.integers(0, 100), st.sampled_from([12.5, 33.3, 0.5, 99.99])))
        d = {
            "type": kind,
            "percent_off": pct,
            "effect": draw(st.sampled_from(["APPLY_TO_ORDER", "APPLY_TO_ITEMS"])),
        }
        if draw(st.booleans()):
            d["amount_limit"] = draw(cents)
    elif kind == "FIXED":
        d = {
            "type": kind,
            "fixed_amount": draw(cents),
            "effect": draw(st.sampled_from(["APPLY_TO_ORDER", "APPLY_TO_ITEMS"])),
        }
    else:
        unit = st.fixed_dictionaries(
            {
                "effect": st.sampled_from(["ADD_MISSING_ITEMS", "ADD_NEW_ITEMS"]),
                "unit_off": small,
                "unit_type": st.sampled_from(IDS + ["prod_d", "prod_5h1pp1ng", "prod_unknown"]),
            }
        )
        if draw(st.booleans()):
            d = {"type": "UNIT", **draw(unit)}
        else:
            d = {
                "type": "UNIT",
                "effect": "ADD_MANY_ITEMS",
                "units": draw(st.lists(unit, min_size=1, max_size=3)),
            }
    if kind in ("AMOUNT", "PERCENT") and d["effect"] != "APPLY_TO_ORDER" and draw(st.booleans()):
        d["aggregated_amount_limit"] = draw(cents)
    return d


@st.composite
def tiers(draw: st.DrawFn):  # type: ignore[no-untyped-def]
    applicable_to = None
    if draw(st.booleans()):
        applicable_to = {
            "included": draw(st.lists(entries(), max_size=3)),
            "excluded": draw(
                st.lists(
                    entries().map(lambda e: {"object": e["object"], "id": e["id"]}), max_size=1
                )
            ),
        }
    return tier(draw(discounts()), applicable_to=applicable_to)


def _ints(d: dict[str, Any], keys: tuple[str, ...]) -> list[int]:
    return [d[k] for k in keys if k in d]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order_in=orders(), spec=tiers())
def test_amount_invariants(order_in: dict[str, Any], spec: Any) -> None:
    compiled = compile_tier(spec)
    normalized = normalize_order(CAT, order_in)
    outcome = price_normalized(CAT, compiled, normalized, None, ctx())
    assert outcome.valid
    order = outcome_wire(outcome).order
    assert order is not None

    items_d = order.get("items_discount_amount", 0)
    order_d = order.get("discount_amount", 0)
    total_d = order.get("total_discount_amount", 0)
    line_d = [i.get("discount_amount", 0) for i in order["items"]]
    assert sum(line_d) == items_d
    assert total_d == order_d + items_d
    assert order["total_amount"] == order["amount"] - total_d
    assert order_d <= order["amount"]
    assert order.get("applied_discount_amount", 0) == order_d
    assert order.get("items_applied_discount_amount", 0) == items_d
    assert order.get("total_applied_discount_amount", 0) == total_d
    # presence policy: present iff non-zero
    for key, value in (
        ("discount_amount", order_d),
        ("items_discount_amount", items_d),
        ("total_discount_amount", total_d),
    ):
        assert (key in order) == (value > 0)
    # nothing negative
    money = (
        "amount",
        "initial_amount",
        "discount_amount",
        "items_discount_amount",
        "total_discount_amount",
        "total_amount",
    )
    assert all(v >= 0 for v in _ints(order, money))
    for item in order["items"]:
        fields = (
            "quantity",
            "discount_quantity",
            "initial_quantity",
            "amount",
            "discount_amount",
            "initial_amount",
            "applied_discount_amount",
            "price",
            "subtotal_amount",
        )
        assert all(isinstance(v, int) and v >= 0 for v in _ints(item, fields))
        if "discount_amount" in item:
            assert item["discount_amount"] <= item["amount"]
            assert item["applied_discount_amount"] == item["discount_amount"]
        if "amount" in item:
            assert item["subtotal_amount"] == item["amount"] - item.get("discount_amount", 0)
        if "discount_quantity" in item:
            assert item["discount_quantity"] <= item["quantity"]
    if outcome.discount_amount is not None:
        assert outcome.discount_amount == outcome.applied_discount_amount == total_d
    # the amounts settled eagerly agree with the wire order built on demand
    assert outcome.total_amount == order["total_amount"]
    # identical results on repeat (and with a fresh normalisation)
    assert price_normalized(CAT, compiled, normalized, None, ctx()) == outcome
    assert (
        price_normalized(CAT, compile_tier(spec), normalize_order(CAT, order_in), None, ctx())
        == outcome
    )


@settings(max_examples=300, deadline=None)
@given(order_in=orders(), amount_off=cents)
def test_proportional_lines_sum_exactly_to_the_discount(
    order_in: dict[str, Any], amount_off: int
) -> None:
    order_in.pop("amount", None)
    spec = tier(
        {"type": "AMOUNT", "amount_off": amount_off, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"}
    )
    normalized = normalize_order(CAT, order_in)
    outcome = price_normalized(CAT, compile_tier(spec), normalized, None, ctx())
    assert outcome_wire(outcome).order is not None
    expected = min(amount_off, sum(ln.amount_or_zero for ln in normalized.lines))
    assert outcome_wire(outcome).order.get("items_discount_amount", 0) == expected


@settings(max_examples=200, deadline=None)
@given(order_in=orders())
def test_unit_amount_is_initial_plus_added_units(order_in: dict[str, Any]) -> None:
    spec = tier({"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 2, "unit_type": "prod_a"})
    normalized = normalize_order(CAT, order_in)
    outcome = price_normalized(CAT, compile_tier(spec), normalized, None, ctx())
    order = outcome_wire(outcome).order
    assert order is not None
    assert order["initial_amount"] == normalized.amount
    assert order["amount"] == normalized.amount + 2 * next(
        (
            ln.price or 0
            for ln in normalized.lines
            if ln.product_id == "prod_a" and ln.sku_id is None
        ),
        1000,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order_in=orders(), spec=tiers())
def test_typed_results_are_what_the_wire_shows(order_in: dict[str, Any], spec: Any) -> None:
    """The engine's typed answer (`OrderPricing` and its `LinePricing`) and
    the renderer's wire order say the same, figure by figure: the renderer
    only writes the computed numbers down."""
    normalized = normalize_order(CAT, order_in)
    outcome = price_normalized(CAT, compile_tier(spec), normalized, None, ctx())
    pricing = outcome.pricing
    wire = outcome_wire(outcome).order
    assert pricing is not None and wire is not None
    assert (wire["amount"], wire["total_amount"]) == (pricing.amount, pricing.total) == (
        pricing.amount, outcome.total_amount)
    assert wire.get("initial_amount") == pricing.initial_amount
    assert wire.get("discount_amount", 0) == pricing.order_discount
    assert wire.get("items_discount_amount", 0) == pricing.items_discount
    assert outcome.discount_amount == (pricing.total_discount if pricing.monetary else None)
    lines = pricing.lines(normalized)
    assert len(lines) == len(wire["items"])
    assert sum(line.discount or 0 for line in lines) == pricing.items_discount
    for line, item in zip(lines, wire["items"], strict=True):
        assert item.get("amount") == line.amount
        assert item.get("discount_amount", 0 if line.discount is not None else None) == line.discount
        assert item.get("applied_discount_amount", 0) == line.applied
        assert item.get("discount_quantity") == line.discount_quantity
        assert item.get("initial_quantity") == line.initial_quantity
        assert item.get("initial_amount") == line.initial_amount
        if line.quantity is not None:
            assert item["quantity"] == line.quantity
    appended = len(lines) - len(normalized.lines)
    assert [line.index for line in lines] == [*range(len(normalized.lines)), *[None] * appended]
