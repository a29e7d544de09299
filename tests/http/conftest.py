"""What the HTTP tests share: a client of the demo simulator through the
in-process transport (the same HTTP face `promolab serve` runs)."""

from __future__ import annotations

import httpx
import pytest

from demo_keys import BASE
from promolab import Simulator
from promolab.http import SimulatorTransport


@pytest.fixture
def http(sim: Simulator) -> httpx.Client:
    """A plain httpx client of `sim` (no keys: each test sends the ones it means)."""
    return httpx.Client(base_url=BASE, transport=SimulatorTransport(sim))
