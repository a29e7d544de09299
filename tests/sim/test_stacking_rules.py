"""The project's stacking rules: the settings model, the five management
operations (through the simulator and through the client), the scenario's
`project.stacking_rules`, and what stays as it was for projects without them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from promolab import ApiError, Simulator, models
from promolab.sim.journal import replay_journal
from promolab.sim.operations.stacking_rules import (
    CREATE_STACKING_RULES,
    DELETE_STACKING_RULES,
    GET_STACKING_RULES,
    LIST_STACKING_RULES,
    UPDATE_STACKING_RULES,
    stacking_rules_in_force,
)
from promolab.sim.refusals import SimError
from promolab.sim.scenario import ScenarioError

ROOT = Path(__file__).parents[2]
PROJECT = "proj_kestrel"


def refusal(call: Any) -> tuple[int, str, str]:
    with pytest.raises(SimError) as caught:
        call()
    return caught.value.status, caught.value.key, caught.value.details


# -- the settings -----------------------------------------------------------------------------------
DEFAULTS = [
    ("redeemables_limit", 30),
    ("applicable_redeemables_limit", 5),
    ("applicable_redeemables_per_category_limit", 1),
    ("applicable_redeemables_category_limits", {}),
    ("applicable_exclusive_redeemables_limit", 1),
    ("applicable_exclusive_redeemables_per_category_limit", 1),
    ("exclusive_categories", []),
    ("joint_categories", []),
    ("discount_calculation_mode", "DISCOUNTED_AMOUNT"),
    ("redeemables_application_mode", "ALL"),
    ("redeemables_sorting_rule", "REQUESTED_ORDER"),
    ("redeemables_products_application_mode", "STACK"),
    ("redeemables_no_effect_rule", "REDEEM_ANYWAY"),
    ("redeemables_rollback_order_mode", "WITH_ORDER"),
    ("grouped_redeemables_sorting_rule", "JOINT_ALWAYS_LAST"),
]


@pytest.mark.parametrize(("field", "default"), DEFAULTS)
def test_each_setting_has_the_services_default(field: str, default: Any) -> None:
    assert getattr(models.StackingRules(), field) == default


def test_the_documented_object_reads_and_writes_back() -> None:
    example = json.loads((ROOT / "tests" / "data" / "stacking_rules_example.json").read_text())["example"]
    rules = models.ProjectStackingRules.model_validate(example)
    assert rules.redeemables_application_mode == "PARTIAL"
    assert rules.applicable_redeemables_category_limits == {"cat_0d75bdfe4c9030a732": 1, "cat_0d7c4d183011d043cc": 2}
    written = rules.model_dump(mode="json")
    assert {k: v for k, v in written.items() if k != "object"} == example


REFUSED = [
    # (change, the field named, a words of the reason)
    ({"redeemables_limit": 0}, "redeemables_limit", "greater than or equal to 1"),
    ({"redeemables_limit": 31}, "redeemables_limit", "less than or equal to 30"),
    ({"redeemables_limit": 10.0}, "redeemables_limit", "non-integer"),
    ({"redeemables_limit": True}, "redeemables_limit", "boolean"),
    ({"applicable_exclusive_redeemables_limit": 6}, "applicable_exclusive_redeemables_limit", "5"),
    ({"applicable_exclusive_redeemables_per_category_limit": 6},
     "applicable_exclusive_redeemables_per_category_limit", "5"),
    ({"applicable_redeemables_category_limits": {"cat_a": 11}}, "applicable_redeemables_category_limits", "10"),
    ({"exclusive_categories": [""]}, "exclusive_categories", "at least 1"),
    ({"exclusive_categories": [f"cat_{i}" for i in range(101)]}, "exclusive_categories", "at most 100"),
    ({"redeemables_application_mode": "SOME"}, "redeemables_application_mode", "'ALL' or 'PARTIAL'"),
    ({"grouped_redeemables_sorting_rule": "COMBINED"}, "grouped_redeemables_sorting_rule", "JOINT_ALWAYS_LAST"),
    ({"redemables_limit": 3}, "redemables_limit", "is not allowed"),
    ({"redeemables_limit": 4}, "applicable_redeemables_limit", "less than or equal to redeemables_limit"),
    ({"applicable_redeemables_limit": 2, "applicable_redeemables_per_category_limit": 3},
     "applicable_redeemables_per_category_limit", "less than or equal to applicable_redeemables_limit"),
    ({"exclusive_categories": ["cat_a", "cat_b"], "joint_categories": ["cat_b"]},
     "joint_categories", "must not name a category of exclusive_categories: cat_b"),
    ({"initial_amount_mode_categories": ["cat_a"], "discounted_amount_mode_categories": ["cat_a"]},
     "discounted_amount_mode_categories", "cat_a"),
    ({"no_effect_skip_categories": ["cat_a"], "no_effect_redeem_anyway_categories": ["cat_a"]},
     "no_effect_redeem_anyway_categories", "cat_a"),
]


@pytest.mark.parametrize(("change", "field", "reason"), REFUSED, ids=[f"{c[1]}-{i}" for i, c in enumerate(REFUSED)])
def test_a_bad_setting_is_refused_naming_its_field_and_nothing_changes(
    sim: Simulator, change: dict[str, Any], field: str, reason: str
) -> None:
    before = sim.dump_json()
    status, key, details = refusal(lambda: sim.apply(CREATE_STACKING_RULES, project_id=PROJECT, request=change))
    assert (status, key) == (400, "invalid_payload")
    assert details.startswith(f"Property .{field}"), details
    assert reason in details, details
    assert sim.dump_json() == before


# -- the five operations ------------------------------------------------------------------------------
def test_a_project_starts_with_none_and_the_list_holds_the_defaults(sim: Simulator) -> None:
    listed = sim.apply(LIST_STACKING_RULES, project_id=PROJECT)
    assert listed == models.StackingRulesList(data=[models.StackingRules()], total=1)
    assert stacking_rules_in_force(sim) == models.StackingRules()
    # the defaults have no id (nothing to get, update or delete) and no dates
    assert "id" not in listed.model_dump(mode="json")["data"][0]
    assert set(listed.model_dump(mode="json")["data"][0]) == set(models.StackingRules.model_fields)


def test_the_list_is_never_empty_nor_longer_than_one() -> None:
    for data in ([], [models.StackingRules(), models.StackingRules()]):
        with pytest.raises(ValidationError):
            models.StackingRulesList(data=data, total=len(data))


def test_the_documented_object_reads_as_the_lists_one_item() -> None:
    example = json.loads((ROOT / "tests" / "data" / "stacking_rules_example.json").read_text())["example"]
    listed = models.StackingRulesList.model_validate({"object": "list", "data_ref": "data", "data": [example], "total": 1})
    assert isinstance(listed.data[0], models.ProjectStackingRules)
    assert listed.data[0] == models.ProjectStackingRules.model_validate(example)


def test_create_list_get_update_delete(sim: Simulator) -> None:
    created = sim.apply(CREATE_STACKING_RULES, project_id=PROJECT, request={
        "redeemables_application_mode": "PARTIAL", "exclusive_categories": ["cat_flash", "cat_vip"],
        "applicable_redeemables_limit": 10,
    })
    assert created.id.startswith("stk_") and created.created_at == sim.now and created.updated_at is None
    assert created.redeemables_application_mode == "PARTIAL" and created.redeemables_limit == 30  # a default
    assert stacking_rules_in_force(sim) == created
    listed = sim.apply(LIST_STACKING_RULES, project_id=PROJECT)
    assert (listed.total, listed.data) == (1, [created])  # the object replaces the defaults
    assert sim.apply(GET_STACKING_RULES, project_id=PROJECT, stacking_rules_id=created.id) == created

    sim.advance(60)
    updated = sim.apply(UPDATE_STACKING_RULES, project_id=PROJECT, stacking_rules_id=created.id, request={
        "exclusive_categories": ["cat_vip"],  # an array sent replaces the stored one
        "applicable_redeemables_per_category_limit": None,  # null: no limit per category
        "redeemables_sorting_rule": None,  # null elsewhere: not sent
    })
    assert updated.id == created.id and updated.created_at == created.created_at and updated.updated_at == sim.now
    assert updated.exclusive_categories == ["cat_vip"]
    assert updated.applicable_redeemables_per_category_limit is None
    assert updated.redeemables_sorting_rule == "REQUESTED_ORDER"
    assert updated.redeemables_application_mode == "PARTIAL" and updated.applicable_redeemables_limit == 10  # kept

    assert sim.apply(DELETE_STACKING_RULES, project_id=PROJECT, stacking_rules_id=created.id) is None
    assert sim.apply(LIST_STACKING_RULES, project_id=PROJECT).data == [models.StackingRules()]  # the defaults again
    assert stacking_rules_in_force(sim) == models.StackingRules()
    again = sim.apply(CREATE_STACKING_RULES, project_id=PROJECT, request={})
    assert again.id != created.id and again.settings() == models.StackingRules().settings()


def test_refusals_change_nothing(sim: Simulator) -> None:
    created = sim.apply(CREATE_STACKING_RULES, project_id=PROJECT, request={})
    before = sim.dump_json()
    cases = [
        (lambda: sim.apply(CREATE_STACKING_RULES, project_id=PROJECT, request={}), (409, "duplicate_found")),
        (lambda: sim.apply(CREATE_STACKING_RULES, project_id="proj_other", request={}), (404, "not_found")),
        (lambda: sim.apply(LIST_STACKING_RULES, project_id="proj_other"), (404, "not_found")),
        (lambda: sim.apply(GET_STACKING_RULES, project_id=PROJECT, stacking_rules_id="stk_0"), (404, "not_found")),
        (lambda: sim.apply(UPDATE_STACKING_RULES, project_id=PROJECT, stacking_rules_id=created.id,
                           request={"redeemables_limit": 2}), (400, "invalid_payload")),
        (lambda: sim.apply(UPDATE_STACKING_RULES, project_id=PROJECT, stacking_rules_id=created.id,
                           request=None), (400, "invalid_payload")),
        (lambda: sim.apply(DELETE_STACKING_RULES, project_id=PROJECT, stacking_rules_id="stk_0"), (404, "not_found")),
    ]
    for call, expected in cases:
        assert refusal(call)[:2] == expected
    assert sim.dump_json() == before


change_strategy = st.fixed_dictionaries({}, optional={
    "redeemables_limit": st.integers(1, 30),
    "applicable_redeemables_limit": st.integers(1, 30),
    "applicable_redeemables_per_category_limit": st.none() | st.integers(1, 30),
    "exclusive_categories": st.lists(st.sampled_from(["cat_a", "cat_b", "cat_c"]), max_size=3),
    "joint_categories": st.lists(st.sampled_from(["cat_c", "cat_d"]), max_size=2),
    "redeemables_application_mode": st.sampled_from(["ALL", "PARTIAL"]),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(change_strategy, min_size=1, max_size=4))
def test_whatever_is_asked_the_stored_rules_are_consistent_and_a_refusal_keeps_them(
    sim: Simulator, changes: list[dict[str, Any]]
) -> None:
    sim.reset()  # each example from the scenario's state
    stored = sim.apply(CREATE_STACKING_RULES, project_id=PROJECT, request={})
    for change in changes:
        try:
            stored = sim.apply(UPDATE_STACKING_RULES, project_id=PROJECT, stacking_rules_id=stored.id, request=change)
        except SimError as exc:
            assert exc.key == "invalid_payload"
        current = sim.state.stacking_rules
        assert current == stored
        assert current.applicable_redeemables_limit <= current.redeemables_limit
        per_category = current.applicable_redeemables_per_category_limit
        assert per_category is None or per_category <= current.applicable_redeemables_limit
        assert not set(current.exclusive_categories) & set(current.joint_categories)


# -- through the client, journal and snapshot -------------------------------------------------------------
def test_the_client_manages_them_and_a_journal_brings_them_back(
    sim: Simulator, demo_path: Path, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.jsonl"
    sim.record_to(journal, fsync=False)
    with sim.client() as client:
        created = client.create_stacking_rules(PROJECT, models.StackingRulesChange(redeemables_application_mode="PARTIAL"))
        assert client.list_stacking_rules(PROJECT).data == [created]
        updated = client.update_stacking_rules(PROJECT, created.id, {"applicable_redeemables_per_category_limit": None})
        assert client.get_stacking_rules(PROJECT, created.id) == updated
        with pytest.raises(ApiError) as caught:
            client.create_stacking_rules(PROJECT)
        assert (caught.value.status, caught.value.error.key) == (409, "duplicate_found")
    sim.record_to(None)
    ops = [json.loads(line)["op"] for line in journal.read_text().splitlines()]
    assert [op for op in ops if op != "journal"] == ["create_stacking_rules", "update_stacking_rules"]  # no reads
    replayed = Simulator.from_scenario(demo_path)
    assert replay_journal(replayed, journal) == 2
    assert replayed.state.stacking_rules == updated and replayed.dump_json() == sim.dump_json()
    assert Simulator.restore(sim.snapshot()).state.stacking_rules == updated


def test_a_project_without_them_dumps_as_before(sim: Simulator) -> None:
    """No key in the state's image: snapshots, `/_sim/state` and the journal
    header's fingerprint of every earlier scenario stay the same."""
    assert "stacking_rules" not in sim.state.dump()
    fingerprint = sim.initial_fingerprint()
    rules = sim.apply(CREATE_STACKING_RULES, project_id=PROJECT, request={})
    assert sim.state.dump()["stacking_rules"]["id"] == rules.id
    sim.apply(DELETE_STACKING_RULES, project_id=PROJECT, stacking_rules_id=rules.id)
    assert "stacking_rules" not in sim.state.dump() and sim.initial_fingerprint() == fingerprint


