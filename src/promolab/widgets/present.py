"""Display forms of a `WhatIfResult`: readable tables (text, in dollars) and HTML.

Pure functions of the result, so the notebook, the dashboard and the tests see
the same text.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from .controller import WhatIfResult
from .state import WHATIF_SUFFIX

__all__ = ["STYLE", "dollars", "order_display", "status_line", "tier_display", "to_html"]

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


def dollars(cents: float | None, *, signed: bool = False) -> str:
    """`1234.5` cents -> `$12.35`; NaN / None -> `-`."""
    if cents is None or (isinstance(cents, float) and math.isnan(cents)) or cents is pd.NA:
        return "-"
    value = float(cents) / 100
    sign = ("+" if value > 0 else "-" if value < 0 else "") if signed else ("-" if value < 0 else "")
    return f"{sign}${abs(value):,.2f}"


def _metric(name: str, value: float, *, signed: bool = False) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "-"
    if name in _MONEY:
        return dollars(value, signed=signed)
    if name in _COUNT:
        return f"{value:+,.0f}" if signed else f"{value:,.0f}"
    return f"{100 * value:+.1f} pts" if signed else f"{100 * value:.1f}%"


def tier_display(result: WhatIfResult) -> pd.DataFrame:
    """Before / after / change of the tuned tier, as text."""
    table = result.tier_table
    rows = []
    for name in table.index:
        rows.append({
            "metric": _LABELS[name],
            "before": _metric(name, table.at[name, "before"]),
            "after": _metric(name, table.at[name, "after"]),
            "change": _metric(name, table.at[name, "change"], signed=True),
        })
    return pd.DataFrame(rows).set_index("metric")


def order_display(result: WhatIfResult) -> pd.DataFrame:
    """Every tier on the built order, as text (the what-if row marked)."""
    frame = result.order_table
    return pd.DataFrame({
        "tier": frame["tier_id"].astype(str),
        "applies": ["yes" if v else "no" for v in frame["valid"]],
        "discount": [dollars(None if v is pd.NA else int(v)) for v in frame["discount_amount"]],
        "total": [dollars(None if v is pd.NA else int(v)) for v in frame["total_amount"]],
        "why not": ["" if v or r is pd.NA else str(r) for v, r in zip(frame["valid"], frame["reason"], strict=True)],
    })


def status_line(result: WhatIfResult) -> str:
    edit = result.edit
    if edit.discount_type == "PERCENT":
        value = f"{edit.value:g}% off"
    elif edit.discount_type == "AMOUNT":
        value = f"{dollars(edit.value)} off"
    else:
        value = f"fixed at {dollars(edit.value)}"
    minimum = "rules unchanged" if edit.min_amount is None else f"minimum order {dollars(edit.min_amount)}"
    text = f"{edit.tier_id}{WHATIF_SUFFIX}: {value}, {edit.effect}, {minimum}; swept over {result.n_orders:,} orders"
    if result.error:
        text += f". Not evaluated: {result.error}"
    return text


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
        f'<div class="promolab-table"><b>{html.escape(title)}</b>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )
