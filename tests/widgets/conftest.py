"""Fixtures the what-if tests share: the sample orders the dashboard sweeps."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from promolab import Simulator
from promolab.widgets import WhatIfController

ORDERS = Path(__file__).resolve().parents[2] / "data" / "orders" / "sample_orders.parquet"


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    """The demo's sample orders (line items), read once per module."""
    return pd.read_parquet(ORDERS)


@pytest.fixture
def controller(sim: Simulator, orders: pd.DataFrame) -> WhatIfController:
    """A what-if over 800 of them (a seeded draw): enough orders for every
    tier of the demo to reach some, quick to sweep. A test module may ask
    for more by defining its own."""
    return WhatIfController(sim, orders, sample=800)