# -- the scenario ---------------------------------------------------------------------------------------
def _scenario(rules: Any) -> dict[str, Any]:
    return {"project": {"id": "proj_s", "stacking_rules": rules}}


def test_a_scenario_gives_the_settings_it_names_and_the_defaults_for_the_rest() -> None:
    sim = Simulator.from_scenario(_scenario({"redeemables_application_mode": "PARTIAL",
                                             "applicable_redeemables_limit": 3}))
    rules = sim.state.stacking_rules
    assert rules is not None and rules.id.startswith("stk_") and rules.created_at == sim.now
    assert (rules.redeemables_application_mode, rules.applicable_redeemables_limit) == ("PARTIAL", 3)
    assert rules.redeemables_limit == 30
    assert Simulator.from_scenario(_scenario({"applicable_redeemables_limit": 3})).state.stacking_rules == \
        Simulator.from_scenario(_scenario({"applicable_redeemables_limit": 3})).state.stacking_rules  # seeded id


@pytest.mark.parametrize(("rules", "path"), [
    ({"redeemables_limit": 3}, "project.stacking_rules.applicable_redeemables_limit"),
    ({"redeemables_limit": 0}, "project.stacking_rules.redeemables_limit"),
    ({"limit": 3}, "project.stacking_rules.limit"),
])
def test_a_scenario_with_bad_settings_is_refused_naming_the_setting(rules: dict[str, Any], path: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        Simulator.from_scenario(_scenario(rules))
    assert [issue.path for issue in caught.value.issues] == [path]


def test_the_settings_model_refuses_what_the_change_refuses() -> None:
    with pytest.raises(ValidationError):
        models.StackingRules(redeemables_limit=3)
