"""Budget and limit rules: what each counts, how a verdict follows from it, and calendar periods.

The engine asks a `Usage` for the total a budget rule compares; a fake one
here records the questions and answers from a table, so each family is
checked for the query it asks (scope, measure, per customer, period) and for
the verdict it draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from pricing_builders import NOW, campaign, ctx, customer, tier

from promolab.engine import (
    BUDGET_FAMILIES,
    QUALIFICATION_IGNORED,
    Catalogue,
    UsageQuery,
    compile_tier,
    normalize_order,
    period_start,
    price_normalized,
)

AMOUNT_OFF = {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"}
ORDER = {"amount": 5000}


@dataclass
class FakeUsage:
    """Answers `values[(redeemable, query)]` (0 when absent) and records each question."""

    values: dict[tuple[str, UsageQuery], int] = field(default_factory=dict)
    asked: list[tuple[UsageQuery, str, str, str | None]] = field(default_factory=list)

    def value(self, query: UsageQuery, redeemable_id: str, campaign_id: str, customer_id: str | None,
              now: datetime) -> int:
        self.asked.append((query, redeemable_id, campaign_id, customer_id))
        return self.values.get((redeemable_id, query), 0)


def _q(scope: str, measure: str = "count", per_customer: bool = False, period: str | None = None) -> UsageQuery:
    return UsageQuery(scope, measure, per_customer, period)  # type: ignore[arg-type]  # literals from the table


#: family -> the question it asks
FAMILIES: dict[str, UsageQuery] = {
    "redemption.count.per_customer": _q("redeemable", per_customer=True),
    "redemption.count.per_customer.daily": _q("redeemable", per_customer=True, period="daily"),
    "redemption.count.per_customer.weekly": _q("redeemable", per_customer=True, period="weekly"),
    "redemption.count.per_customer.monthly": _q("redeemable", per_customer=True, period="monthly"),
    "redemption.count.daily": _q("redeemable", period="daily"),
    "redemption.count.weekly": _q("redeemable", period="weekly"),
    "redemption.count.monthly": _q("redeemable", period="monthly"),
    "campaign.redemptions.count": _q("campaign"),
    "campaign.redemptions.count.daily": _q("campaign", period="daily"),
    "campaign.redemptions.count.weekly": _q("campaign", period="weekly"),
    "campaign.redemptions.count.monthly": _q("campaign", period="monthly"),
    "campaign.redemptions.customers_count": _q("campaign", per_customer=True),
    "campaign.redemptions.customers_count.daily": _q("campaign", per_customer=True, period="daily"),
    "campaign.redemptions.customers_count.weekly": _q("campaign", per_customer=True, period="weekly"),
    "campaign.redemptions.customers_count.monthly": _q("campaign", per_customer=True, period="monthly"),
    "campaign.orders.amount_discounted": _q("campaign", "discount"),
    "campaign.orders.amount": _q("campaign", "order_amount"),
}


def test_every_budget_family_has_a_case() -> None:
    assert set(FAMILIES) == set(BUDGET_FAMILIES)


def _price(rules: dict[str, Any], usage: FakeUsage | None, *, tier_id: str = "promo_a", **ctx_kw: Any):  # type: ignore[no-untyped-def]
    compiled = compile_tier(tier(AMOUNT_OFF, id=tier_id, rules=rules, campaign=campaign(id="camp_budget")))
    order = normalize_order(Catalogue(), ORDER, None)
    return price_normalized(Catalogue(), compiled, order, customer(id="cust_ann"), ctx(usage=usage, **ctx_kw))


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize(("spent", "valid"), [(2, True), (3, False), (4, False)])
def test_a_budget_rule_compares_what_was_spent(name: str, spent: int, valid: bool) -> None:
    query = FAMILIES[name]
    usage = FakeUsage({("promo_a", query): spent})
    outcome = _price({"rules": {"1": {"name": name, "conditions": {"$less_than": [3]}}}}, usage)
    assert outcome.valid is valid
    assert usage.asked == [(query, "promo_a", "camp_budget", "cust_ann")]
    if not valid:
        assert (outcome.reason_key, outcome.reason) == ("redemption_rules_violated", f"{name} must be less than 3")


def test_without_a_usage_nothing_was_spent() -> None:
    rule = {"rules": {"1": {"name": "campaign.redemptions.count", "conditions": {"$less_than": [1]}}}}
    assert _price(rule, None).valid
    stopped = {"rules": {"1": {"name": "campaign.redemptions.count", "conditions": {"$less_than": [0]}}}}
    assert not _price(stopped, None).valid


def test_the_same_rule_on_two_tiers_counts_two_budgets() -> None:
    """Rule leaves are shared between tiers with equal rules; a budget
    verdict must not be (each tier has spent its own)."""
    rule = {"rules": {"1": {"name": "redemption.count.daily", "conditions": {"$less_than": [1]}}}}
    query = FAMILIES["redemption.count.daily"]
    usage = FakeUsage({("promo_spent", query): 1})
    assert [_price(rule, usage, tier_id=t).valid for t in ("promo_spent", "promo_fresh", "promo_spent")] == [
        False, True, False,
    ]


def test_qualifications_ignore_their_list_and_check_the_rest() -> None:
    usage = FakeUsage({("promo_a", q): 99 for q in FAMILIES.values()})
    for name in FAMILIES:
        rule = {"rules": {"1": {"name": name, "conditions": {"$less_than": [1]}}}}
        outcome = _price(rule, usage, ignored_rules=QUALIFICATION_IGNORED)
        assert outcome.valid is (name in QUALIFICATION_IGNORED), name
    # the order amount before discounts is on the list too
    big = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [999999]}}}}
    assert _price(big, None, ignored_rules=QUALIFICATION_IGNORED).valid
    assert not _price(big, None).valid


# -- calendar periods -------------------------------------------------------------------------------
def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.parametrize(("now", "period", "zone", "week_start", "start"), [
    # the service's example week: Monday 5 January 2026 00:00 to Sunday 11 January
    ("2026-01-07T12:00:00+00:00", "weekly", "UTC", "MONDAY", "2026-01-05T00:00:00+00:00"),
    ("2026-01-11T23:59:59+00:00", "weekly", "UTC", "MONDAY", "2026-01-05T00:00:00+00:00"),
    ("2026-01-12T00:00:00+00:00", "weekly", "UTC", "MONDAY", "2026-01-12T00:00:00+00:00"),
    ("2026-01-07T12:00:00+00:00", "weekly", "UTC", "SUNDAY", "2026-01-04T00:00:00+00:00"),
    ("2026-01-07T12:00:00+00:00", "weekly", "UTC", "SATURDAY", "2026-01-03T00:00:00+00:00"),
    # a day and a month in the project's zone, not UTC's
    ("2026-01-07T23:30:00+00:00", "daily", "Europe/Berlin", "MONDAY", "2026-01-08T00:00:00+01:00"),
    ("2026-02-01T03:00:00+00:00", "monthly", "America/New_York", "MONDAY", "2026-01-01T00:00:00-05:00"),
    # across DST: the week began before the clocks moved (Berlin, 29 March 2026)
    ("2026-03-31T10:00:00+00:00", "weekly", "Europe/Berlin", "MONDAY", "2026-03-30T00:00:00+02:00"),
    ("2026-03-29T10:00:00+00:00", "weekly", "Europe/Berlin", "MONDAY", "2026-03-23T00:00:00+01:00"),
    ("2026-03-29T10:00:00+00:00", "daily", "Europe/Berlin", "MONDAY", "2026-03-29T00:00:00+01:00"),
])
def test_period_start(now: str, period: Any, zone: str, week_start: Any, start: str) -> None:
    found = period_start(_at(now), period, zone, week_start)
    assert found == _at(start)
    assert found.utcoffset() == _at(start).utcoffset()


def test_the_instant_is_aware() -> None:
    assert period_start(NOW, "daily").tzinfo is not None
    assert period_start(datetime(2026, 5, 31, 23, 0, tzinfo=UTC), "monthly") == datetime(2026, 5, 1, tzinfo=UTC)
