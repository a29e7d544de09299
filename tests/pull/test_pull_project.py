"""What a pull is told of the project (`--project`, `--timezone`, `--currency`) and the stacking rules it then reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from promolab import Simulator
from promolab.cli import main
from promolab.pull import ProjectFacts, PullOptions, pull, report_path
from promolab.shadow import ENVIRONMENT
from pull_support import target_of

_RULES = {"redeemables_limit": 5,
          "redeemables_application_mode": "PARTIAL", "redeemables_sorting_rule": "CATEGORY_HIERARCHY"}


def _project(stacking_rules: dict[str, Any] | None) -> Simulator:
    project: dict[str, Any] = {"id": "proj_ours", "timezone": "Europe/Berlin", "currency": "EUR"}
    if stacking_rules is not None:
        project["stacking_rules"] = stacking_rules
    return Simulator.from_scenario({"project": project, "categories": [{"id": "cat_clearance", "name": "Clearance"}]})


@pytest.mark.parametrize("rules", [_RULES, {"redeemables_limit": 12}, None])
def test_the_stacking_rules_come_back_as_the_project_has_them(rules: dict[str, Any] | None, tmp_path: Path) -> None:
    original = _project(rules)
    out = tmp_path / "p.yaml"
    pull(target_of(original), out, PullOptions(project=ProjectFacts("proj_ours", "Europe/Berlin", "EUR")))
    written = yaml.safe_load(out.read_text(encoding="utf-8"))["project"]
    assert written == {"id": "proj_ours", "currency": "EUR", "timezone": "Europe/Berlin",
                       **({"stacking_rules": rules} if rules else {})}
    again = Simulator.from_scenario(out)
    with again.client() as ours, original.client() as theirs:  # the rules in force, as the service lists them
        assert ours.list_stacking_rules("proj_ours").model_dump(mode="json", exclude={"data": {0: {"id", "created_at"}}}) \
            == theirs.list_stacking_rules("proj_ours").model_dump(mode="json", exclude={"data": {0: {"id", "created_at"}}})


def test_without_the_project_id_the_stacking_rules_are_reported_not_read(tmp_path: Path) -> None:
    out = tmp_path / "p.yaml"
    pull(target_of(_project(_RULES)), out)
    assert "project" not in yaml.safe_load(out.read_text(encoding="utf-8"))
    assert "project,,stacking_rules,not read: the management API needs the project's id (--project)" in \
        report_path(out).read_text(encoding="utf-8")


@pytest.mark.parametrize(("facts", "message"), [
    ({"id": ""}, "--project: '' is not a project id"),
    ({"id": "a\nb"}, "is not a project id"),
    ({"timezone": "Mars/Olympus"}, "--timezone: 'Mars/Olympus' is not an IANA time zone"),
    ({"timezone": "../etc/passwd"}, "is not an IANA time zone"),
    ({"currency": "usd"}, "--currency: 'usd' is not an ISO 4217 code"),
])
def test_bad_facts_are_refused_before_anything_is_read(facts: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ProjectFacts(**facts)


@pytest.mark.parametrize(("args", "error"), [
    (["--timezone", "Nowhere/Land"], "--timezone: 'Nowhere/Land' is not an IANA time zone (Europe/Berlin)"),
    (["--currency", "Euro"], "--currency: 'Euro' is not an ISO 4217 code (USD, EUR)"),
    (["--project", "proj_x"], "PROMOLAB_MANAGEMENT_ID"),  # the management keys are needed with a project
])
def test_the_cli_refuses_bad_facts_with_exit_2(args: list[str], error: str, monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ENVIRONMENT.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(ENVIRONMENT["app_id"], "a")
    monkeypatch.setenv(ENVIRONMENT["app_token"], "t")
    assert main(["pull", "--target", "http://127.0.0.1:9", "--out", str(tmp_path / "p.yaml"), *args]) == 2
    printed = capsys.readouterr().err
    assert printed.startswith("promolab pull: ") and error in printed and printed.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
