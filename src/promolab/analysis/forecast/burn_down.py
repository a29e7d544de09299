"""A campaign's burn-down read from its forecast: the budget is the scenario's.

`plot_burn_down` draws running totals against a number it is given; a reader
who copies "500_000" from the scenario into a notebook can copy it wrong, and
a line past the budget raises the question the chart should answer: how can a
budget be overrun? Here the budget is the forecast's own `budgets` row for the
campaign's whole total (a `campaign.*` rule with no period, not per customer:
the one a running total over the month can be held against), and the caption
says why the line goes on past it: the budget refuses the tiers that carry it,
while the campaign's other tiers, which have no such rule, keep redeeming and
keep adding to the campaign's total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...display import format_money
from ..cohort_charts import plot_burn_down
from .calendar_periods import Freq

if TYPE_CHECKING:
    from .result import ForecastResult

__all__ = ["BurnDownBudget", "campaign_budget", "plot_campaign_burn_down"]


@dataclass(frozen=True)
class BurnDownBudget:
    """The budget of a campaign's whole total, from a forecast's `budgets`."""

    rule: str
    #: what `limit` counts: the budgets row's `measure` ("count", or an amount in minor units)
    measure: str
    limit: int
    #: the tiers that carry the rule (the ones it refuses)
    tier_ids: tuple[str, ...]
    #: when it first refused an order (None: it never did)
    ran_out_at: pd.Timestamp | None

    @property
    def value(self) -> str:
        """What it counts: "discount" (minor units) or "redemptions"."""
        return "redemptions" if self.measure == "count" else "discount"


def campaign_budget(result: ForecastResult, campaign: str) -> BurnDownBudget:
    """The campaign's budget of its whole total; a ValueError naming what there is otherwise."""
    b = result.budgets
    if campaign not in set(result.tier_campaigns.values()):
        raise ValueError(f"no campaign {campaign!r} in the forecast; campaigns: "
                         f"{', '.join(sorted(set(result.tier_campaigns.values())))}")
    whole = (b["campaign_id"] == campaign) & b["period"].isna() & ~b["per_customer"].astype(bool) \
        & b["rule"].str.startswith("campaign.") & b["limit"].notna()
    rows = b[whole.fillna(False).to_numpy(dtype=bool)]
    if rows.empty:
        others = b.loc[(b["campaign_id"] == campaign).fillna(False).to_numpy(dtype=bool), "rule"]
        found = ", ".join(dict.fromkeys(others.astype(str))) or "none"
        raise ValueError(f"campaign {campaign!r} has no budget of its whole total (a campaign.* rule without "
                         f"a period); its budget rules: {found}")
    first = rows.iloc[0]
    same = rows[(rows["rule"] == first["rule"]) & (rows["limit"] == first["limit"])]
    times = same["ran_out_at"].dropna()
    return BurnDownBudget(str(first["rule"]), str(first["measure"]), int(first["limit"]),
                          tuple(same["tier_id"].astype(str)),
                          times.min() if len(times) else None)


def _why(result: ForecastResult, campaign: str, budget: BurnDownBudget, currency: str) -> str | None:
    """Why the campaign's total goes past the budget: what its other tiers added
    after the budget first refused (or, without a refusal, nothing to say)."""
    if budget.ran_out_at is None:
        return None
    r = result.redemptions
    placed = result.orders["placed_at"].iloc[r["row"].to_numpy()].to_numpy() >= budget.ran_out_at
    late = r[(r["campaign_id"] == campaign).to_numpy() & placed & ~r["tier_id"].isin(budget.tier_ids).to_numpy()]
    names = [result.names.get(t, t) for t in dict.fromkeys(late["tier_id"].astype(str))]
    held = " and ".join(result.names.get(t, t) for t in budget.tier_ids)
    refused = f"from {budget.ran_out_at.strftime('%d %b %H:%M')} the budget refuses {held}"
    if not names:
        return refused + "; the orders redeemed before the check took the total past it"
    added = (format_money(int(late["discount"].sum()), currency) if budget.value == "discount"
             else f"{len(late):,} redemptions")
    return (f"{refused};\nthe campaign's other tiers have no such budget and keep redeeming\n"
            f"({', '.join(names)}: {added} more)")


def plot_campaign_burn_down(result: ForecastResult, campaign: str, *, freq: Freq = "day", ax: Any = None,
                            currency: str = "USD") -> Any:
    """`plot_burn_down` of one campaign's `periods(freq)` against its budget from
    the scenario, labelled by name, the crossing explained. Returns the Axes."""
    budget = campaign_budget(result, campaign)
    periods = result.periods(freq)
    rows = periods[(periods["campaign_id"] == campaign).to_numpy(dtype=bool)]
    ax = plot_burn_down(rows, budget.limit, value=budget.value, cumulative=True, ax=ax, currency=currency,
                        note=_why(result, campaign, budget, currency), names=result.names)
    ax.set_title(f"{result.names.get(campaign, campaign)}: running total against its budget ({budget.rule})")
    return ax
