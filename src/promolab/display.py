"""How numbers are shown to a person: the one place that formats money, shares and counts.

Data keeps money as integer minor units (cents) and shares as fractions; everything
a person reads (CLI summaries, notebook tables, chart axes, widget labels) goes
through these functions, so an amount always reads the same way, with its currency:
``format_money(1050)`` is ``'$10.50'``, ``format_money(-250, "EUR")`` is ``'-€2.50'``,
``format_money(1050, "PLN")`` is ``'PLN10.50'``, ``format_money(150000, "CLP")`` is
``'CLP150,000'`` (the peso has no minor unit); loyalty points are a count with
their unit, ``format_points(120, signed=True)`` is ``'+120 points'``.

What a currency's minor unit is, how it is written and which codes exist come
from Babel (CLDR's data of ISO 4217), one source rather than a table of our own
that would be wrong for the currencies it forgets. Text is English (``en_US``)
whatever the machine's locale, so outputs compare byte for byte.

Imports nothing from the rest of promolab, so every layer may use it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import cache
from numbers import Integral, Real
from typing import Any

from babel.numbers import format_currency, get_currency_precision, get_currency_symbol, is_currency

#: The currency when a scenario names none (its `project.currency`, ISO 4217).
DEFAULT_CURRENCY = "USD"
#: The locale every text is written in (fixed: a notebook's output must not depend on the machine).
LOCALE = "en_US"
#: What a missing amount (a free-shipping discount, a tier that does not apply) reads as.
MISSING = "-"


def is_missing(value: object) -> bool:
    """None, NaN, or pandas' NA / NaT: the values a nullable frame column holds when
    an amount is absent. pandas is looked up only if already imported (a value cannot
    be its NA otherwise), so this module stays free of heavy imports."""
    if value is None:
        return True
    if isinstance(value, Real) and not isinstance(value, Integral):
        return math.isnan(float(value))
    pandas = sys.modules.get("pandas")
    return pandas is not None and (value is pandas.NA or value is pandas.NaT)


def scenario_currency(document: Mapping[str, Any] | None) -> str:
    """The currency of a parsed scenario document: its `project.currency`, else
    DEFAULT_CURRENCY. The simulator's state does not carry it (state dumps stay
    the same bytes whatever the currency), so text formatting reads it here."""
    project = (document or {}).get("project")
    currency = project.get("currency") if isinstance(project, Mapping) else None
    return currency.upper() if isinstance(currency, str) and currency else DEFAULT_CURRENCY


def is_currency_code(code: object) -> bool:
    """Whether ``code`` is an ISO 4217 currency code as a scenario writes it:
    three upper-case letters that the standard (CLDR's copy of it, current and
    historic codes) knows. "EURO", "eur" and "ABC" are not."""
    return isinstance(code, str) and len(code) == 3 and code.isascii() and code.isupper() and _known(code)


@cache
def _known(code: str) -> bool:
    return bool(is_currency(code, LOCALE))


def checked_currency(currency: object) -> str:
    """``currency`` if `is_currency_code`, else a ValueError saying what is
    expected: a typo would otherwise show amounts under a made-up prefix."""
    if not is_currency_code(currency):
        raise ValueError(
            f"currency must be an ISO 4217 code of three upper-case letters, such as 'USD' or 'EUR' "
            f"(the scenario's project.currency), not {currency!r}"
        )
    assert isinstance(currency, str)
    return currency


def money_unit(currency: str) -> str:
    """What amounts of ``currency`` are written with: its symbol ('$', '€') or, for a
    currency without one in English, its code ('PLN'). The label of an input that takes an
    amount in whole units (a slider, a box), so that it reads like the amounts around it."""
    return str(get_currency_symbol(currency.upper(), LOCALE))


def minor_digits(currency: str) -> int:
    """Digits of the minor unit of ``currency`` (ISO 4217: 2 for USD, 0 for CLP and
    JPY, 3 for TND and OMR): how many minor units make one, ``10 ** minor_digits``."""
    return int(get_currency_precision(currency.upper()))


def format_money(minor_units: object, currency: str = DEFAULT_CURRENCY, *, signed: bool = False) -> str:
    """An integer amount in minor units, with its currency and thousands separators,
    as Babel writes it in English: the currency's own minor unit (150000 CLP minor
    units are 'CLP150,000', 1500 TND ones 'TND1.500'), its symbol where it has one.

    ``None``, NaN and pandas' NA read as ``MISSING``; a float is accepted only when it
    holds a whole number of minor units (an aggregate such as a mean is rounded half
    away from zero first: pass it through ``round`` yourself to choose). ``signed``
    writes ``+`` before a positive amount, for changes ("+$25.00", "-$5.00").
    """
    if isinstance(minor_units, bool):
        raise TypeError("an amount is a number of minor units, not a bool")
    if is_missing(minor_units):
        return MISSING
    if isinstance(minor_units, Integral):
        units = int(minor_units)
    elif isinstance(minor_units, Real):
        units = int(math.copysign(math.floor(abs(float(minor_units)) + 0.5), float(minor_units)))
    else:
        raise TypeError(f"an amount is a number of minor units, not {type(minor_units).__name__}")
    code = currency.upper()
    amount = Decimal(abs(units)).scaleb(-minor_digits(code))
    sign = "-" if units < 0 else "+" if signed and units > 0 else ""
    return sign + str(format_currency(amount, code, locale=LOCALE))


def money_tick_formatter(currency: str = "USD") -> object:
    """A matplotlib tick formatter for axes in minor units: ``$1,400`` (no cents on ticks
    when every tick is whole), built lazily so this module does not import matplotlib."""
    from matplotlib.ticker import FuncFormatter

    scale = 10 ** minor_digits(currency)

    def tick(value: float, _position: int | None) -> str:
        whole = round(value) % scale == 0
        text = format_money(round(value), currency)
        return text[: -(minor_digits(currency) + 1)] if whole and scale > 1 else text

    return FuncFormatter(tick)


def format_share(fraction: object, digits: int = 1) -> str:
    """A fraction (0.875) as a percentage ('87.5%'). A share above zero that would
    round to zero reads '<0.1%' rather than '0.0%', and one below 1 that would round
    to 100 reads '>99.9%', so a rare event is not shown as none, nor a near-total as all."""
    if is_missing(fraction):
        return MISSING
    if isinstance(fraction, bool) or not isinstance(fraction, Real):
        raise TypeError(f"a share is a number, not {type(fraction).__name__}")
    value = float(fraction) * 100
    smallest = 10.0**-digits
    if 0 < value < smallest:
        return f"<{smallest:.{digits}f}%"
    if 100 - smallest < value < 100:
        return f">{100 - smallest:.{digits}f}%"
    return f"{value:.{digits}f}%"


def format_count(count: object, *, signed: bool = False) -> str:
    """A whole count with thousands separators ('12,345'; '+101' with ``signed``)."""
    if is_missing(count):
        return MISSING
    if isinstance(count, bool) or not isinstance(count, Real):
        raise TypeError(f"a count is a number, not {type(count).__name__}")
    return f"{round(float(count)):{'+' if signed else ''},}"


def format_points(points: object, *, signed: bool = False) -> str:
    """Loyalty points, which are not money: a count and the unit ('1,200 points',
    '1 point'; '+120 points' / '-300 points' with ``signed``)."""
    if is_missing(points):
        return MISSING
    text = format_count(points, signed=signed)
    return f"{text} point" if text.lstrip("+-") == "1" else f"{text} points"


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], *, left: int = 1,
               indent: str = "  ") -> str:
    """Rows of already formatted cells as aligned text: the first ``left`` columns
    (names, ids) aligned left, the rest (figures) right, every cell whole (nothing
    is cut: a long tier name widens its column instead)."""
    widths = [len(h) for h in header]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row has {len(row)} cells, the header {len(header)}")
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return (indent + "  ".join(parts)).rstrip()

    return "\n".join([line(header), *(line(row) for row in rows)])
