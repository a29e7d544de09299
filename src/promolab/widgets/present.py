"""Display forms for people: readable tables (money with its currency) and HTML.

Pure functions, so the notebooks, the dashboard and the tests see the same
text. Every amount, share and count goes through `promolab.display`, the one
place that decides how numbers read; `readable` applies it to the columns of
any frame, which is how every notebook shows its tables.

The currency of a what-if result is the one it carries (`WhatIfResult.currency`,
the controller's: the scenario's), never a default here: the simulator does not
know it, so a default would show a euro scenario in dollars.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace
from numbers import Real
from typing import TYPE_CHECKING

import pandas as pd

from ..display import (
    DEFAULT_CURRENCY,
    MISSING,
    format_count,
    format_money,
    format_share,
    is_missing,
)
from .state import WHATIF_SUFFIX, TierEdit

if TYPE_CHECKING:  # annotations only: the variants module (which the controller imports) uses these words
    from .best import BestValue
    from .controller import WhatIfResult

__all__ = [
    "NO_MATHS",
    "STYLE",
    "best_line",
    "edit_changes",
    "edit_value",
    "order_display",
    "outlook_line",
    "readable",
    "status_line",
    "tier_display",
    "to_html",
]

_LABELS = {
    "orders": "orders swept",
    "orders_reached": "orders reached",
    "share_reached": "share of orders reached",
    "cost": "campaign cost",
    "avg_discount": "average discount (where valid)",
    "cost_per_order": "cost per order",
    "max_discount": "largest discount",
}
_MONEY = {"cost", "avg_discount", "cost_per_order", "max_discount"}
_COUNT = {"orders", "orders_reached"}


def readable(
    frame: pd.DataFrame,
    *,
    money: Iterable[Hashable] = (),
    shares: Iterable[Hashable] = (),
    counts: Iterable[Hashable] = (),
    currency: str = DEFAULT_CURRENCY,
) -> pd.DataFrame:
    """A copy of `frame` for a person to read: `money` columns (integer minor
    units) as amounts with the currency, `shares` (fractions) as percentages,
    `counts` with thousands separators; other columns untouched.

    A formatted copy rather than a pandas Styler: it reads the same as text and
    as HTML, carries no random element ids (notebook outputs stay comparable
    run to run), and leaves the frame it came from in cents and fractions for
    further computing. Missing values (`<NA>`, NaN) read as `display.MISSING`.
    """
    out = frame.copy()
    formats: list[tuple[Iterable[Hashable], Callable[[object], str]]] = [
        (money, lambda v: format_money(v, currency)), (shares, format_share), (counts, format_count),
    ]
    for columns, fmt in formats:
        for column in columns:
            if column not in out.columns:
                raise KeyError(f"no column {column!r} to format; columns: {', '.join(map(str, out.columns))}")
            values = [fmt(None if v is pd.NA else v) for v in frame[column].tolist()]
            out[column] = pd.Series(values, index=out.index, dtype="string")
    return out


def _metric(name: str, value: object, currency: str, *, signed: bool = False) -> str:
    if is_missing(value):
        return MISSING
    if name in _MONEY:
        return format_money(value, currency, signed=signed)
    if not isinstance(value, Real):
        raise TypeError(f"a figure of the tier table is a number, not {type(value).__name__}")
    if name in _COUNT:
        return ("+" if signed and float(value) > 0 else "") + format_count(value)
    return f"{100 * float(value):+.1f} pts" if signed else format_share(value)


def tier_display(result: WhatIfResult) -> pd.DataFrame:
    """Before / after / change of the tuned tier, as text."""
    table = result.tier_table
    rows = []
    for name in table.columns:
        rows.append({
            "metric": _LABELS[name],
            "before": _metric(name, table.at["before", name], result.currency),
            "after": _metric(name, table.at["after", name], result.currency),
            "change": _metric(name, table.at["change", name], result.currency, signed=True),
        })
    return pd.DataFrame(rows).set_index("metric")


def order_display(result: WhatIfResult) -> pd.DataFrame:
    """Every tier on the built order, as text (the what-if row marked)."""
    frame, currency = result.order_table, result.currency
    return pd.DataFrame({
        "tier": frame["tier_id"].astype(str),
        "applies": ["yes" if v else "no" for v in frame["valid"]],
        "discount": [format_money(None if v is pd.NA else int(v), currency) for v in frame["discount_amount"]],
        "total": [format_money(None if v is pd.NA else int(v), currency) for v in frame["total_amount"]],
        "why not": ["" if v or r is pd.NA else str(r) for v, r in zip(frame["valid"], frame["reason"], strict=True)],
    })


def edit_value(edit: TierEdit, *, currency: str) -> str:
    """The tuned value in words: "15% off", "$10.00 off", "fixed at $99.00".
    `currency` has no default: a `TierEdit` does not know it (the caller's
    result or variant does)."""
    if edit.discount_type == "PERCENT":
        return f"{edit.value:g}% off"
    if edit.discount_type == "AMOUNT":
        return f"{format_money(edit.value, currency)} off"
    return f"fixed at {format_money(edit.value, currency)}"


def _minimum(cents: int | None, currency: str) -> str:
    return "no minimum" if cents is None else format_money(cents, currency)


def edit_changes(original: TierEdit, edit: TierEdit, *, currency: str) -> str:
    """What `edit` changes on the tier `original` reproduces, in words
    ("$10.00 off -> $15.00 off; minimum order $50.00 -> $80.00"), or
    "as in the scenario": how a saved variant is told apart from the others."""
    parts = []
    if edit.value != original.value:
        parts.append(f"{edit_value(original, currency=currency)} -> {edit_value(edit, currency=currency)}")
    if edit.effect != original.effect:
        parts.append(f"{original.effect} -> {edit.effect}")
    if edit.min_amount != original.min_amount:
        parts.append(f"minimum order {_minimum(original.min_amount, currency)} -> "
                     f"{_minimum(edit.min_amount, currency)}")
    return "; ".join(parts) or "as in the scenario"


def outlook_line(result: WhatIfResult) -> str:
    """The edited tier's expected incremental net revenue beside its cost, in
    the result's currency: "cost $1,234.00; expected incremental net revenue
    $567.00 (P10-P90 $500.00 to $634.00, default response model, 120 orders
    offered)". The cost is what every reached order would be given; the
    expectation is what the model says that buys (`outlook.py`)."""
    cost = _metric("cost", result.tier_table.at["after", "cost"], result.currency)
    found = result.outlook
    if found is None:
        return f"cost {cost}; expected incremental net revenue {MISSING}"
    def money(cents: float) -> str:
        return format_money(round(cents), result.currency)
    return (f"cost {cost}; expected incremental net revenue {money(found.incremental_net_revenue)} "
            f"(P10-P90 {money(found.p10)} to {money(found.p90)}, default response model, "
            f"{format_count(found.orders_offered)} orders offered)")


def best_line(best: BestValue, edit: TierEdit, *, currency: str) -> str:
    """The "find the best" answer in words: "best for promo_vip_10pct: 25% off,
    expected incremental net revenue $1,234.00; runner-up 20% off, $56.00 less".
    `edit`: the tuned tier the answer was found for (its kind reads the values)."""
    if best.value is None:
        return f"best for {best.tier_id}: no value meets the constraints ({best.reason})"
    def shown(value: float) -> str:
        return edit_value(replace(edit, value=value), currency=currency)
    text = (f"best for {best.tier_id}: {shown(best.value)}, expected incremental net revenue "
            f"{format_money(best.objective, currency)}")
    if best.runner_up is None:
        return text + "; no runner-up"
    return text + f"; runner-up {shown(best.runner_up)}, {format_money(best.gap, currency)} less"


def status_line(result: WhatIfResult) -> str:
    edit = result.edit
    value = edit_value(edit, currency=result.currency)
    minimum = ("rules unchanged" if edit.min_amount is None
               else f"minimum order {_minimum(edit.min_amount, result.currency)}")
    text = f"{edit.tier_id}{WHATIF_SUFFIX}: {value}, {edit.effect}, {minimum}; swept over {format_count(result.n_orders)} orders"
    if result.error:
        text += f". Not evaluated: {result.error}"
    return text


#: CSS classes that keep MathJax (JupyterLab, nbconvert, Voila typeset HTML outputs) from
#: reading the text between two amounts ("$10.00 off ... $50.00") as maths.
NO_MATHS = "tex2jax_ignore mathjax_ignore"

STYLE = """<style>
.promolab-table table { border-collapse: collapse; font-size: 12px; font-family: sans-serif; }
.promolab-table th, .promolab-table td { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right; }
.promolab-table th:first-child, .promolab-table td:first-child { text-align: left; }
.promolab-order-table td:last-child, .promolab-order-table th:last-child { text-align: left; }
.promolab-table tr.whatif td { background: #fff1dc; font-weight: bold; }
</style>"""


def to_html(frame: pd.DataFrame, *, title: str, highlight: list[bool] | None = None, index: bool = False) -> str:
    """A small, stable HTML table (no pandas ids), rows optionally highlighted."""
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    for position, (label, row) in enumerate(frame.iterrows()):
        cells = ([str(label)] if index else []) + [str(v) for v in row.tolist()]
        css = ' class="whatif"' if highlight and highlight[position] else ""
        body.append(f"<tr{css}>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    return (
        f'<div class="promolab-table {NO_MATHS}"><b>{html.escape(title)}</b>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )
