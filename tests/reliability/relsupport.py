"""Helpers of the reliability suite: served simulators in subprocesses,
derived scenarios, and a results file the report is built from.

`start_server(...)` runs `python -m promolab.cli serve ...` on a free
127.0.0.1 port, with stdout/stderr captured to a file (the security tests
read it), waits until `GET /openapi.json` answers (that route needs no
credentials and draws no request id; `subprocess_helpers.wait_until_answering`),
and returns a `Server` handle. The
`server_factory` fixture (conftest.py) kills every server it started, always, even when a
test fails half-way; a test may also SIGKILL one itself (durability).

Every loop here is bounded in count and in time; all traffic goes to
127.0.0.1 only.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from subprocess_helpers import free_port, wait_until_answering

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "scenarios" / "demo.yaml"
RESULTS_DIR = ROOT / "test-output"
RESULTS_FILE = RESULTS_DIR / "reliability-results.json"

# The demo scenario's credentials (data/scenarios/demo.yaml, project.credentials).
APP_ID = "kestrel-app"
APP_TOKEN = "kestrel-app-token"
ACCESS_TOKEN = "kestrel-access-token"
MANAGEMENT_ID = "kestrel-management"
MANAGEMENT_TOKEN = "kestrel-management-token"
WEBHOOK_SECRETS = ("kestrel-webhook-secret", "kestrel-crm-secret")

APP_HEADERS = {"X-App-Id": APP_ID, "X-App-Token": APP_TOKEN}
LOYALTY_HEADERS = {**APP_HEADERS, "Authorization": f"Bearer {ACCESS_TOKEN}"}
MANAGEMENT_HEADERS = {"X-Management-Id": MANAGEMENT_ID, "X-Management-Token": MANAGEMENT_TOKEN}
CREDENTIALS = {
    "app_id": APP_ID,
    "app_token": APP_TOKEN,
    "access_token": ACCESS_TOKEN,
    "management_id": MANAGEMENT_ID,
    "management_token": MANAGEMENT_TOKEN,
}

READY_SECONDS = 60.0

#: An order and a customer of the demo scenario that every write family accepts.
ORDER = {"items": [{"product_id": "prod_mug", "quantity": 2}]}
ALICE = {"source_id": "alice"}


@dataclass
class Server:
    """One `promolab serve` subprocess on 127.0.0.1."""

    base_url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    args: list[str]
    credentials: dict[str, str] = field(default_factory=lambda: dict(CREDENTIALS))

    def http(self, timeout: float = 30.0) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=timeout)

    def client(self, **options: Any) -> Any:
        from promolab import Client

        return Client(self.base_url, **self.credentials, **options)

    def log_text(self) -> str:
        return self.log_path.read_bytes().decode("utf-8", errors="replace")

    def state_json(self, http: httpx.Client | None = None) -> bytes:
        """`GET /_sim/state` raw bytes (management credentials)."""
        own = http is None
        http = http or self.http()
        try:
            response = http.get("/_sim/state", headers=MANAGEMENT_HEADERS)
            assert response.status_code == 200, response.text
            return response.content
        finally:
            if own:
                http.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown handler, no flush; what is on disk is all there is."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_server(
    scenario: Path | None = DEMO,
    *,
    log_dir: Path,
    journal: Path | None = None,
    rate_limit: int | None = None,
    timeout: float | None = None,
    log_level: str = "warning",
    extra: list[str] | None = None,
) -> Server:
    port = free_port()
    args = [sys.executable, "-m", "promolab.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--log-level", log_level]
    if scenario is not None:
        args += ["--scenario", str(scenario)]
    if journal is not None:
        args += ["--journal", str(journal)]
    if rate_limit is not None:
        args += ["--rate-limit", str(rate_limit)]
    if timeout is not None:
        args += ["--timeout", str(timeout)]
    args += extra or []
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"serve-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            args, stdout=log, stderr=subprocess.STDOUT, cwd=str(ROOT),
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    server = Server(f"http://127.0.0.1:{port}", process, log_path, args)
    try:
        wait_until_answering(process, f"{server.base_url}/openapi.json", name="promolab serve",
                             output=server.log_text, seconds=READY_SECONDS, interval=0.05)
    except BaseException:
        server.kill()
        raise
    return server


class ServerFactory:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.started: list[Server] = []

    def __call__(self, scenario: Path | None = DEMO, **options: Any) -> Server:
        server = start_server(scenario, log_dir=self.log_dir, **options)
        self.started.append(server)
        return server

    def close(self) -> None:
        for server in self.started:
            try:
                server.stop()
            except Exception:  # noqa: BLE001 - best effort, then SIGKILL  # pragma: no cover
                server.kill()


# -- scenarios ---------------------------------------------------------------------------
def demo_document() -> dict[str, Any]:
    with DEMO.open(encoding="utf-8") as handle:
        return copy.deepcopy(yaml.safe_load(handle))


def write_scenario(document: dict[str, Any], path: Path) -> Path:
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


# -- results (the report is built from these) -------------------------------------------
def record_result(section: str, data: dict[str, Any]) -> None:
    """Merge `data` under `section` in test-output/reliability-results.json.

    Each test writes its own measured figures with the time of the run;
    `scripts/reliability_report.py` turns the file into docs/reliability.md's
    table. Concurrent writers are not expected (the suite runs serially).
    """
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    try:
        results = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        results = {}
    entry = dict(data)
    entry["recorded_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    entry["python"] = sys.version.split()[0]
    entry["cpus"] = os.cpu_count()
    results[section] = entry
    tmp = RESULTS_FILE.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(RESULTS_FILE)


#: One line per measured area, printed at the end of the pytest run
#: (conftest.py's pytest_terminal_summary), so the figures are in the test
#: output even without `-s`.
SUMMARY_LINES: list[str] = []


def summary_line(text: str) -> None:
    SUMMARY_LINES.append(text)
    print(text)
