"""Unit budgets (`product_*_quantity_limit`): what is left of them trims a request's discount.

The ledger holds units already discounted by the tier, by a sibling tier of
its campaign, of the customer and of another; each of the 8 fields counts a
different part of them, on a product entry or a collection entry. The
single-tier engine and a one-redeemable stack must agree on every case.
"""

from __future__ import annotations

from typing import Any

import pytest
from pricing_builders import campaign, ctx, customer, included, tier

from promolab.engine import (
    Catalogue,
    CatalogueCollection,
    CatalogueProduct,
    CatalogueSku,
    StackEntry,
    TierConfigError,
    UsageLedger,
    compile_tier,
    evaluate_stack,
    normalize_order,
    outcome_wire,
    price_tier,
)
from promolab.models import StackingRules

CATALOGUE = Catalogue(
    products=[CatalogueProduct("prod_tee", "tee", "Tee", 2000), CatalogueProduct("prod_mug", "mug", "Mug", 1000)],
    skus=[CatalogueSku("sku_tee_l", "tee_l", "Tee L", "prod_tee", 2000)],
    collections=[CatalogueCollection("pc_wear", "Wear", product_ids=frozenset({"prod_tee"}))],
)
#: $1.00 off each unit: the discount in cents is the number of units discounted, times 100.
PER_UNIT = {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"}
SIX_TEES = {"items": [{"product_id": "prod_tee", "quantity": 6}], "customer": {"id": "cust_ann"}}


def _ledger() -> UsageLedger:
    """Tees discounted so far: by promo_a for ann 3, for bo 2; by its sibling promo_sib for ann 4."""
    ledger = UsageLedger()
    ledger.record_units("promo_a", "camp_test", "cust_ann", [("prod_tee", 3)])
    ledger.record_units("promo_a", "camp_test", "cust_bo", [("prod_tee", 2)])
    ledger.record_units("promo_sib", "camp_test", "cust_ann", [("prod_tee", 4)])
    ledger.record_units("promo_a", "camp_test", "cust_ann", [("prod_mug", 50)])  # another product: never counted
    return ledger


# field, limit -> units ann gets discounted of her 6 tees (used: campaign 9, campaign+ann 7, tier 5, tier+ann 3)
CASES: list[tuple[str, int, int]] = [
    ("campaign_quantity_limit", 10, 1),
    ("customer_campaign_quantity_limit", 10, 3),
    ("promotion_tier_quantity_limit", 10, 5),
    ("customer_promotion_tier_quantity_limit", 10, 6),
    ("campaign_quantity_limit", 9, 0),  # exhausted: no discount, still valid
    ("customer_promotion_tier_quantity_limit", 2, 0),  # spent beyond the limit: never negative
]
ENTRIES: dict[str, dict[str, Any]] = {
    "product": {"object": "product", "id": "prod_tee"},
    "sku": {"object": "sku", "id": "sku_tee_l"},
    "products_collection": {"object": "products_collection", "id": "pc_wear"},
}


def _field(kind: str, suffix: str) -> str:
    return f"product_in_collection_{suffix}" if kind == "products_collection" else f"product_{suffix}"


def _order(kind: str) -> dict[str, Any]:
    if kind == "sku":  # a SKU's units count for its product
        return {"items": [{"sku_id": "sku_tee_l", "quantity": 6}], "customer": {"id": "cust_ann"}}
    return SIX_TEES


def _single(spec: Any, order: dict[str, Any], usage: Any) -> int | None:
    outcome = price_tier(CATALOGUE, spec, order, customer(id="cust_ann"), ctx(usage=usage))
    assert outcome.valid
    return outcome.discount_amount


def _stacked(spec: Any, order: dict[str, Any], usage: Any) -> tuple[int, tuple[tuple[str, int], ...]]:
    normalized = normalize_order(CATALOGUE, order, "cust_ann")
    entry = StackEntry(0, "promotion_tier", spec.id, discount=compile_tier(spec))
    result = evaluate_stack([entry], normalized, customer(id="cust_ann"), ctx(usage=usage), StackingRules())
    [only] = result.redeemables
    assert only.status == "APPLICABLE" and only.step is not None
    return only.step.total, only.step.spent_units


@pytest.mark.parametrize("kind", list(ENTRIES))
@pytest.mark.parametrize(("suffix", "limit", "units"), CASES, ids=[f"{s}={n}" for s, n, _ in CASES])
def test_each_field_counts_its_own_part_of_the_ledger(kind: str, suffix: str, limit: int, units: int) -> None:
    entry = {**ENTRIES[kind], _field(kind, suffix): limit}
    spec = tier(PER_UNIT, id="promo_a", applicable_to=included(entry))
    order = _order(kind)
    assert _single(spec, order, _ledger()) == units * 100
    total, spent = _stacked(spec, order, _ledger())
    assert total == units * 100  # the stacked path equals the single path
    assert spent == ((("prod_tee", units),) if units else ())


@pytest.mark.parametrize("suffix", [s for s, _, _ in CASES[:4]])
def test_without_a_ledger_nothing_is_spent_yet(suffix: str) -> None:
    """A caller with no usage (the sweep): each request is capped at the limit."""
    spec = tier(PER_UNIT, id="promo_a", applicable_to=included({**ENTRIES["product"], _field("product", suffix): 4}))
    assert _single(spec, SIX_TEES, None) == 400
    assert _stacked(spec, SIX_TEES, None)[0] == 400


def test_per_customer_budget_without_a_customer_counts_nobody() -> None:
    spec = tier(PER_UNIT, id="promo_a", applicable_to=included(
        {**ENTRIES["product"], "product_customer_promotion_tier_quantity_limit": 4}))
    order = {"items": [{"product_id": "prod_tee", "quantity": 6}]}
    outcome = price_tier(CATALOGUE, spec, order, None, ctx(usage=_ledger()))
    assert outcome.discount_amount == 400


def test_the_smallest_budget_left_wins_and_the_amount_follows_the_units() -> None:
    """Two budgets on one entry, and a product and a collection entry reaching
    the same tee: the least left of them all caps the units; a PERCENT
    discount is then taken of those units' amount."""
    entries = included(
        {**ENTRIES["product"], "product_campaign_quantity_limit": 12, "product_promotion_tier_quantity_limit": 9},
        {**ENTRIES["products_collection"], "product_in_collection_customer_campaign_quantity_limit": 9},
    )
    percent = tier({"type": "PERCENT", "percent_off": 10}, id="promo_a", applicable_to=entries)
    # left: campaign 12-9=3, tier 9-5=4, customer campaign 9-7=2 -> 2 tees of $20.00, 10 % = $4.00
    assert _single(percent, SIX_TEES, _ledger()) == 400
    assert _stacked(percent, SIX_TEES, _ledger()) == (400, (("prod_tee", 2),))


def test_lines_of_one_product_share_what_is_left_in_line_order() -> None:
    order = {"items": [{"product_id": "prod_tee", "quantity": 2}, {"sku_id": "sku_tee_l", "quantity": 3},
                       {"product_id": "prod_mug", "quantity": 5}]}
    spec = tier(PER_UNIT, id="promo_a", applicable_to=included(
        {**ENTRIES["products_collection"], "product_in_collection_promotion_tier_quantity_limit": 8},
        {"object": "product", "id": "prod_mug"}))
    # 3 tees left (8 - 5): the first line takes 2, the SKU line 1; the mug has no budget: 5
    outcome = price_tier(CATALOGUE, spec, order, customer(id="cust_ann"), ctx(usage=_ledger()))
    assert outcome.discount_amount == 800
    assert _stacked(spec, order, _ledger()) == (800, (("prod_tee", 3),))


def test_a_stack_counts_what_its_earlier_redeemables_spent() -> None:
    """Two tiers of one campaign in one stack: the second sees the campaign's
    units the first just discounted."""
    entry = {**ENTRIES["product"], "product_campaign_quantity_limit": 5}
    first = compile_tier(tier(PER_UNIT, id="promo_a", applicable_to=included(entry)))
    second = compile_tier(tier(PER_UNIT, id="promo_b", applicable_to=included(entry)))
    normalized = normalize_order(CATALOGUE, {"items": [{"product_id": "prod_tee", "quantity": 4}]}, None)
    entries = [StackEntry(0, "promotion_tier", "promo_a", discount=first),
               StackEntry(1, "promotion_tier", "promo_b", discount=second)]
    result = evaluate_stack(entries, normalized, None, ctx(), StackingRules())
    assert [r.step.spent_units for r in result.redeemables if r.step] == [(("prod_tee", 4),), (("prod_tee", 1),)]
    assert result.discount == 500


def test_the_fields_are_echoed_in_the_applicable_to_list() -> None:
    spec = tier(PER_UNIT, id="promo_a", applicable_to=included(
        {**ENTRIES["product"], "product_customer_campaign_quantity_limit": 7}))
    outcome = price_tier(CATALOGUE, spec, SIX_TEES, customer(id="cust_ann"), ctx())
    [shown] = outcome_wire(outcome).applicable_to["data"]
    assert shown["product_customer_campaign_quantity_limit"] == 7


BAD: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "negative": (PER_UNIT, included({**ENTRIES["product"], "product_campaign_quantity_limit": -1}),
                 "applicable_to entry product_campaign_quantity_limit must be a non-negative integer, got -1"),
    "a string": (PER_UNIT, included({**ENTRIES["product"], "product_promotion_tier_quantity_limit": "5"}),
                 "applicable_to entry product_promotion_tier_quantity_limit must be a non-negative integer, got '5'"),
    "a bool": (PER_UNIT, included({**ENTRIES["product"], "product_promotion_tier_quantity_limit": True}),
               "applicable_to entry product_promotion_tier_quantity_limit must be a non-negative integer, got True"),
    "a formula": (PER_UNIT, included({**ENTRIES["product"], "product_campaign_quantity_limit_formula": "5"}),
                  ("applicable_to entry product_campaign_quantity_limit_formula: formulas are not evaluated; "
                  "give product_campaign_quantity_limit as an integer")),
    "product field on a collection": (
        PER_UNIT, included({**ENTRIES["products_collection"], "product_campaign_quantity_limit": 5}),
        "applicable_to entry product_campaign_quantity_limit belongs on a product or sku entry, not on products_collection"),
    "collection field on a product": (
        PER_UNIT, included({**ENTRIES["product"], "product_in_collection_campaign_quantity_limit": 5}),
        ("applicable_to entry product_in_collection_campaign_quantity_limit belongs on a products_collection entry, "
        "not on product")),
    "on an excluded entry": (
        PER_UNIT, {"excluded": [{**ENTRIES["product"], "product_campaign_quantity_limit": 5}]},
        "applicable_to.excluded entries discount nothing: product_campaign_quantity_limit belongs on included entries"),
    "on a UNIT discount": (
        {"type": "UNIT", "unit_off": 1, "unit_type": "prod_mug", "effect": "ADD_MISSING_ITEMS"},
        included({**ENTRIES["product"], "product_campaign_quantity_limit": 5}),
        ("unit budgets (product_*_quantity_limit) cap the units an item discount reaches; "
        "a UNIT ADD_MISSING_ITEMS discount has none to cap")),
    "on an order discount": (
        {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"},
        included({**ENTRIES["product"], "product_campaign_quantity_limit": 5}),
        ("unit budgets (product_*_quantity_limit) cap the units an item discount reaches; "
        "a AMOUNT APPLY_TO_ORDER discount has none to cap")),
}
TOTAL_RULE = {"rules": {"1": {"name": "order.total_amount", "conditions": {"$more_than": [1000]}}}, "logic": "1"}


def test_an_order_total_amount_rule_on_a_budgeted_tier_is_refused() -> None:
    scope = included({**ENTRIES["product"], "product_campaign_quantity_limit": 5})
    with pytest.raises(TierConfigError, match="order.total_amount rules are not supported on a tier with unit budgets"):
        compile_tier(tier(PER_UNIT, id="promo_bad", applicable_to=scope, rules=TOTAL_RULE))
    compile_tier(tier(PER_UNIT, id="promo_ok", applicable_to=included(ENTRIES["product"]), rules=TOTAL_RULE))


@pytest.mark.parametrize(("discount", "scope", "message"), BAD.values(), ids=list(BAD))
def test_a_bad_unit_budget_is_refused_when_compiled(discount: dict[str, Any], scope: dict[str, Any],
                                                     message: str) -> None:
    with pytest.raises(TierConfigError) as info:
        compile_tier(tier(discount, id="promo_bad", campaign=campaign(), applicable_to=scope))
    assert message in str(info.value)


def test_a_rollback_gives_the_units_back_to_the_ledger() -> None:
    ledger = _ledger()
    before = dict(ledger._units)
    ledger.record_units("promo_a", "camp_test", "cust_ann", [("prod_tee", 2), ("prod_mug", 1)])
    assert ledger.units("campaign", "camp_test", None, "prod_tee") == 11
    ledger.record_units("promo_a", "camp_test", "cust_ann", [("prod_tee", 2), ("prod_mug", 1)], sign=-1)
    assert ledger._units == before
    assert ledger.copy()._units == before


def test_the_wire_model_types_every_field_the_engine_reads() -> None:
    from promolab.engine.unit_budgets import UNIT_BUDGET_FIELDS
    from promolab.models import ApplicableTo

    typed = {f for f in ApplicableTo.model_fields if f.startswith("product_") and f.endswith("_quantity_limit")}
    assert typed == set(UNIT_BUDGET_FIELDS)
    shown = ApplicableTo.model_validate({"object": "product", "id": "prod_tee", "product_campaign_quantity_limit": 3})
    assert shown.product_campaign_quantity_limit == 3
    assert "product_customer_campaign_quantity_limit" not in shown.model_dump(mode="json")  # omitted when None
