"""What a person reads of a forecast or a scenario comparison: the one-line
`__repr__`, the notebook's `_repr_html_` (`rich_summary.Summary`), and the
budget figures the command line prints too.

Money through `promolab.display` in the result's currency; a budget's limit
and use are money or a count by the budget's family (`BUDGET_FAMILIES`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ...display import MISSING, format_count, format_money, is_missing
from ...rich_summary import Summary, Table, currency_of

if TYPE_CHECKING:
    from .result import ForecastResult
    from .scenarios import ScenarioComparison

__all__ = ["BUDGET_HEADER", "CAMPAIGN_HEADER", "budget_caption", "budget_figure", "budget_rows", "campaign_rows",
           "comparison_line", "comparison_summary", "forecast_line", "forecast_summary"]


def budget_figure(measure: str, value: object, currency: str) -> str:
    """A budgets row's `limit` or `used` for people, by the row's `measure`:
    money for a budget of an amount (discount, order amount), a count for one
    of redemptions or codes."""
    if is_missing(value):
        return MISSING
    return format_money(value, currency) if measure != "count" else format_count(value)


#: The per-campaign and per-budget tables, as the notebook and the command line show them.
CAMPAIGN_HEADER = ("campaign", "redemptions", "discount", "held back")
BUDGET_HEADER = ("tier", "rule", "limit", "used", "ran out at", "held back")


def budget_caption(result: ForecastResult) -> str:
    return f"budgets and limits (ran out at: the first order one refused, {result.timezone})"


def campaign_rows(result: ForecastResult, currency: str) -> list[tuple[str, ...]]:
    """One row of text per campaign (`ForecastResult.summary`): redemptions, discount, held back."""
    return [(str(r.campaign_id), format_count(r.redemptions), format_money(r.discount, currency),
             format_count(r.held_back)) for r in result.summary().itertuples()]


def forecast_line(result: ForecastResult) -> str:
    orders, redeemed, discount, held = result.totals()
    return (f"<ForecastResult {format_count(orders)} orders: {format_count(redeemed)} redeemed, "
            f"{format_money(discount, currency_of(result))} discount, {format_count(held)} held back by budgets>")


def forecast_summary(result: ForecastResult) -> Summary:
    """Totals, then per campaign, then per budget (when the tiers have any)."""
    currency = currency_of(result)
    orders, redeemed, discount, held = result.totals()
    placed = result.orders["placed_at"]
    facts = [("orders", format_count(orders)), ("redeemed", format_count(redeemed)),
             ("discount", format_money(discount, currency)), ("held back by budgets", format_count(held)),
             ("candidate tiers", format_count(len(result.tier_ids)))]
    if len(placed):
        facts.append(("placed", f"{placed.min():%Y-%m-%d %H:%M} to {placed.max():%Y-%m-%d %H:%M} {result.timezone}"))
    if result.excluded:
        facts.append(("left out", ", ".join(f"{t} ({why})" for t, why in result.excluded.items())))
    campaigns = Table("per campaign", CAMPAIGN_HEADER, tuple(campaign_rows(result, currency)))
    budgets = Table(budget_caption(result), BUDGET_HEADER, tuple(budget_rows(result, currency)))
    return Summary("ForecastResult", facts, (campaigns, budgets) if budgets.rows else (campaigns,))


def budget_rows(result: ForecastResult, currency: str) -> list[tuple[str, ...]]:
    """One row of text per budget: tier, rule, limit, used, ran out at, held back."""
    rows: list[tuple[str, ...]] = []
    for r in result.budgets.itertuples():
        rule = str(r.rule)
        ran_out = MISSING if is_missing(r.ran_out_at) else pd.Timestamp(r.ran_out_at).isoformat(sep=" ")
        measure = str(r.measure)  # the budgets frame says what its limit counts
        rows.append((str(r.tier_id), rule, budget_figure(measure, r.limit, currency),
                     budget_figure(measure, r.used, currency), ran_out, format_count(r.orders_held_back)))
    return rows


def comparison_line(comparison: ScenarioComparison) -> str:
    currency = currency_of(comparison)
    shown = ", ".join(f"{name} {format_money(r.totals().discount, currency)}" for name, r in comparison.results.items())
    return f"<ScenarioComparison of {len(comparison.results)} scenarios, discount: {shown}>"


def comparison_summary(comparison: ScenarioComparison) -> Summary:
    """One row per scenario (`totals()`), then per campaign and scenario."""
    currency = currency_of(comparison)
    totals = Table("per scenario", ("scenario", "orders", "redeemed", "discount", "held back", "margin"), tuple(
        (str(r.scenario), format_count(r.orders), format_count(r.redeemed), format_money(r.discount, currency),
         format_count(r.held_back), format_money(r.margin, currency))
        for r in comparison.totals().itertuples()))
    wide = comparison.campaigns()
    names = comparison.names
    header = ("campaign", *[f"discount [{n}]" for n in names], *[f"redemptions [{n}]" for n in names])
    rows = tuple((str(campaign), *[format_money(wide.loc[campaign, ("discount", n)], currency) for n in names],
                  *[format_count(wide.loc[campaign, ("redemptions", n)]) for n in names]) for campaign in wide.index)
    facts = [("scenarios", ", ".join(names)), ("currency", currency)]
    return Summary("ScenarioComparison", facts, (totals, Table("per campaign", header, rows)))
