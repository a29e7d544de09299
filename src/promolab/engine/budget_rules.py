"""Budget and limit rules: validation rules that read what was already redeemed.

The service keeps campaign budgets and per-customer or per-period limits as
validation rules (the names below). Their subject is not in the request but
in the redemptions made so far, so the engine asks a `Usage` for it: the
simulator answers from its redemption records (`sim.usage`), the analysis
layer from its own running totals, and a caller with neither gets 0 (nothing
spent yet: the budget rules pass unless their bound is 0).

A rule compares the total **so far**, before the redemption being checked:
`redemption.count.per_customer $less_than [1]` lets each customer redeem
once; `campaign.orders.amount_discounted $less_than [100000]` stops the
campaign once $1,000.00 of discounts were given (the redemption that crosses
the line still goes through: docs/decisions.md § Budgets).

Periods (`.daily`, `.weekly`, `.monthly`) are calendar periods in the
project's time zone, weeks starting on the project's first day of the week
(`period_start`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Literal, Protocol
from zoneinfo import ZoneInfo

__all__ = [
    "BUDGET_FAMILIES",
    "QUALIFICATION_IGNORED",
    "WEEKDAY",
    "Period",
    "Usage",
    "UsageQuery",
    "WeekStart",
    "period_start",
]

Period = Literal["daily", "weekly", "monthly"]
WeekStart = Literal["MONDAY", "SATURDAY", "SUNDAY"]
#: Python weekday (Monday = 0) of each first day of the week.
WEEKDAY: dict[WeekStart, int] = {"MONDAY": 0, "SATURDAY": 5, "SUNDAY": 6}


@dataclass(frozen=True, slots=True)
class UsageQuery:
    """What a budget rule counts: redemptions of the redeemable itself or of
    its whole campaign; how many, the discount they gave, or the order
    amounts they were made on; of this customer only or of everyone; in the
    current period or ever."""

    scope: Literal["redeemable", "campaign"]
    measure: Literal["count", "discount", "order_amount"] = "count"
    per_customer: bool = False
    period: Period | None = None


class Usage(Protocol):
    """Answers budget rules: the total of `query` so far, for the redeemable
    `redeemable_id` (a code or a tier id) of campaign `campaign_id`, for
    `customer_id` (None: no customer given), at `now`."""

    def value(
        self, query: UsageQuery, redeemable_id: str, campaign_id: str, customer_id: str | None, now: datetime
    ) -> int: ...


_PERIODS: tuple[Period, ...] = ("daily", "weekly", "monthly")


def _with_periods(name: str, query: UsageQuery) -> dict[str, UsageQuery]:
    """`name` ever, and `name.daily` / `.weekly` / `.monthly`."""
    return {name: query, **{f"{name}.{period}": replace(query, period=period) for period in _PERIODS}}


#: The rule names the service documents for budgets and limits, with what each counts.
BUDGET_FAMILIES: dict[str, UsageQuery] = {
    **_with_periods("redemption.count.per_customer", UsageQuery("redeemable", per_customer=True)),
    "redemption.count.daily": UsageQuery("redeemable", period="daily"),
    "redemption.count.weekly": UsageQuery("redeemable", period="weekly"),
    "redemption.count.monthly": UsageQuery("redeemable", period="monthly"),
    **_with_periods("campaign.redemptions.count", UsageQuery("campaign")),
    **_with_periods("campaign.redemptions.customers_count", UsageQuery("campaign", per_customer=True)),
    "campaign.orders.amount_discounted": UsageQuery("campaign", "discount"),
    "campaign.orders.amount": UsageQuery("campaign", "order_amount"),
}

#: The rules qualifications do not check (the service's list: campaign
#: budgets of discount and redemptions, redemptions per customer, and the
#: order amount before discounts).
QUALIFICATION_IGNORED = frozenset(
    name for name in BUDGET_FAMILIES
    if name.startswith(("campaign.redemptions.", "redemption.count.per_customer"))
) | {"campaign.orders.amount_discounted", "order.amount"}


def period_start(now: datetime, period: Period, timezone: str = "UTC", week_start: WeekStart = "MONDAY") -> datetime:
    """The first instant of the calendar day, week or month holding `now`,
    in `timezone` (midnight local time; an aware datetime)."""
    # Arithmetic on a datetime of a ZoneInfo zone is on the wall clock, and the
    # offset is that of the resulting day: midnight stays midnight across DST.
    local = now.astimezone(ZoneInfo(timezone))
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "monthly":
        return midnight.replace(day=1)
    if period == "weekly":
        return midnight - timedelta(days=(midnight.weekday() - WEEKDAY[week_start]) % 7)
    return midnight
