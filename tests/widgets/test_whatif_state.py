"""The what-if state: order drafts, tier edits, rule rewriting. Pure, no simulator."""

from __future__ import annotations

import dataclasses

import pytest

from promolab.engine import CampaignInfo, TierSpec
from promolab.widgets import (
    EFFECTS,
    OrderDraft,
    TierEdit,
    apply_edit,
    edit_of,
    min_amount_of,
    slider_spec,
    whatif_id,
    with_min_amount,
)

CAMPAIGN = CampaignInfo(id="camp_x", name="X")


def tier(discount: dict, rules: dict | None = None, tier_id: str = "t1") -> TierSpec:
    return TierSpec(id=tier_id, campaign=CAMPAIGN, discount=discount, rules=rules)


def threshold(op: str, cents: int) -> dict:
    return {"name": "order.amount", "conditions": {op: [cents]}}


# -- OrderDraft -------------------------------------------------------------------
def test_draft_request_keeps_catalogue_order_and_drops_zero_lines() -> None:
    draft = OrderDraft.of(["a", "b", "c"], "alice", c=2, a=1)
    assert draft.request() == {
        "order": {"items": [{"product_id": "a", "quantity": 1}, {"product_id": "c", "quantity": 2}]},
        "customer": {"source_id": "alice"},
    }
    assert draft.with_quantity("a", 0).with_quantity("c", 0).is_empty
    assert "customer" not in draft.with_customer("").request()


def test_draft_refuses_unknown_products_and_negative_quantities() -> None:
    with pytest.raises(ValueError, match="unknown products: z"):
        OrderDraft.of(["a"], z=1)
    draft = OrderDraft.of(["a"])
    with pytest.raises(KeyError):
        draft.with_quantity("z", 1)
    with pytest.raises(ValueError):
        draft.with_quantity("a", -1)
    assert draft.with_quantity("a", 3).quantity("a") == 3
    assert draft.quantity("a") == 0  # frozen: the original is unchanged


# -- rules ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (None, None),
        ({"rules": {"1": threshold("$more_than", 5000), "logic": "1"}}, 5000),
        ({"rules": {"1": threshold("$more_than_or_equal", 3000), "logic": "1"}}, 3000),
        ({"rules": {"1": {"name": "product.id", "conditions": {"$in": ["p"]}},
                    "2": threshold("$more_than", 100), "logic": "1 and 2"}}, 100),
        # an `or` makes the threshold optional: not a minimum
        ({"rules": {"1": {"name": "product.id", "conditions": {"$in": ["p"]}},
                    "2": threshold("$more_than", 100), "logic": "1 or 2"}}, None),
        # two thresholds: ambiguous
        ({"rules": {"1": threshold("$more_than", 1), "2": threshold("$more_than", 2), "logic": "1 and 2"}}, None),
        # a maximum is not a minimum
        ({"rules": {"1": threshold("$less_than", 100), "logic": "1"}}, None),
    ],
)
def test_min_amount_of(rules: dict | None, expected: int | None) -> None:
    assert min_amount_of(rules) == expected


def test_with_min_amount_keeps_the_operator_of_the_tier_threshold() -> None:
    rules = {"rules": {"1": threshold("$more_than", 5000), "logic": "1"}}
    changed = with_min_amount(rules, 8000)
    assert changed == {"rules": {"1": threshold("$more_than", 8000), "logic": "1"}}
    assert rules["rules"]["1"]["conditions"] == {"$more_than": [5000]}  # not mutated


def test_with_min_amount_adds_a_rule_anded_to_the_logic() -> None:
    rules = {"rules": {"1": {"name": "customer.segment", "conditions": {"$in": ["vip"]}},
                       "2": {"name": "customer.metadata", "property": "tier", "conditions": {"$is": ["gold"]}},
                       "logic": "1 or 2"}}
    changed = with_min_amount(rules, 10000)
    assert changed is not None
    assert changed["rules"]["logic"] == "(1 or 2) and 3"
    assert changed["rules"]["3"] == threshold("$more_than_or_equal", 10000)
    assert with_min_amount(None, 2500) == {"rules": {"1": threshold("$more_than_or_equal", 2500), "logic": "1"}}
    assert with_min_amount(None, 0) is None
    assert with_min_amount(rules, None) == rules


