"""Budgets and limits spent by redemptions, counted in the project's calendar.

Each case redeems a tier again and again on a simulator whose tier carries one
budget rule, moving the simulated clock between redemptions, and checks which
redemptions go through. Then: a rollback frees what it spent, promotion
validation sees budgets too, and qualifications' ignore list is not applied
to redemptions.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from promolab import Simulator
from promolab.client import ApiError

ORDER = {"items": [{"product_id": "prod_a", "quantity": 1}]}  # $100.00


def _sim(rule: dict[str, Any], *, timezone: str = "UTC", week_start: str = "MONDAY",
         start: str = "2026-03-02T10:00:00Z") -> Simulator:
    return Simulator(scenario={
        "version": 1,
        "project": {"id": "proj_budget", "timezone": timezone, "week_start": week_start},
        "clock": {"start": start},
        "catalogue": {"products": [{"id": "prod_a", "name": "A", "price": 10000}]},
        "customers": [{"id": "cust_ann", "source_id": "ann"}, {"id": "cust_bo", "source_id": "bo"}],
        "campaigns": [{"id": "camp_b", "name": "Budgeted", "tiers": [
            {"id": "promo_b", "name": "$10 off", "discount": {"type": "AMOUNT", "amount_off": 1000},
             "validation_rules": {"rules": {"1": rule}}},
            {"id": "promo_sibling", "name": "$1 off", "discount": {"type": "AMOUNT", "amount_off": 100},
             "validation_rules": {"rules": {"1": rule}}},
        ]}],
    })


def _redeem(sim: Simulator, who: str = "ann", tier: str = "promo_b") -> str | None:
    """The redemption's id, or None when refused for a budget."""
    with sim.client() as client:
        try:
            answer = client.redeem_stacked(redeemables=[{"object": "promotion_tier", "id": tier}],
                                           customer={"source_id": who}, order=ORDER)
        except ApiError as exc:
            assert (exc.status, exc.key) == (400, "redemption_rules_violated"), exc
            return None
    return answer.redemptions[0].id


def _rule(name: str, bound: int) -> dict[str, Any]:
    return {"name": name, "conditions": {"$less_than": [bound]}}


# (rule, steps: (hours to move the clock first, customer, tier, goes through?)), project calendar
CASES: list[tuple[str, dict[str, Any], list[tuple[float, str, str, bool]], dict[str, str]]] = [
    ("once per customer", _rule("redemption.count.per_customer", 1),
     [(0, "ann", "promo_b", True), (0, "ann", "promo_b", False), (0, "bo", "promo_b", True),
      (0, "ann", "promo_sibling", True)], {}),
    ("two a day, across local midnight in Berlin (start 10:00Z = 11:00 local)",
     _rule("redemption.count.daily", 2),
     [(0, "ann", "promo_b", True), (1, "bo", "promo_b", True), (1, "ann", "promo_b", False),
      (10, "ann", "promo_b", False),  # 22:00Z = 23:00 Berlin: same day
      (1.5, "ann", "promo_b", True)],  # 23:30Z = 00:30 Berlin: a new day
     {"timezone": "Europe/Berlin"}),
    ("one a week, weeks from Sunday (start Monday 2 March)",
     _rule("campaign.redemptions.count.weekly", 1),
     [(0, "ann", "promo_b", True), (24, "bo", "promo_sibling", False),
      (24 * 5, "bo", "promo_b", True)],  # Sunday 8 March: a new week
     {"week_start": "SUNDAY"}),
    ("a $15.00 discount budget for the campaign: the redemption that crosses it goes through",
     _rule("campaign.orders.amount_discounted", 1500),
     [(0, "ann", "promo_b", True), (0, "bo", "promo_sibling", True), (0, "bo", "promo_b", True),
      (0, "ann", "promo_sibling", False)], {}),
    ("once a month per customer in the campaign",
     _rule("campaign.redemptions.customers_count.monthly", 1),
     [(0, "ann", "promo_b", True), (0, "ann", "promo_sibling", False), (24 * 30, "ann", "promo_b", True)], {}),
]


@pytest.mark.parametrize(("name", "rule", "steps", "calendar"), CASES, ids=[c[0] for c in CASES])
def test_budgets_are_spent_in_the_project_calendar(name: str, rule: dict[str, Any],
                                                   steps: list[tuple[float, str, str, bool]],
                                                   calendar: dict[str, str]) -> None:
    sim = _sim(rule, **calendar)
    went = []
    for hours, who, tier, _ in steps:
        sim.advance(timedelta(hours=hours))
        went.append(_redeem(sim, who, tier) is not None)
    assert went == [expected for *_, expected in steps]


def test_a_rollback_frees_what_it_spent_and_a_refusal_changes_nothing() -> None:
    sim = _sim(_rule("campaign.redemptions.count", 1))
    first = _redeem(sim)
    assert first is not None
    before = sim.dump()
    assert _redeem(sim, "bo") is None
    assert sim.dump() == before
    with sim.client() as client:
        client.rollback_redemption(first)
    assert _redeem(sim, "bo") is not None


def test_promotion_validation_sees_budgets() -> None:
    sim = _sim(_rule("campaign.redemptions.count", 1))
    with sim.client() as client:
        listed = [t.id for t in client.validate_promotions(order=ORDER).promotions]
        _redeem(sim)
        after = [t.id for t in client.validate_promotions(order=ORDER).promotions]
    assert (listed, after) == (["promo_b", "promo_sibling"], [])


def test_an_unknown_time_zone_is_refused_with_its_path() -> None:
    with pytest.raises(Exception, match=r"project.timezone: .*unknown time zone 'Mars/Base'"):
        _sim(_rule("campaign.redemptions.count", 1), timezone="Mars/Base")
