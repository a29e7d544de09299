"""What a person reads of a stacking-policy comparison: the one-line
`__repr__` and the notebook's `_repr_html_` (`rich_summary.Summary`).

A notebook cell ending with a `StackingComparison` showed an object address;
this shows the figures of its own `summary()` and `reason_counts()`, money
through `promolab.display` in the comparison's currency (the simulator's),
so the cell reads like the summary frame and the chart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...display import format_count, format_money, format_share
from ...rich_summary import Summary, Table, currency_of

if TYPE_CHECKING:
    from .comparison import StackingComparison

__all__ = ["POLICY_HEADER", "comparison_line", "comparison_summary", "policy_rows"]

#: The columns of the "per policy" table (`summary()` for people).
POLICY_HEADER = ("policy", "valid orders", "share valid", "total discount", "mean discount",
                 "avg discount (valid)", "applicable", "skipped", "inapplicable")


def comparison_line(comparison: StackingComparison) -> str:
    currency = currency_of(comparison)
    summary = comparison.summary()
    shown = ", ".join(f"{p} {format_money(v, currency)}" for p, v in zip(summary["policy"], summary["total_discount"],
                                                                         strict=True))
    return (f"<StackingComparison {format_count(len(comparison.order_ids))} orders x "
            f"{len(comparison.policies)} policies, discount: {shown}>")


def policy_rows(comparison: StackingComparison, currency: str) -> tuple[tuple[str, ...], ...]:
    """`summary()` as text cells, one row per policy in the order compared."""
    return tuple(
        (str(r.policy), format_count(r.valid_orders), format_share(r.share_valid),
         format_money(r.total_discount, currency), format_money(r.mean_discount, currency),
         format_money(r.avg_discount_valid, currency), format_count(r.applicable), format_count(r.skipped),
         format_count(r.inapplicable))
        for r in comparison.summary().itertuples())


def _priced(comparison: StackingComparison) -> str:
    """How the orders were priced (`paths`): orders per path, the fallback's reasons."""
    parts = []
    for path in ("vectorized", "fallback"):
        groups = [g for g in comparison.groups if g.path == path]
        if groups:
            orders = format_count(sum(g.positions.size for g in groups))
            reasons = sorted({g.reason for g in groups if g.reason}) if path == "fallback" else []
            parts.append(f"{path}: {orders} orders" + (f" ({'; '.join(reasons)})" if reasons else ""))
    return ", ".join(parts)


def comparison_summary(comparison: StackingComparison) -> Summary:
    """The orders, policies and redeemables compared; per policy; the redeemables not applied by reason."""
    currency = currency_of(comparison)
    lists = comparison.groups
    redeemables = ", ".join(lists[0].ids) if len(lists) == 1 else f"{format_count(len(lists))} lists (per order)"
    facts = [("orders", format_count(len(comparison.order_ids))), ("policies", ", ".join(comparison.policies)),
             ("redeemables", redeemables), ("priced", _priced(comparison)), ("currency", currency)]
    per_policy = Table("per policy", POLICY_HEADER, policy_rows(comparison, currency))
    reasons = Table("not applied, by reason", ("policy", "status", "reason", "redeemables"), tuple(
        (str(r.policy), str(r.status), str(r.reason_key), format_count(r.redeemables))
        for r in comparison.reason_counts().itertuples()))
    return Summary("StackingComparison", facts, (per_policy, reasons) if reasons.rows else (per_policy,))
