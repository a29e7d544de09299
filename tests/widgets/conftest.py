"""Fixtures the what-if tests share: the sample orders the dashboard sweeps."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

ORDERS = Path(__file__).resolve().parents[2] / "data" / "orders" / "sample_orders.parquet"


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    """The demo's sample orders (line items), read once per module."""
    return pd.read_parquet(ORDERS)
