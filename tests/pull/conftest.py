"""The pull tests' fixture: a fresh simulator of the demo scenario (targets: tests/pull_support.py)."""

from __future__ import annotations

import pytest

from promolab import Simulator
from pull_support import SCENARIOS


@pytest.fixture
def demo() -> Simulator:
    return Simulator.from_scenario(SCENARIOS / "demo.yaml")
