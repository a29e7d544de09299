"""Notebook 07 serves the simulator on the port `PROMOLAB_PORT` names (one a firewall
or a tunnel lets through), else on a free one: its own cells, run as the notebook
runs them (from notebooks/), with the variable set."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from subprocess_helpers import free_port

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "07-real-service.ipynb"


def _code_cells() -> list[str]:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


@pytest.mark.served
@pytest.mark.parametrize("named", [True, False], ids=["PROMOLAB_PORT", "free port"])
def test_notebook_07_serves_on_the_port_promolab_port_names(named: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = _code_cells()
    (serving,) = [cell for cell in cells if "PROMOLAB_PORT" in cell]
    port = free_port()
    if named:
        monkeypatch.setenv("PROMOLAB_PORT", str(port))
    else:
        monkeypatch.delenv("PROMOLAB_PORT", raising=False)
    monkeypatch.chdir(NOTEBOOK.parent)
    namespace: dict[str, Any] = {}
    exec(cells[0], namespace)  # the imports and constants  # noqa: S102
    try:
        exec(serving, namespace)  # noqa: S102
        if named:
            assert namespace["port"] == port
        answer = httpx.get(f"http://127.0.0.1:{namespace['port']}/openapi.json", timeout=10)
        assert answer.status_code == 200
    finally:
        server = namespace.get("server")
        if isinstance(server, subprocess.Popen):
            server.terminate()
            server.wait(timeout=30)
