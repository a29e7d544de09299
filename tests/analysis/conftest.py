"""Fixtures shared by the analysis tests that run on Dask worker processes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def process_cluster() -> Iterator[Any]:
    """2 worker processes x 1 thread on 127.0.0.1 (tcp), stopped after the module."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        yield cluster
