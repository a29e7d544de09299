"""Fixtures of the shadow-run tests: the planted perturbation of the demo
scenario, served simulators standing in for the real service, and the
environment a real target's credentials come from.

The "real" side is `promolab serve` of a copy of the demo scenario with three
planted changes (`perturb`), started with another id seed than the simulator
(99, against the scenario's 7): every publication, voucher, transaction and
created customer gets another id on each side, so the id pairing and the
masking are exercised on every line that creates anything.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from promolab.shadow import ENVIRONMENT
from shadow_support import perturb
from subprocess_helpers import free_port, serving


@pytest.fixture
def perturbed_path(tmp_path: Path, _demo_document: dict[str, Any]) -> Path:
    path = tmp_path / "perturbed.yaml"
    path.write_text(yaml.safe_dump(perturb(_demo_document), sort_keys=False), encoding="utf-8")
    return path


@contextmanager
def _serve(scenario: Path, *extra: str) -> Iterator[str]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with serving(
        [sys.executable, "-m", "promolab.cli", "serve", "--scenario", str(scenario), "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning", *extra],
        f"{base_url}/openapi.json", name="promolab serve", seconds=60, interval=0.1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    ):
        yield base_url


@pytest.fixture
def serve() -> Callable[..., AbstractContextManager[str]]:
    """`with serve(scenario, "--seed", "99") as base_url:` a served simulator."""
    return _serve


@pytest.fixture
def target_env(monkeypatch: pytest.MonkeyPatch, demo_credentials: dict[str, str]) -> Callable[[str], None]:
    """`target_env(base_url)`: the environment a real target is read from,
    with the demo project's credentials (the perturbed copy keeps them)."""

    def set_env(base_url: str) -> None:
        monkeypatch.setenv(ENVIRONMENT["base_url"], base_url)
        for name, value in demo_credentials.items():
            monkeypatch.setenv(ENVIRONMENT[name], value)
        monkeypatch.delenv(ENVIRONMENT["management_base_url"], raising=False)

    return set_env


@pytest.fixture
def no_target_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No PROMOLAB_* target variable set (whatever the developer's shell has)."""
    for name in ENVIRONMENT.values():
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def demo_credentials(demo_path: Path) -> dict[str, str]:
    from promolab import Simulator

    creds = Simulator.from_scenario(demo_path).state.project.credentials
    return {"app_id": creds.app_id, "app_token": creds.app_token.get_secret_value(),
            "access_token": creds.access_token.get_secret_value(), "management_id": creds.management_id,
            "management_token": creds.management_token.get_secret_value()}
