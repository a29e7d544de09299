"""A refused scenario reports every error at once, and an unknown key comes
with the nearest allowed one (docs/scenarios.md, *Errors*).

The first five minutes with a scenario file are mostly typos: one error per
run, each saying only `Extra inputs are not permitted`, makes them long.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from promolab import ScenarioError, Simulator
from promolab.sim.scenario.issues import MAX_SHOWN, ScenarioIssue

AMOUNT_OFF = {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"}
TOP_LEVEL_KEYS = ("version, description, seed, project, settings, clock, catalogue, customers, segments, "
                  "categories, campaigns, loyalty, event_schema, webhooks")

#: kind -> (document, path, problem): an unknown key, at every kind of place.
UNKNOWN_KEYS: dict[str, tuple[dict[str, Any], str, str]] = {
    "top level": ({"catalog": {}}, "catalog", "unknown key; did you mean 'catalogue'?"),
    "nested model": (
        {"catalogue": {"prodcts": []}}, "catalogue.prodcts", "unknown key; did you mean 'products'?"),
    "list item": (
        {"campaigns": [{"name": "C", "tiers": [{"name": "T", "discount": AMOUNT_OFF, "hierachy": 2}]}]},
        "campaigns[0].tiers[0].hierachy", "unknown key; did you mean 'hierarchy'?"),
    "deep in lists": (
        {"loyalty": {"programs": [{"name": "P", "members": [{"customer": "c", "cards": [
            {"card_definition": "d", "balanse": 1}]}]}]}},
        "loyalty.programs[0].members[0].cards[0].balanse", "unknown key; did you mean 'balance'?"),
    "dict value": (
        {"event_schema": [{"name": "e", "metadata": {"amount": {"type": "number", "requred": True}}}]},
        "event_schema[0].metadata.amount.requred", "unknown key; did you mean 'required'?"),
    "optional model": (
        {"settings": {"rate_limit": {"requests": 5, "per_second": 60}}}, "settings.rate_limit.per_second",
        "unknown key; did you mean 'per_seconds'?"),
    "nothing near: the allowed keys": (
        {"zzz": 1}, "zzz", f"unknown key; expected one of: {TOP_LEVEL_KEYS}"),
}


@pytest.mark.parametrize(("document", "path", "problem"), UNKNOWN_KEYS.values(), ids=list(UNKNOWN_KEYS))
def test_an_unknown_key_names_the_nearest_allowed_one(document: dict[str, Any], path: str, problem: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(document)
    exc = info.value
    assert str(exc) == f"<scenario>: {path}: {problem}"
    assert exc.issues == (ScenarioIssue(path, problem),)


#: kind -> (document, every (path, problem), in the order reported)
SEVERAL: dict[str, tuple[dict[str, Any], list[tuple[str, str]]]] = {
    "format errors: types, ranges and unknown keys": (
        {"seed": "seven", "catalog": {}, "customers": [{"emial": "a@example.com"}, {"metadata": "gold"}],
         "catalogue": {"products": [{"name": "P", "price": -1}]}},
        # in the document's order, each refused value named
        [("seed", "Input should be a valid integer, unable to parse string as an integer (got 'seven')"),
         ("catalog", "unknown key; did you mean 'catalogue'?"),
         ("customers[0].emial", "unknown key; did you mean 'email'?"),
         ("customers[1].metadata", "Input should be a valid dictionary (got 'gold')"),
         ("catalogue.products[0].price", "Input should be greater than or equal to 0 (got -1)")]),
    "build errors: references, duplicates, refused tiers": (
        {"customers": [{"id": "cust_a"}, {"id": "cust_a"}],
         "segments": [{"name": "S", "customers": ["nobody"]}],
         "campaigns": [{"name": "Gift", "type": "GIFT_VOUCHERS"},
                       {"name": "Promo", "tiers": [{"name": "Bad", "discount": {"type": "BOGO"}},
                                                   {"name": "Good", "discount": AMOUNT_OFF}]}],
         "loyalty": {"programs": [{"name": "Club", "members": [{"customer": "ghost"}]}]},
         "webhooks": [{}]},
        [("customers[1].id", "duplicate id 'cust_a'"),
         ("segments[0].customers[0]", "unknown customer 'nobody'"),
         ("campaigns[0].gift_amount", "a GIFT_VOUCHERS campaign needs gift_amount"),
         ("campaigns[1].tiers[0].discount", "discount.type should be one of AMOUNT, PERCENT, FIXED, UNIT (got {'type': 'BOGO'})"),
         ("loyalty.programs[0].members[0].customer", "unknown customer 'ghost'"),
         ("webhooks[0]", "give exactly one of url or receiver")]),
    "a reference to a refused entity is not reported again": (
        {"campaigns": [{"id": "camp_gift", "name": "Gift", "type": "GIFT_VOUCHERS"}],
         "loyalty": {"rewards": [
             {"name": "R1", "type": "DIGITAL", "digital": {"discount_coupons": {"campaign_id": "camp_gift"}}},
             {"name": "R2", "type": "DIGITAL", "digital": {"discount_coupons": {"campaign_id": "camp_nope"}}}]}},
        [("campaigns[0].gift_amount", "a GIFT_VOUCHERS campaign needs gift_amount"),
         ("loyalty.rewards[1].digital.discount_coupons.campaign_id", "unknown campaign 'camp_nope'")]),
    "nor a reference to a refused card definition": (
        {"customers": [{"id": "c"}],
         "loyalty": {"programs": [
             {"id": "lprg_a", "name": "A", "card_definitions": [{"id": "lcdef_x", "name": "X"}]},
             {"name": "B", "card_definitions": [{"id": "lcdef_x", "name": "X again"}],
              "members": [{"customer": "c", "cards": [{"card_definition": "lcdef_x"}]}]}]}},
        [("loyalty.programs[1].card_definitions[0].id", "duplicate id 'lcdef_x'")]),
    "what a refused campaign contains is not checked": (
        {"campaigns": [{"name": "Promo", "vouchers": [{"code": "X"}],
                        "tiers": [{"name": "Bad", "discount": {"type": "BOGO"}}]}]},
        [("campaigns[0].vouchers", "a PROMOTION campaign has tiers, not vouchers")]),
}


@pytest.mark.parametrize(("document", "expected"), SEVERAL.values(), ids=list(SEVERAL))
def test_every_error_is_reported_at_once(document: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(document)
    exc = info.value
    assert [(issue.path, issue.problem) for issue in exc.issues] == expected
    assert (exc.path, exc.problem) == expected[0]
    if len(expected) == 1:
        assert str(exc) == f"<scenario>: {expected[0][0]}: {expected[0][1]}"
    else:
        assert str(exc).splitlines() == [f"<scenario>: {len(expected)} errors",
                                         *(f"  {path}: {problem}" for path, problem in expected)]


def test_a_long_report_is_cut_after_50_lines_but_keeps_every_error() -> None:
    document = {"customers": [{"emial": "a@example.com"} for _ in range(MAX_SHOWN + 10)]}
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(document)
    lines = str(info.value).splitlines()
    assert lines[0] == "<scenario>: 60 errors"
    assert lines[1:-1] == [f"  customers[{i}].emial: unknown key; did you mean 'email'?" for i in range(MAX_SHOWN)]
    assert lines[-1] == "  ... and 10 more"
    assert len(info.value.issues) == 60


def test_the_error_survives_pickling() -> None:
    """Process pools and dask workers pickle exceptions; the default pickling
    rebuilds from the message alone, which ScenarioError does not take."""
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(SEVERAL["build errors: references, duplicates, refused tiers"][0])
    copy = pickle.loads(pickle.dumps(info.value))
    assert (str(copy), copy.origin, copy.path, copy.problem, copy.issues) == (
        str(info.value), info.value.origin, info.value.path, info.value.problem, info.value.issues)
