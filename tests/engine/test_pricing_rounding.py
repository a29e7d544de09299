"""Rounding policy (docs/pricing.md): integer cents, half up per line, remainder to the largest line."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pricing_builders import ctx, tier

from promolab.engine import Catalogue, outcome_wire, price_tier, round_half_up, split_proportionally


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Fraction(25, 2), 13),
        (Fraction(249, 20), 12),
        (Fraction(251, 20), 13),
        (Fraction(5, 2), 3),
        (Fraction(1, 2), 1),
        (Fraction(0), 0),
        (Fraction(7), 7),
        (Fraction(-25, 2), -13),
    ],
)
def test_round_half_up(value: Fraction, expected: int) -> None:
    assert round_half_up(value) == expected


def test_percent_half_cent_rounds_up_12_5_to_13() -> None:
    # 10% of 125 cents = 12.5 -> 13
    out = price_tier(
        Catalogue(),
        tier({"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"}),
        {"items": [{"product_id": "a", "price": 125}]},
        None,
        ctx(),
    )
    assert outcome_wire(out).order is not None and outcome_wire(out).order["items"][0]["discount_amount"] == 13


def test_percent_rounds_per_line_not_on_the_sum() -> None:
    # 10% of 125 twice: 13 + 13 = 26 (per line), not round(25.0) = 25
    out = price_tier(
        Catalogue(),
        tier({"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ITEMS"}),
        {"items": [{"product_id": "a", "price": 125}, {"product_id": "b", "price": 125}]},
        None,
        ctx(),
    )
    assert outcome_wire(out).order is not None and outcome_wire(out).order["items_discount_amount"] == 26


def test_fractional_percent_is_exact() -> None:
    # 12.5% of 1000 = 125 exactly; 33.3% of 1000 = 333
    for pct, expected in ((12.5, 125), (33.3, 333), ("7.5", 75)):
        out = price_tier(
            Catalogue(),
            tier({"type": "PERCENT", "percent_off": pct, "effect": "APPLY_TO_ORDER"}),
            {"items": [{"product_id": "a", "price": 1000}]},
            None,
            ctx(),
        )
        assert outcome_wire(out).order is not None and outcome_wire(out).order["discount_amount"] == expected


def test_split_remainder_goes_to_largest_line() -> None:
    # 100 over weights 1,1,1 -> 33.33 each -> 33,33,33 and the remainder 1 to the largest line (cap 300)
    assert split_proportionally(100, [1, 1, 1], [100, 300, 200]) == [33, 34, 33]


def test_split_remainder_first_largest_on_ties() -> None:
    assert split_proportionally(100, [1, 1, 1], [500, 500, 500]) == [34, 33, 33]


def test_split_negative_remainder_taken_from_largest_line() -> None:
    # 5 over 2,2,2 weights: shares 1.67 -> 2 each = 6, one cent too many, taken from the largest
    assert split_proportionally(5, [2, 2, 2], [10, 20, 10]) == [2, 1, 2]


def test_split_caps_and_redistributes() -> None:
    # line 0 may take at most 10; the rest of 100 goes to the other lines
    assert split_proportionally(100, [1, 1, 1], [10, 1000, 1000]) == [10, 45, 45]
    assert split_proportionally(100, [1, 1], [10, 20]) == [10, 20]  # total > caps: capped


def test_proportional_split_sums_exactly_through_engine() -> None:
    out = price_tier(
        Catalogue(),
        tier({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"}),
        {
            "items": [
                {"product_id": "a", "price": 100},
                {"product_id": "b", "price": 100},
                {"product_id": "c", "price": 100},
            ]
        },
        None,
        ctx(),
    )
    # 300 < 1000: each line is capped at its amount
    assert outcome_wire(out).order is not None and [i["discount_amount"] for i in outcome_wire(out).order["items"]] == [
        100,
        100,
        100,
    ]
    out = price_tier(
        Catalogue(),
        tier({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"}),
        {
            "items": [
                {"product_id": "a", "price": 1000},
                {"product_id": "b", "price": 3000},
                {"product_id": "c", "price": 3000},
            ]
        },
        None,
        ctx(),
    )
    # 142.86 / 428.57 / 428.57 -> 143 / 429 / 429 = 1001 -> one cent back from the first largest
    assert outcome_wire(out).order is not None and [i["discount_amount"] for i in outcome_wire(out).order["items"]] == [
        143,
        428,
        429,
    ]
    assert outcome_wire(out).order["items_discount_amount"] == 1000
