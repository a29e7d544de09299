"""The official SDK lists and parses the validation rules and their assignments, over real HTTP.

Each call goes through the SDK's own method and returns the SDK's parsed
model (a body its model refused would raise first); the assertions pin the
demo's rules, so a wrong page, order, filter or id fails here too.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import voucherify
from voucherify.exceptions import NotFoundException

pytestmark = pytest.mark.served


def test_rules_page_by_page_and_by_name(sdk: Any) -> None:
    api = voucherify.ValidationRulesApi(sdk.client)
    first = api.list_validation_rules(limit=4)
    assert isinstance(first, voucherify.ValidationRulesListResponseBody)
    assert (first.object, first.data_ref, first.total) == ("list", "data", 15)
    ascending = api.list_validation_rules(limit=100, order=voucherify.ParameterOrderListValidationRules("created_at"))
    assert ascending.data[0].id == "val_camp_mug_codes"  # campaigns, then tiers, then vouchers
    walked = [r.id for page in range(1, 5) for r in api.list_validation_rules(limit=4, page=page).data]
    assert walked == [r.id for r in ascending.data][::-1]  # newest first: the exact reverse
    by_name = api.list_validation_rules(limit=100, order=voucherify.ParameterOrderListValidationRules("-name"))
    names = [r.name for r in by_name.data]
    assert names == sorted(names, reverse=True)
    later = api.list_validation_rules(start_date=datetime(2027, 1, 1, tzinfo=UTC))
    assert (later.total, later.data) == (0, [])


def test_a_rule_and_its_assignment(sdk: Any) -> None:
    api = voucherify.ValidationRulesApi(sdk.client)
    rule = api.get_validation_rule("val_promo_beans_15")
    assert isinstance(rule, voucherify.ValidationRulesGetResponseBody)
    assert (rule.id, rule.type, rule.context_type, rule.assignments_count) == (
        "val_promo_beans_15", "advanced", "campaign.promotion", 1)
    assert rule.rules["logic"] == "1"
    assert [(e.object, e.id, e.effect) for e in rule.applicable_to.included] == [
        ("products_collection", "pc_beans", "APPLY_TO_EVERY")]
    assigned = api.list_validation_rules_assignments(related_object_id="promo_beans_15")
    assert isinstance(assigned, voucherify.ValidationRulesAssignmentsListResponseBody)
    assert [(a.id, a.rule_id, a.related_object_type) for a in assigned.data] == [
        ("asgm_promo_beans_15", "val_promo_beans_15", "promotion_tier")]
    by_rule = api.list_validation_rules_assignments(rule="val_camp_mug_codes", limit=100)
    assert [(a.related_object_id, a.related_object_type) for a in by_rule.data] == [("camp_mug_codes", "campaign")]
    with pytest.raises(NotFoundException):
        api.get_validation_rule("val_nope")
