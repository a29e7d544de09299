"""Shared fixtures: the demo scenario, a simulator loaded from it, a served one.

Kept small and generic on purpose; helpers for one area live in that area's
test modules.
"""

from __future__ import annotations

import copy
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from promolab import Client, Simulator

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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _demo_credentials(path: Path) -> dict[str, str]:
    creds = Simulator.from_scenario(path).state.project.credentials
    return {
        "app_id": creds.app_id,
        "app_token": creds.app_token.get_secret_value(),
        "access_token": creds.access_token.get_secret_value(),
        "management_id": creds.management_id,
        "management_token": creds.management_token.get_secret_value(),
    }


@pytest.fixture
def served(demo_path: Path) -> Iterator[Served]:
    """`python -m promolab.cli serve --scenario demo.yaml` on a free port.

    Readiness is probed with GET /openapi.json, which needs no credentials and
    never draws a request id, so the server's request-id counter is untouched
    when the test starts. The process is always terminated.
    """
    credentials = _demo_credentials(demo_path)
    with tempfile.TemporaryFile() as log:
        port = _free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "promolab.cli", "serve", "--scenario", str(demo_path),
             "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        base_url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    pytest.fail(f"promolab serve exited with {process.returncode}:\n{log.read().decode(errors='replace')}")
                try:
                    if httpx.get(f"{base_url}/openapi.json", timeout=1.0).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail("promolab serve did not answer within 60 s")
                time.sleep(0.1)
            yield Served(base_url, process, credentials)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
