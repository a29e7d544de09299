"""The dask engine equals the pandas engine, row for row: threaded, on an in-process
cluster, and on a cluster whose workers are other processes (what a real cluster is:
everything a worker needs travels pickled, nothing is shared with the driver)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import sweep
from promolab.cli import main

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


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("options", [
    {},
    {"at": "2026-03-07T12:00:00Z", "customers": "alice", "metadata": {"channel": "app"}},
])
def test_worker_processes_equal_pandas(sim: Simulator, process_cluster: Any, options: dict[str, Any]) -> None:
    import distributed

    orders = random_orders(1_500, seed=24)
    expected = sweep(sim, orders, progress=False, **options).frame
    with distributed.Client(process_cluster) as client:
        pids = client.run(os.getpid)
        assert len(pids) == 2 and os.getpid() not in pids.values()  # the work leaves this process
        got = sweep(sim, orders, engine="dask", client=client, npartitions=5, progress=False, **options).frame
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        # a dask DataFrame: each worker normalises and plans its partitions itself
        ddf = dd.from_pandas(orders.set_index("order_id", drop=False), npartitions=3, sort=True)
        got = sweep(sim, ddf.reset_index(drop=True), engine="dask", client=client, progress=False, **options).frame
        pd.testing.assert_frame_equal(got, expected, check_exact=True)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_cli_scheduler_runs_on_the_cluster(sim: Simulator, process_cluster: Any, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    orders = random_orders(400, seed=25)
    source = tmp_path / "orders.parquet"
    orders.to_parquet(source, index=False)
    out = tmp_path / "r.parquet"
    address = process_cluster.scheduler_address
    assert address.startswith("tcp://")
    assert main(["sweep", "--orders", str(source), "--out", str(out), "--scheduler", address, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert f"engine=dask on {address}" in printed
    expected = sweep(sim, orders, progress=False).frame
    written = pd.read_parquet(out)
    assert written["discount_amount"].tolist() == expected["discount_amount"].tolist()
    assert written["reason_key"].astype(str).tolist() == expected["reason_key"].astype(str).tolist()
