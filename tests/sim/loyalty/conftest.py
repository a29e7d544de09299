"""Fixtures for the loyalty tests: the demo scenario, fresh per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from promolab import Simulator

DEMO = Path(__file__).parents[3] / "data" / "scenarios" / "demo.yaml"


@pytest.fixture(scope="session")
def demo_snapshot() -> dict:
    return Simulator.from_scenario(DEMO).snapshot()


@pytest.fixture
def sim(demo_snapshot: dict) -> Simulator:
    return Simulator.restore(demo_snapshot)
