"""Fixtures for the replay tests: fresh demo simulators, with overrides."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from promolab import Simulator


@pytest.fixture
def fresh(_demo_document: dict[str, Any]) -> Callable[..., Simulator]:
    """`fresh()` -> a new demo simulator; `fresh(settings={...})` updates a
    scenario section (dicts are merged, other values replaced)."""

    def make(**overrides: Any) -> Simulator:
        document = copy.deepcopy(_demo_document)
        for key, value in overrides.items():
            if isinstance(value, dict) and isinstance(document.get(key), dict):
                document[key].update(value)
            else:
                document[key] = value
        return Simulator.from_scenario(document)

    return make
