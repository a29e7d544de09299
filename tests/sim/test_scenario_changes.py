"""`with_changes`: a changed copy of a scenario, by tier/campaign id and field path.

The copy equals the hand-written deep copy it replaces, the original is
untouched, the changed scenario prices differently where it should, and
every path or value that names nothing or is refused raises a
`ScenarioError` naming the change as written.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab import ScenarioError, Simulator, with_changes

DEMO = Path(__file__).resolve().parents[2] / "data" / "scenarios" / "demo.yaml"
ORDER = {"items": [{"product_id": "prod_grinder", "quantity": 1},
                   {"product_id": "prod_beans_ethiopia", "quantity": 3}]}


@pytest.fixture(scope="module")
def demo() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    return document


def _tier(document: dict[str, Any], tier_id: str) -> dict[str, Any]:
    for campaign in document["campaigns"]:
        for tier in campaign.get("tiers") or []:
            if tier["id"] == tier_id:
                return tier  # type: ignore[no-any-return]  # a mapping of the parsed YAML (Any)
    raise KeyError(tier_id)


def _vip_discount(source: str | Path | dict[str, Any]) -> int:
    with Simulator.from_scenario(source).client() as client:
        result = client.validate_promotions(customer={"source_id": "alice"}, order=ORDER)
    (vip,) = [t for t in result.promotions if t.id == "promo_vip_10pct"]
    return vip.discount_amount


def test_the_copy_is_the_hand_written_one_and_the_original_is_untouched(demo: dict[str, Any]) -> None:
    before = copy.deepcopy(demo)
    by_hand = copy.deepcopy(demo)
    _tier(by_hand, "promo_vip_10pct")["discount"]["percent_off"] = 12
    changed = with_changes(demo, {"tiers.promo_vip_10pct.discount.percent_off": 12})
    assert changed == by_hand
    assert demo == before


def test_a_file_is_read_and_the_change_prices_differently() -> None:
    changed = with_changes(DEMO, {"tiers.promo_vip_10pct.discount.percent_off": 12})
    assert (_vip_discount(DEMO), _vip_discount(changed)) == (1430, 1716)  # 10% and 12% of $143.00


@pytest.mark.parametrize(("changes", "where", "expected"), [
    ({"tiers.promo_vip_10pct.discount.amount_limit": 1000},
     lambda d: _tier(d, "promo_vip_10pct")["discount"]["amount_limit"], 1000),
    ({"tiers.promo_vip_10pct.validation_rules.rules.1.conditions": {"$in": ["seg_newsletter"]}},
     lambda d: _tier(d, "promo_vip_10pct")["validation_rules"]["rules"]["1"]["conditions"], {"$in": ["seg_newsletter"]}),
    ({("tiers", "promo_vip_10pct", "validation_rules", "rules", "logic"): "1 and 2"},
     lambda d: _tier(d, "promo_vip_10pct")["validation_rules"]["rules"]["logic"], "1 and 2"),
    ({"tiers.promo_vip_mug_5.applicable_to.included.0.price": 400},
     lambda d: _tier(d, "promo_vip_mug_5")["applicable_to"]["included"][0]["price"], 400),
    ({"tiers.promo_vip_10pct.active": False}, lambda d: _tier(d, "promo_vip_10pct")["active"], False),
    ({"tiers.promo_vip_mug_5.banner": "Mugs!"}, lambda d: _tier(d, "promo_vip_mug_5")["banner"], "Mugs!"),
    ({"stacking_rules.redeemables_limit": 20}, lambda d: d["project"]["stacking_rules"]["redeemables_limit"], 20),
    ({"stacking_rules.redeemables_application_mode": "PARTIAL"},
     lambda d: d["project"]["stacking_rules"]["redeemables_application_mode"], "PARTIAL"),
    ({"campaigns.camp_vip.active": False},
     lambda d: next(c for c in d["campaigns"] if c["id"] == "camp_vip")["active"], False),
])
def test_each_kind_of_path_lands_where_it_says(demo: dict[str, Any], changes: dict[Any, Any], where: Any,
                                               expected: Any) -> None:
    changed = with_changes(demo, changes)
    assert where(changed) == expected
    Simulator.from_scenario(changed)  # and it loads


def test_several_changes_at_once(demo: dict[str, Any]) -> None:
    changed = with_changes(demo, {"tiers.promo_vip_10pct.discount.percent_off": 15,
                                  "tiers.promo_vip_10pct.discount.amount_limit": 100,
                                  "stacking_rules.redeemables_limit": 25})
    assert _tier(changed, "promo_vip_10pct")["discount"] == {
        "type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ORDER", "amount_limit": 100}
    assert _vip_discount(changed) == 100


def test_a_changed_value_is_a_copy(demo: dict[str, Any]) -> None:
    rules = {"rules": {"1": {"name": "customer.segment", "conditions": {"$in": ["seg_vip"]}}}, "logic": "1"}
    changed = with_changes(demo, {"tiers.promo_vip_10pct.validation_rules": rules})
    rules["logic"] = "2"
    assert _tier(changed, "promo_vip_10pct")["validation_rules"]["logic"] == "1"


@pytest.mark.parametrize(("path", "value", "message"), [
    ("tiers.promo_vip_10p.discount.percent_off", 12,
     "tiers.promo_vip_10p.discount.percent_off: no tier with id 'promo_vip_10p'; did you mean 'promo_vip_10pct'?"),
    ("tiers.promo_vip_10pct.discount.percent_of", 12,
     ("tiers.promo_vip_10pct.discount.percent_of: tiers.promo_vip_10pct.discount has no key 'percent_of'; "
      "did you mean 'percent_off'? (set tiers.promo_vip_10pct.discount whole to add one)")),
    ("tiers.promo_vip_10pct.discont.percent_off", 12,
     "tiers.promo_vip_10pct.discont.percent_off: the tier has no field 'discont'; did you mean 'discount'?"),
    ("tier.promo_vip_10pct.discount.percent_off", 12, "not 'tier'"),
    ("tiers.promo_vip_10pct", 12, "name a field to change after tiers.promo_vip_10pct"),
    ("tiers", 12, "name the tier by its id after 'tiers'"),
    ("tiers.promo_vip_10pct.id", "promo_other", "the id names the tier"),
    ("tiers.promo_vip_10pct.discount..percent_off", 12, "an empty part in the path"),
    ("tiers.promo_vip_10pct.discount.percent_off.value", 12, "is 10, which holds no 'value'"),
    ("tiers.promo_vip_mug_5.applicable_to.included.3.price", 1, "has 1 entries: no index 3"),
    ("tiers.promo_vip_mug_5.applicable_to.included.first.price", 1, "is a list: 'first' is not an index"),
    ("tiers.promo_vip_mug_5.applicable_to.excluded.0", 1, "has no key 'excluded'"),
    ("tiers.promo_small_5.applicable_to.included", [], "no tier with id 'promo_small_5'"),
    ("tiers.promo_vip_10pct.applicable_to.included.0", {},
     "the tier has no 'applicable_to' given: set tiers.promo_vip_10pct.applicable_to whole"),
    ("stacking_rules.redeemable_limit", 3, "did you mean 'redeemables_limit'?"),
    ("campaigns.camp_nope.active", False, "no campaign with id 'camp_nope'"),
])
def test_a_path_that_names_nothing_is_refused_naming_it(demo: dict[str, Any], path: str, value: Any,
                                                         message: str) -> None:
    before = copy.deepcopy(demo)
    with pytest.raises(ScenarioError) as info:
        with_changes(demo, {path: value})
    assert message in str(info.value)
    assert info.value.path == path
    assert demo == before


@pytest.mark.parametrize(("path", "value", "reason"), [
    ("tiers.promo_vip_10pct.discount.percent_off", "twelve", "percent_off"),
    ("tiers.promo_vip_10pct.discount.type", "HALF", "HALF"),
    ("tiers.promo_vip_10pct.hierarchy", -1, "greater than or equal to 0"),
    ("stacking_rules.redeemables_limit", 99, "less than or equal to 30"),
    ("tiers.promo_vip_10pct.validation_rules.rules.logic", "1 or", "logic"),
])
def test_a_value_the_format_refuses_is_told_as_the_changes(demo: dict[str, Any], path: str, value: Any,
                                                           reason: str) -> None:
    with pytest.raises(ScenarioError) as info:
        with_changes(demo, {path: value})
    assert info.value.path == path
    assert f"{value!r} refused: " in info.value.problem
    assert reason in info.value.problem


def test_a_value_refused_against_another_field_names_the_change_and_the_field(demo: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError) as info:
        with_changes(demo, {"tiers.promo_vip_10pct.active": False, "stacking_rules.redeemables_limit": 3})
    assert info.value.path == "stacking_rules.redeemables_limit"
    assert info.value.problem == ("3 refused: must be less than or equal to redeemables_limit (got 5) "
                                  "(at project.stacking_rules.applicable_redeemables_limit)")


def test_no_changes_is_an_error(demo: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError, match="no changes given"):
        with_changes(demo, {})


def test_the_file_is_named_in_the_error() -> None:
    with pytest.raises(ScenarioError) as info:
        with_changes(DEMO, {"tiers.nope.active": False})
    assert str(info.value).startswith(f"{DEMO} (changed): tiers.nope.active: ")


@settings(max_examples=15, deadline=None)
@given(percent=st.integers(min_value=1, max_value=100))
def test_any_percent_prices_as_that_percent(percent: int) -> None:
    document = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    changed = with_changes(document, {"tiers.promo_vip_10pct.discount.percent_off": percent,
                                      "tiers.promo_vip_10pct.discount.amount_limit": 100_000})
    assert _vip_discount(changed) == round(14300 * percent / 100)
