"""Every amount and quantity pricing computes stays within 0..2^63-1, or the
order is refused with `PricingOverflowError`, and only when a number really
would pass the bound.

The bound is the interface's (every amount, price and quantity of an order
is a signed 64-bit integer in the served OpenAPI document). What is checked:
`price * quantity` of a line, the sum of the lines when it is the order
amount, and what UNIT discounts add (a line's quantity and amount, the
order amount). The oracle for "only when needed" prices the same order with
the bound lifted (the modules' `INT64_MAX` patched to 2^200) and looks for a
number past 2^63-1 in what would have been answered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pricing_builders import ctx, tier

from big_orders import big_orders
from promolab.engine import (
    Catalogue,
    CatalogueProduct,
    PricingInputError,
    PricingOverflowError,
    compile_tier,
    normalize_order,
    outcome_wire,
    price_normalized,
)
from promolab.engine import normalize as items_module
from promolab.engine import unit_discounts as units_module
from promolab.sim.promotions import invalid_payload
from promolab.sim.refusals import InvalidPayload

MAX = 2**63 - 1


def catalogue() -> Catalogue:
    """A fresh catalogue per use: catalogues cache normalized lines and
    orders, and an order normalized with the bound lifted must not be served
    from the cache to a check with the bound in place."""
    return Catalogue(
        products=[
            CatalogueProduct("prod_cheap", "cheap", "Cheap", 600),
            CatalogueProduct("prod_dear", "dear", "Dear", 2**62),
            CatalogueProduct("prod_max", "max", "At the bound", MAX),
            CatalogueProduct("prod_5h1pp1ng", "5h1pp1ng", "Shipping", None),
        ]
    )


def _ints(value: Any) -> Iterator[int]:
    """Every integer in a wire object (bools excluded)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            yield item


def _price(order_in: dict[str, Any], discount: dict[str, Any]) -> tuple[dict[str, Any] | None, int | None]:
    cat = catalogue()
    order = normalize_order(cat, order_in)
    outcome = price_normalized(cat, compile_tier(tier(discount)), order, None, ctx())
    assert outcome.valid
    return outcome_wire(outcome).order, outcome.discount_amount


