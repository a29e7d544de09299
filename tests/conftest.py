"""Shared fixtures: the demo scenario, a simulator loaded from it, a served one.

Kept small and generic on purpose; helpers for one area live in that area's
test modules.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from promolab import Client, Simulator
from subprocess_helpers import free_port, serving

DEMO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "demo.yaml"


@pytest.fixture(scope="session")
def demo_path() -> Path:
    return DEMO


@pytest.fixture(scope="session")
def _demo_document(demo_path: Path) -> dict[str, Any]:
    # Parsing the YAML is most of a load's cost; parse once per session.
    with demo_path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)  # type: ignore[no-any-return]


@pytest.fixture
def sim(_demo_document: dict[str, Any]) -> Simulator:
    """A fresh simulator of the demo scenario (same state as loading the file:
    tests/sim/test_scenario_loading.py checks that)."""
    return Simulator.from_scenario(copy.deepcopy(_demo_document))


@dataclass
class Served:
    """A `promolab serve` subprocess on 127.0.0.1."""

    base_url: str
    process: subprocess.Popen[bytes]
    credentials: dict[str, str]

    def client(self, **options: Any) -> Client:
        return Client(self.base_url, **self.credentials, **options)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=10.0)

    def reset(self) -> None:
        """Back to the scenario's initial state (`POST /_sim/reset`)."""
        with self.client() as client:
            client.control.reset()


def _demo_credentials(path: Path) -> dict[str, str]:
    creds = Simulator.from_scenario(path).state.project.credentials
    return {
        "app_id": creds.app_id,
        "app_token": creds.app_token.get_secret_value(),
        "access_token": creds.access_token.get_secret_value(),
        "management_id": creds.management_id,
        "management_token": creds.management_token.get_secret_value(),
    }


@contextmanager
def _serve(path: Path) -> Iterator[Served]:
    """`python -m promolab.cli serve --scenario PATH` on a free port.

    Readiness is probed with GET /openapi.json, which needs no credentials and
    never draws a request id, so the server's request-id counter is untouched
    when the test starts. The process is always terminated
    (`subprocess_helpers.serving`).
    """
    credentials = _demo_credentials(path)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with serving(
        [sys.executable, "-m", "promolab.cli", "serve", "--scenario", str(path),
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        f"{base_url}/openapi.json", name="promolab serve", seconds=60, interval=0.1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    ) as process:
        yield Served(base_url, process, credentials)


@pytest.fixture
def served(demo_path: Path) -> Iterator[Served]:
    """A served demo scenario of its own for one test (see `_serve`)."""
    with _serve(demo_path) as server:
        yield server


@pytest.fixture(scope="module")
def served_module(demo_path: Path) -> Iterator[Served]:
    """One served demo scenario for a whole test module; its tests put it back
    to the scenario's state with `Served.reset()` (the control API's reset)."""
    with _serve(demo_path) as server:
        yield server
