"""The layers import downward only, and no package has an import cycle.

The contracts live in pyproject.toml (`[tool.importlinter]`) and are checked by
import-linter, a well-kept tool made for this, rather than by a hand-written
import walker. docs/architecture.md explains the layers.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_the_import_contracts_hold() -> None:
    ran = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0, ran.stdout[-6000:] + ran.stderr[-2000:]
    assert re.search(r"Contracts: [1-9]\d* kept, 0 broken", ran.stdout), ran.stdout[-2000:]


def test_every_package_of_src_is_under_a_contract() -> None:
    """A new top-level package or module must be placed in the layers (or in a
    forbidden contract) rather than escape every check."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    named: set[str] = set()
    for contract in config["contracts"]:
        for key in ("layers", "source_modules"):
            for entry in contract.get(key, []):
                named.update(name.strip() for name in entry.split("|"))
    package = ROOT / "src" / "promolab"
    top = {
        f"promolab.{path.stem}"
        for path in package.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and path.stem != "__init__")
    }
    unplaced = top - named - {"promolab.webhooks"}  # a re-export of sim.webhooks.signing for receivers
    assert not unplaced, f"not in any import contract: {sorted(unplaced)}"


# -- the shape of the house (docs/architecture.md) -----------------------------------------------
SOURCES = sorted((ROOT / "src" / "promolab").rglob("*.py"))


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_each_endpoint_path_is_written_in_one_module() -> None:
    """A path of the interface or the control API is spelled out in
    `models/endpoints.py` only; everything else reads it from there (an
    error message, the router, the client, the OpenAPI document)."""
    from promolab.models.endpoints import ENDPOINTS

    for endpoint in ENDPOINTS:
        holders = [p.relative_to(ROOT).as_posix() for p in SOURCES if endpoint.path in _source(p)]
        if endpoint.path == "/openapi.json":  # our own document, named in prose by several modules
            continue
        assert holders == ["src/promolab/models/endpoints.py"], (endpoint.path, holders)


def test_no_module_is_longer_than_a_newcomer_reads_at_once() -> None:
    long = {p.relative_to(ROOT).as_posix(): n for p in SOURCES if (n := len(_source(p).splitlines())) > 450}
    assert not long, long


def test_few_type_ignores_and_each_says_why() -> None:
    ignores = [
        (p.relative_to(ROOT).as_posix(), line)
        for p in SOURCES
        for line in _source(p).splitlines()
        if "type: ignore" in line
    ]
    assert len(ignores) <= 5, ignores
    unexplained = [(path, line) for path, line in ignores if not re.search(r"type: ignore\[[\w-]+\]\s+#\s*\S", line)]
    assert not unexplained, unexplained


@pytest.mark.parametrize(
    "vague", ["types", "logic", "units", "wire", "rulebase", "inputs", "validated", "processing", "events", "utils", "helpers", "misc"]
)
def test_no_module_has_a_name_that_says_nothing(vague: str) -> None:
    assert not [p for p in SOURCES if p.stem == vague], vague