# -- edits --------------------------------------------------------------------------
def test_edit_of_reads_the_tier() -> None:
    spec = tier({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ORDER"},
                {"rules": {"1": threshold("$more_than", 5000), "logic": "1"}})
    assert edit_of(spec) == TierEdit("t1", "AMOUNT", 1000, "APPLY_TO_ORDER", 5000)
    with pytest.raises(ValueError, match="not tunable"):
        edit_of(tier({"type": "UNIT", "effect": "ADD_NEW_ITEMS", "unit_off": 1, "unit_type": "p"}))


def test_unchanged_edit_reproduces_the_tier_under_a_new_id() -> None:
    spec = tier({"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ITEMS", "amount_limit": 1500},
                {"rules": {"1": {"name": "product.id", "conditions": {"$in": ["p"]}}, "logic": "1"}})
    copy = apply_edit(spec, edit_of(spec))
    assert copy.id == whatif_id("t1") == "t1 (what-if)"
    assert dataclasses.replace(copy, id="t1") == spec


def test_apply_edit_changes_value_effect_and_minimum() -> None:
    spec = tier({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ORDER"})
    edit = dataclasses.replace(edit_of(spec), value=1550.4, effect="APPLY_TO_ITEMS", min_amount=4000)
    copy = apply_edit(spec, edit)
    assert copy.discount == {"type": "AMOUNT", "amount_off": 1550, "effect": "APPLY_TO_ITEMS"}
    assert min_amount_of(copy.rules) == 4000
    assert spec.discount["amount_off"] == 1000
    percent = tier({"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"})
    assert apply_edit(percent, dataclasses.replace(edit_of(percent), value=12.5)).discount["percent_off"] == 12.5
    assert apply_edit(percent, dataclasses.replace(edit_of(percent), value=20.0)).discount["percent_off"] == 20


def test_edit_checks() -> None:
    with pytest.raises(ValueError, match="not allowed for PERCENT"):
        TierEdit("t", "PERCENT", 10, "APPLY_TO_ITEMS_BY_QUANTITY")
    with pytest.raises(ValueError, match="at most 100"):
        TierEdit("t", "PERCENT", 101, "APPLY_TO_ORDER")
    with pytest.raises(ValueError, match="negative"):
        TierEdit("t", "AMOUNT", -1, "APPLY_TO_ORDER")
    with pytest.raises(ValueError, match="negative"):
        TierEdit("t", "AMOUNT", 1, "APPLY_TO_ORDER", min_amount=-5)
    spec = tier({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ORDER"})
    with pytest.raises(ValueError, match="the edit is for other"):
        apply_edit(spec, TierEdit("other", "AMOUNT", 1, "APPLY_TO_ORDER"))
    assert set(EFFECTS) == {"AMOUNT", "PERCENT", "FIXED"}


def test_slider_spec() -> None:
    percent = slider_spec(TierEdit("t", "PERCENT", 10, "APPLY_TO_ORDER"), currency="EUR")
    assert (percent.unit, percent.minimum, percent.maximum, percent.scale) == ("%", 0.0, 100.0, 1)
    assert percent.from_display(12.5) == 12.5
    money = slider_spec(TierEdit("t", "FIXED", 11900, "APPLY_TO_ORDER"), currency="USD")
    assert (money.unit, money.maximum, money.step) == ("$", 240.0, 0.5)
    assert money.to_display(11900) == 119.0 and money.from_display(119.5) == 11950
    small = slider_spec(TierEdit("t", "AMOUNT", 2500, "APPLY_TO_ORDER"), original_value=200, currency="USD")
    assert small.maximum == 100.0  # bounds follow the tier's own value, not the edit


@pytest.mark.parametrize("currency, unit, scale, step, maximum", [
    ("USD", "$", 100, 0.5, 240.0),
    ("EUR", "€", 100, 0.5, 240.0),
    ("PLN", "PLN", 100, 0.5, 240.0),
    ("JPY", "¥", 1, 1.0, 23800.0),  # no minor units: 11,900 is ¥11,900, in steps of ¥1
])
def test_slider_spec_is_in_the_currency(currency: str, unit: str, scale: int, step: float, maximum: float) -> None:
    money = slider_spec(TierEdit("t", "FIXED", 11900, "APPLY_TO_ORDER"), currency=currency)
    assert (money.unit, money.scale, money.step, money.maximum) == (unit, scale, step, maximum)
    shown = money.to_display(11900)
    assert shown == 11900 / scale and money.from_display(shown) == 11900
    assert isinstance(money.from_display(shown), int)  # money stays whole minor units
