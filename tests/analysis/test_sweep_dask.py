"""The dask engine equals the pandas engine, row for row."""

from __future__ import annotations

import dask.dataframe as dd
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import sweep

from .support import random_orders


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    return random_orders(3_000, seed=21)


def test_threaded_dask_equals_pandas(sim: Simulator, orders: pd.DataFrame) -> None:
    expected = sweep(sim, orders, progress=False).frame
    got = sweep(sim, orders, engine="dask", npartitions=7, progress=False, chunk_size=500).frame
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_dask_dataframe_input_equals_pandas(sim: Simulator, orders: pd.DataFrame) -> None:
    expected = sweep(sim, orders, progress=False).frame
    # Partitions on order boundaries (the lines are sorted by order id).
    ddf = dd.from_pandas(orders.set_index("order_id", drop=False), npartitions=4, sort=True).reset_index(drop=True)
    got = sweep(sim, ddf, engine="dask", progress=False).frame
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_distributed_local_cluster_equals_pandas(sim: Simulator) -> None:
    distributed = pytest.importorskip("distributed")
    orders = random_orders(600, seed=22)
    expected = sweep(sim, orders, progress=False).frame
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        got = sweep(sim, orders, engine="dask", client=client, npartitions=3, progress=False).frame
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_split_orders_across_partitions_are_refused(sim: Simulator) -> None:
    orders = random_orders(50, seed=23)
    ddf = dd.from_pandas(orders, npartitions=5, sort=False)
    if ddf.npartitions < 2:
        pytest.skip("not split")
    try:
        sweep(sim, ddf, engine="dask", progress=False)
    except ValueError as exc:
        assert "split across partitions" in str(exc)
