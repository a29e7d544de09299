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
