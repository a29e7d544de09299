"""`promolab pull` on the command line: a served simulator pulled, validated, and every bad input refused.

Exit status 0 with the scenario and its report written, 2 with one line on
stderr and nothing written; credentials from the environment only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promolab.cli import main
from promolab.pull import report_path, state_path
from promolab.shadow import ENVIRONMENT
from subprocess_helpers import free_port


@pytest.fixture
def app_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENVIRONMENT.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(ENVIRONMENT["app_id"], "kestrel-app")
    monkeypatch.setenv(ENVIRONMENT["app_token"], "kestrel-app-token")


@pytest.mark.served
def test_a_served_simulator_is_pulled_and_the_scenario_validates(served_module: Any, app_keys: None,
                                                                 tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                                 ) -> None:
    out = tmp_path / "ours.yaml"
    assert main(["pull", "--target", served_module.base_url, "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "pulled 133 objects in" in printed and f"scenario: {out}" in printed
    assert report_path(out).exists() and not state_path(out).exists()
    assert main(["validate", "--scenario", str(out), "--json"]) == 0


def test_missing_credentials_are_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    for name in ENVIRONMENT.values():
        monkeypatch.delenv(name, raising=False)
    assert main(["pull", "--target", "http://127.0.0.1:9", "--out", str(tmp_path / "p.yaml")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("promolab pull: ") and "PROMOLAB_APP_ID" in error and "PROMOLAB_APP_TOKEN" in error
    assert error.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (["--out", "p.json"], "--out must end in .yaml or .yml (got p.json)"),
    (["--out", "p.yaml", "--resume"], "does not exist (no interrupted pull of this --out)"),
    (["--out", "p.yaml"], "ConnectError"),  # nothing listens there
])
def test_bad_input_exits_2_and_writes_nothing(args: list[str], message: str, app_keys: None, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["pull", "--target", f"http://127.0.0.1:{free_port()}", "--no-progress", *args]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_bad_pace_is_refused_by_the_parser(app_keys: None, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["pull", "--target", "http://127.0.0.1:9", "--out", str(tmp_path / "p.yaml"), "--pace", "fast"])
    assert exited.value.code == 2
    assert "a pace is CALLS/SECONDS" in capsys.readouterr().err