# -- the table ------------------------------------------------------------------------------------
UNIT_NEW = {"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "prod_cheap"}
UNIT_MISSING = {"type": "UNIT", "effect": "ADD_MISSING_ITEMS", "unit_off": 4, "unit_type": "prod_dear"}
PERCENT = {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ORDER"}

#: (label, order, discount, refused field or None when answered)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], str | None]] = [
    ("price-x-quantity", {"items": [{"product_id": "prod_x", "quantity": 10**10, "price": 10**10}]}, PERCENT,
     "order.items[0]"),
    ("catalogue-price-x-quantity", {"items": [{"product_id": "prod_max", "quantity": 2}]}, PERCENT, "order.items[0]"),
    ("lines-sum", {"items": [{"product_id": "prod_max", "quantity": 1}, {"product_id": "prod_cheap", "quantity": 1}]},
     PERCENT, "order.items"),
    # with the order amount sent, a sum past the bound is never shown: answered
    ("lines-sum-amount-sent", {"amount": 100, "items": [{"product_id": "prod_max", "quantity": 1},
                                                         {"product_id": "prod_cheap", "quantity": 1}]}, PERCENT, None),
    ("line-at-the-bound", {"items": [{"product_id": "prod_max", "quantity": 1}]}, PERCENT, None),
    ("unit-added-to-amount-at-the-bound", {"amount": MAX, "items": [{"product_id": "prod_cheap", "quantity": 1}]},
     UNIT_NEW, "order"),
    ("unit-reaching-the-bound-exactly",
     {"amount": MAX - 600, "items": [{"product_id": "prod_cheap", "quantity": 1}]}, UNIT_NEW, None),
    ("unit-added-to-quantity-at-the-bound",
     {"amount": 5, "items": [{"product_id": "prod_cheap", "quantity": MAX, "amount": 5}]}, UNIT_NEW,
     "order.items[0]"),
    ("unit-new-line-past-the-bound", {"items": [{"product_id": "prod_x", "quantity": 1, "price": 1}]},
     UNIT_MISSING, "order"),
    ("unit-topped-up-order-past-the-bound",
     {"amount": 1, "items": [{"product_id": "prod_dear", "quantity": 1, "amount": 1}]}, UNIT_MISSING, "order"),
    ("unit-added-to-line-amount-at-the-bound",
     {"amount": 1, "items": [{"product_id": "prod_cheap", "quantity": 1, "amount": MAX}]}, UNIT_NEW,
     "order.items[0]"),
    ("digit-string-quantity-past-the-bound", {"items": [{"product_id": "prod_cheap", "quantity": "9" * 5000}]},
     PERCENT, "order.items[0].quantity"),
]


@pytest.mark.parametrize(("label", "order_in", "discount", "field"), CASES, ids=[c[0] for c in CASES])
def test_bounds_table(label: str, order_in: dict[str, Any], discount: dict[str, Any], field: str | None) -> None:
    if field is None:
        order, total_discount = _price(order_in, discount)
        assert all(0 <= n <= MAX for n in _ints(order)), order
        assert total_discount is None or 0 <= total_discount <= MAX
        return
    with pytest.raises(PricingInputError) as info:
        _price(order_in, discount)
    assert info.value.field == field, info.value
    if isinstance(info.value, PricingOverflowError):
        # raised while a tier is settled too: the simulator's mapping makes it a 400
        refusal = invalid_payload(info.value)
        assert isinstance(refusal, InvalidPayload)
        body = refusal.body()
        assert body["key"] == "invalid_payload" and body["message"] == "Invalid payload"
        assert body["details"].startswith(f"Property .{field}: ")


def test_quantity_strings_are_read_as_ascii_digits_only() -> None:
    """As the wire model reads them (`models.orders.Quantity`): `str.isdigit`
    also takes digits that `int()` reads as other numbers ("\u0663" is 3) or
    not at all ("\u00b2" raised a ValueError, not a PricingInputError)."""
    cat = catalogue()
    for bad in ("\u0663", "\u00b2", "1\u00b2", "+1", "1_0"):
        with pytest.raises(PricingInputError) as info:
            normalize_order(cat, {"items": [{"product_id": "prod_cheap", "quantity": bad}]})
        assert info.value.field == "order.items[0].quantity"
    line = normalize_order(cat, {"items": [{"product_id": "prod_cheap", "quantity": "0" * 40 + "7"}]}).lines[0]
    assert line.quantity == 7


# -- the invariant --------------------------------------------------------------------------------
big = st.one_of(st.integers(0, 1_000), st.integers(2**61, MAX), st.sampled_from([MAX, MAX - 1, 2**62, 2**32]))


orders = big_orders(big, ["prod_cheap", "prod_dear", "prod_max", "prod_x"], unknown="prod_x", min_items=0)


unit_spec = st.fixed_dictionaries({
    "effect": st.sampled_from(["ADD_MISSING_ITEMS", "ADD_NEW_ITEMS"]),
    "unit_off": st.one_of(st.integers(0, 5), st.integers(2**61, MAX)),
    "unit_type": st.sampled_from(["prod_cheap", "prod_dear", "prod_max", "prod_5h1pp1ng"]),
})
discounts = st.one_of(
    unit_spec.map(lambda u: {"type": "UNIT", **u}),
    st.lists(unit_spec, min_size=1, max_size=3).map(
        lambda us: {"type": "UNIT", "effect": "ADD_MANY_ITEMS", "units": us}),
    st.builds(lambda off: {"type": "AMOUNT", "amount_off": off, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"}, big),
    st.builds(lambda off: {"type": "AMOUNT", "amount_off": off, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"}, big),
    st.builds(lambda pct: {"type": "PERCENT", "percent_off": pct, "effect": "APPLY_TO_ITEMS"}, st.integers(0, 100)),
    st.builds(lambda fixed: {"type": "FIXED", "fixed_amount": fixed, "effect": "APPLY_TO_ORDER"}, big),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order_in=orders, discount=discounts)
def test_priced_numbers_stay_within_the_bound_or_the_order_is_refused(
    order_in: dict[str, Any], discount: dict[str, Any]
) -> None:
    try:
        order, total_discount = _price(order_in, discount)
    except PricingOverflowError as exc:
        refused: PricingOverflowError | None = exc
    else:
        refused = None
        assert all(0 <= n <= MAX for n in _ints(order)), order
        assert total_discount is None or 0 <= total_discount <= MAX
    # The oracle: the same pricing with the bound lifted. A refusal is right
    # exactly when what would have been answered holds a number past it.
    lifted = 2**200
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(items_module, "INT64_MAX", lifted)
        patch.setattr(units_module, "INT64_MAX", lifted)
        unbounded, unbounded_discount = _price(order_in, discount)
    past = [n for n in [*_ints(unbounded), unbounded_discount or 0] if n > MAX]
    assert (refused is not None) == bool(past), (refused, past[:3])
