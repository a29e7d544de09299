"""What the notebook tests share: where the notebooks live, and the build script
(scripts/build_notebooks.py) loaded as a module."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from script_modules import load_script

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


def builder() -> ModuleType:
    """scripts/build_notebooks.py as a module."""
    return load_script("build_notebooks")
