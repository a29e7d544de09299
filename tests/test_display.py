"""`promolab.display`: the one way money, shares and counts read for people."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from babel.numbers import list_currencies
from hypothesis import given
from hypothesis import strategies as st

from promolab.display import (
    MISSING,
    checked_currency,
    format_count,
    format_money,
    format_points,
    format_share,
    is_currency_code,
    minor_digits,
    money_unit,
    scenario_currency,
    text_table,
)


@pytest.mark.parametrize("amount, currency, signed, expected", [
    (1050, "USD", False, "$10.50"),
    (10495000, "USD", False, "$104,950.00"),
    (0, "USD", False, "$0.00"),
    (5, "USD", False, "$0.05"),
    (-250, "EUR", False, "-€2.50"),
    (1050, "PLN", False, "PLN10.50"),
    (1050, "usd", False, "$10.50"),
    (1050, "JPY", False, "¥1,050"),
    (12345, "KWD", False, "KWD12.345"),
    (2500, "USD", True, "+$25.00"),
    (-2500, "USD", True, "-$25.00"),
    (0, "USD", True, "$0.00"),
    (np.int64(1999), "USD", False, "$19.99"),
    (1774.5, "USD", False, "$17.75"),  # a mean in cents: half away from zero
    (-1774.5, "USD", False, "-$17.75"),
])
def test_format_money(amount: object, currency: str, signed: bool, expected: str) -> None:
    assert format_money(amount, currency, signed=signed) == expected


#: currency -> (ISO 4217 minor digits, 150000 minor units as a person reads them)
CURRENCIES = {
    "USD": (2, "$1,500.00"),
    "EUR": (2, "€1,500.00"),
    "GBP": (2, "£1,500.00"),
    "PLN": (2, "PLN1,500.00"),
    "CLP": (0, "CLP150,000"),  # no minor unit: 150,000 pesos, not 1,500.00
    "JPY": (0, "¥150,000"),
    "KRW": (0, "₩150,000"),
    "VND": (0, "₫150,000"),
    "UGX": (0, "UGX150,000"),
    "ISK": (0, "ISK150,000"),
    "TND": (3, "TND150.000"),  # three digits: 150 dinars
    "OMR": (3, "OMR150.000"),
    "KWD": (3, "KWD150.000"),
    "BHD": (3, "BHD150.000"),
}


@pytest.mark.parametrize("currency", list(CURRENCIES))
def test_each_currency_has_its_own_minor_unit(currency: str) -> None:
    digits, text = CURRENCIES[currency]
    assert minor_digits(currency) == digits
    assert format_money(150000, currency) == text
    assert format_money(-150000, currency) == "-" + text
    assert format_money(150000, currency, signed=True) == "+" + text
    one_minor_unit = format_money(1, currency)
    assert one_minor_unit.endswith("1" if digits == 0 else "0." + "0" * (digits - 1) + "1"), one_minor_unit
    assert money_unit(currency) == text.split("1")[0]  # what an input's label shows is what amounts start with


@given(amount=st.integers(min_value=-(10**15), max_value=10**15),
       currency=st.sampled_from(sorted(list_currencies())))
def test_an_amount_keeps_every_minor_unit_in_any_currency(amount: int, currency: str) -> None:
    """Whatever the currency, the text holds the amount's digits unchanged
    (nothing rounded away or scaled twice) with exactly its minor digits."""
    text = format_money(amount, currency)
    digits = minor_digits(currency)
    number = re.search(r"[\d,]+(\.\d+)?", text)
    assert number is not None, text
    assert len(number.group(1) or ".")-1 == digits, text
    assert int(re.sub(r"\D", "", number.group(0))) == abs(amount), text
    assert text.startswith("-") == (amount < 0), text


@pytest.mark.parametrize("code, known", [
    ("USD", True), ("CLP", True), ("TND", True), ("XAU", True),
    ("ABC", False), ("EURO", False), ("eur", False), ("E1R", False), ("", False), (None, False), ("ÉUR", False),
])
def test_only_iso_4217_codes_are_currencies(code: object, known: bool) -> None:
    assert is_currency_code(code) is known
    if known:
        assert checked_currency(code) == code
    else:
        with pytest.raises(ValueError, match="ISO 4217"):
            checked_currency(code)


@pytest.mark.parametrize("missing", [None, math.nan, np.nan, pd.NA, pd.NaT, np.float64("nan")])
def test_missing_amounts_read_the_same(missing: object) -> None:
    """Free shipping's discount is NA in frames, None on the wire: one text for all."""
    assert format_money(missing) == MISSING
    assert format_share(missing) == MISSING
    assert format_count(missing) == MISSING


def test_a_nullable_column_formats_without_special_cases() -> None:
    column = pd.array([1000, None, 250], dtype="Int64")
    assert [format_money(v) for v in column] == ["$10.00", MISSING, "$2.50"]


@pytest.mark.parametrize("bad", [True, "10.50", [1]])
def test_format_money_refuses_what_is_not_an_amount(bad: object) -> None:
    with pytest.raises(TypeError):
        format_money(bad)


@pytest.mark.parametrize("fraction, expected", [
    (0.875, "87.5%"),
    (0.0, "0.0%"),
    (1.0, "100.0%"),
    (3 / 12000, "<0.1%"),  # 3 orders of 12,000: rare, not none
    (11999 / 12000, ">99.9%"),  # all but one: not all
    (0.5, "50.0%"),
])
def test_format_share(fraction: float, expected: str) -> None:
    assert format_share(fraction) == expected


@pytest.mark.parametrize("count, signed, expected", [
    (12345, False, "12,345"), (0, False, "0"), (101, True, "+101"), (-500, True, "-500"),
    (np.int64(7), False, "7"),
])
def test_format_count(count: object, signed: bool, expected: str) -> None:
    assert format_count(count, signed=signed) == expected


@pytest.mark.parametrize("points, signed, expected", [
    (120, True, "+120 points"),
    (-500, True, "-500 points"),
    (1200, False, "1,200 points"),
    (1, False, "1 point"),
    (-1, True, "-1 point"),
    (0, False, "0 points"),
    (np.int64(15), False, "15 points"),
    (None, False, MISSING),
    (pd.NA, True, MISSING),
])
def test_format_points_are_a_count_with_their_unit_not_money(points: object, signed: bool, expected: str) -> None:
    assert format_points(points, signed=signed) == expected


def test_format_points_refuses_what_is_not_a_number() -> None:
    with pytest.raises(TypeError):
        format_points("120")


@pytest.mark.parametrize("document, expected", [
    (None, "USD"), ({}, "USD"), ({"project": {"id": "p"}}, "USD"), ({"project": {"currency": "EUR"}}, "EUR"),
    ({"project": None}, "USD"),
])
def test_scenario_currency(document: dict | None, expected: str) -> None:
    assert scenario_currency(document) == expected


def test_text_table_keeps_every_cell_whole_and_aligns() -> None:
    long_name = "15% off beans (max $15 a line, $30 an order) and a little more"
    text = text_table(["tier", "name", "discount"], [["a", long_name, "$10.00"], ["bb", "x", "-"]], left=2)
    lines = text.splitlines()
    assert long_name in lines[1]
    assert len({len(line) for line in lines}) == 1  # right-aligned figures end together
    assert lines[2].endswith("      -")
    with pytest.raises(ValueError, match="cells"):
        text_table(["a", "b"], [["only one"]])
