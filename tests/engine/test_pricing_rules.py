"""Conditions, rule families, logic strings, audience_only and campaign checks (table-driven)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pricing_builders import NOW, campaign, ctx, customer, tier

from promolab.engine import (
    AUDIENCE_FAMILIES,
    BUDGET_FAMILIES,
    OPERATORS,
    RULE_FAMILIES,
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    TierConfigError,
    compile_tier,
    normalize_order,
    outcome_wire,
    price_normalized,
    price_tier,
)

AMOUNT_OFF = {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"}

# --- operators: one pass and one fail case each ----------------------------------------------
# (operator, args, passing value, failing value)
OPERATOR_CASES: list[tuple[str, list[Any], Any, Any]] = [
    ("$is", ["gold"], "gold", "silver"),
    ("$is_not", ["gold"], "silver", "gold"),
    ("$in", ["a", "b"], "b", "c"),
    ("$not_in", ["a", "b"], "c", "a"),
    ("$more_than", [100], 101, 100),
    ("$more_than_or_equal", [100], 100, 99),
    ("$less_than", [100], 99, 100),
    ("$less_than_or_equal", [100], 100, 101),
    ("$starts_with", ["VIP"], "VIP-42", "X-VIP"),
    ("$ends_with", [".com"], "a@b.com", "a@b.org"),
    ("$contains", ["card"], "credit-card", "cash"),
    ("$count", [2], ["a", "b"], ["a"]),
    ("$count_more", [1], ["a", "b"], ["a"]),
    ("$count_less", [2], ["a"], ["a", "b"]),
    ("$after", ["2025-01-01T00:00:00Z"], "2025-06-01T00:00:00Z", "2024-06-01T00:00:00Z"),
    ("$before", ["2025-01-01T00:00:00Z"], "2024-06-01T00:00:00Z", "2025-06-01T00:00:00Z"),
    (
        "$is_days_ago",
        [3],
        (NOW - timedelta(days=3)).isoformat(),
        (NOW - timedelta(days=4)).isoformat(),
    ),
    ("$is_days_in_future", [2], (NOW + timedelta(days=2)).isoformat(), NOW.isoformat()),
    (
        "$more_than_ago",
        [7],
        (NOW - timedelta(days=8)).isoformat(),
        (NOW - timedelta(days=6)).isoformat(),
    ),
    (
        "$less_than_ago",
        [7],
        (NOW - timedelta(days=6)).isoformat(),
        (NOW - timedelta(days=8)).isoformat(),
    ),
    (
        "$more_than_future",
        [7],
        (NOW + timedelta(days=8)).isoformat(),
        (NOW + timedelta(days=6)).isoformat(),
    ),
    (
        "$less_than_future",
        [7],
        (NOW + timedelta(days=6)).isoformat(),
        (NOW + timedelta(days=8)).isoformat(),
    ),
]


def test_every_operator_has_a_case() -> None:
    assert {c[0] for c in OPERATOR_CASES} == set(OPERATORS)


@pytest.mark.parametrize(
    ("op", "args", "good", "bad"), OPERATOR_CASES, ids=[c[0] for c in OPERATOR_CASES]
)
def test_operator_pass_and_fail(op: str, args: list[Any], good: Any, bad: Any) -> None:
    check = OPERATORS[op]
    assert check(good, args, NOW) is True
    assert check(bad, args, NOW) is False


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_missing_value_fails_except_negations(op: str) -> None:
    assert OPERATORS[op](None, ["x"], NOW) is (op in ("$is_not", "$not_in"))


def test_list_values_and_numeric_strings() -> None:
    assert OPERATORS["$is"](["credit-card", "cash"], ["cash"], NOW)
    assert not OPERATORS["$not_in"](["credit-card", "cash"], ["cash"], NOW)
    assert OPERATORS["$is"]("100", [100], NOW)
    assert OPERATORS["$more_than"]("150", [100], NOW)
    assert not OPERATORS["$is"](True, [1], NOW)


# --- rule families: one pass and one fail case each ----------------------------------------
CAT = Catalogue(
    products=[
        CatalogueProduct("prod_shoe", "shoe", "Shoe", 5000, metadata={"brand": "acme"}),
        CatalogueProduct("prod_sock", "sock", "Sock", 500, metadata={"brand": "other"}),
        CatalogueProduct("prod_hat", "hat", "Hat", 2000),
    ],
    skus=[CatalogueSku("sku_shoe_42", "shoe-42", "Shoe 42", "prod_shoe", 5500)],
    collections=[CatalogueCollection("pc_feet", "Feet", product_ids=frozenset({"prod_shoe", "prod_sock"}))],
)
ORDER = {
    "items": [
        {"sku_id": "sku_shoe_42", "quantity": 1},
        {"product_id": "prod_sock", "quantity": 3},
    ],
    "metadata": {"channel": "web", "payment_mean": ["credit-card"]},
}  # 5500 + 1500 = 7000, 2 lines, 4 units
GOLD = customer(
    id="cust_1",
    source_id="c1",
    metadata={"tier": "gold", "age": 30},
    segment_ids=frozenset({"seg_vip"}),
)


def _rule(name: str, conditions: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"rules": {"1": {"name": name, "conditions": conditions, **extra}, "logic": "1"}}


# (family, rule kwargs, passing conditions, failing conditions)
FAMILY_CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    ("order.amount", {}, {"$more_than": [6999]}, {"$more_than": [7000]}),
    ("order.initial_amount", {}, {"$is": [7000]}, {"$less_than": [7000]}),
    # after the tier's own 100 off (AMOUNT_OFF): 7000 - 100
    ("order.total_amount", {}, {"$is": [6900]}, {"$more_than": [6900]}),
    ("order.items.count", {}, {"$is": [2]}, {"$more_than": [2]}),
    ("order.items.quantity", {}, {"$more_than_or_equal": [4]}, {"$more_than": [4]}),
    ("order.items.price_each", {}, {"$more_than": [400]}, {"$more_than": [600]}),
    ("order.items.price_any", {}, {"$more_than": [5000]}, {"$more_than": [6000]}),
    ("order.metadata", {"property": "channel"}, {"$is": ["web"]}, {"$is": ["store"]}),
    ("order.items.metadata", {"property": "brand"}, {"$is": ["acme"]}, {"$is": ["nike"]}),
    ("order.items.any", {}, {"$in": ["prod_hat", "prod_sock"]}, {"$in": ["prod_hat"]}),
    ("order.items.every", {}, {"$in": ["pc_feet"]}, {"$in": ["prod_sock"]}),
    ("order.items.none", {}, {"$in": ["prod_hat"]}, {"$in": ["sku_shoe_42"]}),
    ("product.id", {}, {"$in": ["prod_shoe"]}, {"$in": ["prod_hat"]}),
    ("sku.id", {}, {"$is": ["sku_shoe_42"]}, {"$is_not": ["sku_shoe_42"]}),
    ("products_collection.id", {}, {"$in": ["pc_feet"]}, {"$not_in": ["pc_feet"]}),
    ("customer.metadata", {"property": "tier"}, {"$is": ["gold"]}, {"$is": ["silver"]}),
    ("customer.segment", {}, {"$in": ["seg_vip"]}, {"$not_in": ["seg_vip"]}),
    ("redemption.metadata", {"property": "store"}, {"$is": ["NY"]}, {"$is": ["LA"]}),
]


def test_every_family_has_a_case() -> None:
    """Budget families read what was redeemed: test_budget_rules.py has theirs."""
    assert {c[0] for c in FAMILY_CASES} == set(RULE_FAMILIES) - set(BUDGET_FAMILIES)


def _evaluate(rules: dict[str, Any], *, order: dict[str, Any] = ORDER, **ctx_kw: Any):  # type: ignore[no-untyped-def]
    ctx_kw.setdefault("redemption_metadata", {"store": "NY"})
    return price_tier(CAT, tier(AMOUNT_OFF, rules=rules), order, GOLD, ctx(**ctx_kw))


@pytest.mark.parametrize(
    ("family", "extra", "good", "bad"), FAMILY_CASES, ids=[c[0] for c in FAMILY_CASES]
)
def test_rule_family_pass_and_fail(
    family: str, extra: dict[str, Any], good: dict[str, Any], bad: dict[str, Any]
) -> None:
    assert _evaluate(_rule(family, good, **extra)).valid is True
    failed = _evaluate(_rule(family, bad, **extra))
    assert failed.valid is False
    expected_key = (
        "customer_rules_violated"
        if family.startswith("customer.")
        else "redemption_rules_violated"
        if family.startswith("redemption.")
        else "order_rules_violated"
    )
    assert failed.reason_key == expected_key
    assert failed.reason and family in failed.reason
    assert outcome_wire(failed).order is None and failed.discount_amount is None


def test_reason_text_names_rule_and_bound() -> None:
    out = _evaluate(_rule("order.amount", {"$more_than": [10000]}))
    assert (out.reason_key, out.reason) == (
        "order_rules_violated",
        "order.amount must be more than 10000",
    )


def test_custom_error_message_wins() -> None:
    rules = _rule("order.amount", {"$more_than": [10000]}, error={"message": "Spend $100 first"})
    assert _evaluate(rules).reason == "Spend $100 first"
    fallback = {**_rule("order.amount", {"$more_than": [10000]}), "error": {"message": "Nope"}}
    assert _evaluate(fallback).reason == "Nope"


def test_product_rule_with_sub_rules() -> None:
    sub = {
        "1": {"name": "product.aggregated_quantity", "conditions": {"$more_than_or_equal": [3]}},
        "2": {"name": "product.price", "conditions": {"$less_than": [1000]}},
        "logic": "1 and 2",
    }
    assert _evaluate(_rule("product.id", {"$in": ["prod_sock"]}, rules=sub)).valid
    sub_bad = {
        **sub,
        "1": {"name": "product.aggregated_quantity", "conditions": {"$more_than": [3]}},
    }
    assert not _evaluate(_rule("product.id", {"$in": ["prod_sock"]}, rules=sub_bad)).valid


def test_object_targets_and_product_matches_its_skus() -> None:
    target = [{"id": "prod_shoe", "object": "product"}]
    assert _evaluate(_rule("order.items.any", {"$is": target})).valid  # the SKU line is a shoe


def test_empty_cart_every_and_price_each_fail() -> None:
    empty = {"items": []}
    assert not _evaluate(_rule("order.items.every", {"$in": ["pc_feet"]}), order=empty).valid
    assert not _evaluate(_rule("order.items.price_each", {"$more_than": [0]}), order=empty).valid
    assert _evaluate(_rule("order.items.none", {"$in": ["pc_feet"]}), order=empty).valid


# --- logic strings ------------------------------------------------------------------------
R_PASS = {"name": "order.amount", "conditions": {"$more_than": [0]}}
R_FAIL = {"name": "order.amount", "conditions": {"$more_than": [10**9]}}


@pytest.mark.parametrize(
    ("pattern", "logic", "valid"),
    [
        ("PPF", "1 and 2", True),
        ("PFF", "1 and 2", False),
        ("FPF", "1 or 2", True),
        ("FFP", "1 or 2", False),
        ("PFP", "1 and (2 or 3)", True),
        ("PFF", "1 and (2 or 3)", False),
        ("FPP", "1 and (2 or 3)", False),
        ("FPP", "1 or 2 and 3", True),  # and binds tighter than or
        ("FPF", "(1 or 2) and 3", False),
        ("PPF", "1 AND 2 AND NOT 3", True),
        ("PFF", "((1))", True),
        ("FFF", "not (1 or 2)", True),
    ],
)
def test_logic_strings(pattern: str, logic: str, valid: bool) -> None:
    rules = {str(i + 1): (R_PASS if c == "P" else R_FAIL) for i, c in enumerate(pattern)}
    assert _evaluate({"rules": {**rules, "logic": logic}}).valid is valid


def test_logic_next_to_rules_and_default_and() -> None:
    two = {"1": R_PASS, "2": R_FAIL}
    assert _evaluate({"rules": two, "logic": "1 or 2"}).valid
    assert not _evaluate({"rules": two}).valid  # no logic: all AND-ed


@pytest.mark.parametrize(
    "rules",
    [
        {"rules": {"1": R_PASS, "logic": "1 and"}},
        {"rules": {"1": R_PASS, "logic": "1 and 2"}},
        {"rules": {"1": R_PASS, "logic": "(1"}},
        {"rules": {"1": R_PASS, "logic": "1; import os"}},
        {"rules": {"1": {"name": "order.unknown", "conditions": {"$is": [1]}}}},
        {"rules": {"1": {"name": "order.amount", "conditions": {"$bogus": [1]}}}},
        {"rules": {"1": {"name": "customer.metadata", "conditions": {"$is": [1]}}}},  # no property
        {"rules": {"1": {"name": "redemption.count.per_customer", "conditions": {"$bogus": [2]}}}},
        {"rules": {"1": {"name": "redemption.count.hourly", "conditions": {"$less_than": [2]}}}},
    ],
)
def test_bad_rules_fail_at_compile_time(rules: dict[str, Any]) -> None:
    with pytest.raises(TierConfigError):
        compile_tier(tier(AMOUNT_OFF, rules=rules))


# --- audience_only -----------------------------------------------------------------------
def test_audience_families_are_the_customer_rules() -> None:
    assert AUDIENCE_FAMILIES == {"customer.metadata", "customer.segment"}


def test_audience_only_skips_order_rules_and_campaign_checks() -> None:
    rules = {
        "rules": {
            "1": R_FAIL,
            "2": {"name": "customer.segment", "conditions": {"$in": ["seg_vip"]}},
            "logic": "1 and 2",
        }
    }
    closed = campaign(active=False, expiration_date=NOW - timedelta(days=1))
    spec = tier(AMOUNT_OFF, rules=rules, campaign=closed)
    assert not price_tier(CAT, spec, ORDER, GOLD, ctx()).valid
    assert price_tier(CAT, spec, ORDER, GOLD, ctx(audience_only=True)).valid


def test_audience_only_still_checks_customer_rules() -> None:
    rules = {
        "rules": {
            "1": R_PASS,
            "2": {
                "name": "customer.metadata",
                "property": "tier",
                "conditions": {"$is": ["platinum"]},
            },
        }
    }
    out = price_tier(CAT, tier(AMOUNT_OFF, rules=rules), ORDER, GOLD, ctx(audience_only=True))
    assert (out.valid, out.reason_key) == (False, "customer_rules_violated")
    anonymous = price_tier(CAT, tier(AMOUNT_OFF, rules=rules), ORDER, None, ctx(audience_only=True))
    assert not anonymous.valid


# --- campaign checks on a given instant ----------------------------------------------------------
def _at(now: datetime, **camp: Any):  # type: ignore[no-untyped-def]
    return price_tier(CAT, tier(AMOUNT_OFF, campaign=campaign(**camp)), ORDER, None, ctx(now=now))


T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("name", "camp", "now", "key"),
    [
        ("active", {}, T0, None),
        ("disabled", {"active": False}, T0, "promotion_inactive"),
        ("before_start", {"start_date": T0 + timedelta(seconds=1)}, T0, "promotion_not_active_now"),
        ("at_start", {"start_date": T0}, T0, None),
        ("at_expiration", {"expiration_date": T0}, T0, None),
        (
            "after_expiration",
            {"expiration_date": T0 - timedelta(seconds=1)},
            T0,
            "promotion_not_active_now",
        ),
        ("monday_allowed", {"validity_day_of_week": [1, 2]}, T0, None),
        ("monday_not_allowed", {"validity_day_of_week": [0, 6]}, T0, "promotion_not_active_now"),
        ("sunday_is_0", {"validity_day_of_week": [0]}, T0 - timedelta(days=1), None),
        # windows of 1 h every 2 days from 2026-03-01T09:00Z: [09:00, 10:00) on Mar 1, 3, 5...
        (
            "timeframe_inside",
            {
                "start_date": datetime(2026, 3, 1, 9, tzinfo=UTC),
                "validity_timeframe": {"interval": "P2D", "duration": "PT1H"},
            },
            datetime(2026, 3, 3, 9, 59, tzinfo=UTC),
            None,
        ),
        (
            "timeframe_window_end",
            {
                "start_date": datetime(2026, 3, 1, 9, tzinfo=UTC),
                "validity_timeframe": {"interval": "P2D", "duration": "PT1H"},
            },
            datetime(2026, 3, 3, 10, 0, tzinfo=UTC),
            "promotion_not_active_now",
        ),
        (
            "timeframe_off_day",
            {
                "start_date": datetime(2026, 3, 1, 9, tzinfo=UTC),
                "validity_timeframe": {"interval": "P2D", "duration": "PT1H"},
            },
            datetime(2026, 3, 2, 9, 30, tzinfo=UTC),
            "promotion_not_active_now",
        ),
        (
            "timeframe_monthly",
            {
                "start_date": datetime(2026, 1, 31, tzinfo=UTC),
                "validity_timeframe": {"interval": "P1M", "duration": "P1D"},
            },
            datetime(2026, 2, 28, 12, tzinfo=UTC),
            None,
        ),
        (
            "timeframe_no_start_daily",
            {"validity_timeframe": {"interval": "P1D", "duration": "PT12H"}},
            datetime(2026, 3, 2, 13, tzinfo=UTC),
            "promotion_not_active_now",
        ),
    ],
)
def test_campaign_checks(name: str, camp: dict[str, Any], now: datetime, key: str | None) -> None:
    out = _at(now, **camp)
    assert out.valid is (key is None)
    assert out.reason_key == key


def test_campaign_checks_run_before_rules() -> None:
    spec = tier(AMOUNT_OFF, rules={"rules": {"1": R_FAIL}}, campaign=campaign(active=False))
    assert price_tier(CAT, spec, ORDER, None, ctx()).reason_key == "promotion_inactive"


def test_rules_evaluate_cart_as_sent_and_reuse_normalized_order() -> None:
    order = normalize_order(CAT, ORDER)
    ok = compile_tier(tier(AMOUNT_OFF, rules=_rule("order.amount", {"$is": [7000]})))
    first = price_normalized(CAT, ok, order, None, ctx())
    second = price_normalized(CAT, ok, order, None, ctx())
    assert first == second and first.valid
