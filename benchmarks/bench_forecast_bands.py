"""Forecast bands benchmark: 200 draws of 100,000 dated orders through the budget walk (never asserts).

    .venv/bin/python benchmarks/bench_forecast_bands.py [--orders 100000] [--draws 200] [--rate 0.7]
    .venv/bin/python benchmarks/bench_forecast_bands.py --orders 20000 --draws 50   # a quick look

The orders: scripts/make_dated_orders.py's generator (bench_forecast.py's);
the scenario: the shipped forecast scenario, whose three budgets bind; every
tier redeemed with probability `--rate`, so each draw redeems other orders
and the budgets run out at other moments. Figures, in one run:

- one core (the process pinned to one CPU): `forecast(..., draws=N)`, the
  draws alone (the sweep runs once and is timed apart), order-draws/s;
- two Dask worker processes (a LocalCluster, 1 thread each): the same draws, order-draws/s and the ratio to one core
  (results checked equal), twice: with the environment Dask's nanny gives its
  workers (`MALLOC_TRIM_THRESHOLD_=65536`), and with that variable unset
  (docs/response.md, "Workers for bands", says why it costs a draw a fifth more). Timed: `all_draws`, i.e. scattering the plan to
  the workers (once, its pickled size printed), the batches of draws
  (`bands.draw_batches`: two per worker) and gathering their totals; not
  timed: starting the cluster and the workers' imports (done before the clock
  starts), the sweep and the quantiles, as on one core.

Targets (issue 37): >= 1,000,000 order-draws/s on one core (200 x 100,000 in
<= 20 s), >= 1.6x that on two worker processes. The load average is printed:
on a shared machine the second figure depends on a free second core.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy loads: no hidden thread pool in the one-core figures

import argparse
import importlib
import time
from typing import Any

import pandas as pd
from bench_forecast import (
    _generator,  # the same orders (this folder is on sys.path when run as a script)
)

from promolab import Simulator, samples
from promolab.analysis import CostModel, forecast

bands_module = importlib.import_module("promolab.analysis.forecast.bands")
api_module = importlib.import_module("promolab.analysis.forecast.api")


class DrawClock:
    """Wall time of the draws alone (wrapping the `all_draws` that `forecast` calls)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu = 0.0  # this process's CPU time (the one-core run): what a busy machine's wall time hides
        self.plan: Any = None
        self._saved = api_module.all_draws
        api_module.all_draws = self._timed

    def _timed(self, *args: Any, **kwargs: Any) -> Any:
        self.plan = args[0]
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return self._saved(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
            self.cpu += time.process_time() - cpu


#: The variable Dask's nanny sets in each worker it starts: with it set, glibc stops adapting its mmap
#: threshold, so every array of a draw past 128 KB is mapped and its pages faulted in afresh.
TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"


def _on_workers(clock: DrawClock, run: Any, environ: dict[str, Any]) -> tuple[float, float, Any]:
    """`run(client)` on a fresh two-worker LocalCluster started under the Dask config `environ`:
    the draws' wall time, the workers' CPU time over them, and what `run` gave."""
    saved = dict(os.environ)  # the nanny spawns with its variables put in this process's environment, and leaves them
    try:
        return _timed_on_workers(clock, run, environ)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _timed_on_workers(clock: DrawClock, run: Any, environ: dict[str, Any]) -> tuple[float, float, Any]:
    import dask
    import distributed

    with dask.config.set(environ), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        # Workers up and their imports done before the clock starts: the first task would
        # otherwise import numpy, pandas and promolab on each worker (seconds), start-up and not draws.
        client.run(importlib.import_module, "promolab.analysis.forecast.bands")
        clock.seconds = 0.0
        cpu_before = client.run(time.process_time)
        result = run(client)
        # the workers' CPU time over the draws: against one core's, what fanning out costs in work
        worker_cpu = sum(after - cpu_before[w] for w, after in client.run(time.process_time).items())
    return clock.seconds, worker_cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--rate", type=float, default=0.7)
    args = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    frame = _generator().make_dated_orders(args.orders)
    n = frame["order_id"].nunique()
    sim = Simulator.from_scenario(samples.forecast_scenario())
    costs = CostModel(redemption_rate=args.rate)
    print(f"promolab forecast bands benchmark: {n:,} dated orders x {args.draws} draws, redemption rate {args.rate}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if cpus:
        os.sched_setaffinity(0, {cpus[0]})
    clock = DrawClock()
    started = time.perf_counter()
    local = forecast(sim, frame, costs=costs, draws=args.draws, seed=1, progress=False)
    wall = time.perf_counter() - started
    one = n * args.draws / clock.seconds
    print(f"one core:  forecast {wall:.2f} s, of which the {args.draws} draws {clock.seconds:.2f} s "
          f"= {one:,.0f} order-draws/s (target >= 1,000,000: {'met' if one >= 1_000_000 else 'NOT met'}); "
          f"CPU time {clock.cpu:.2f} s = {n * args.draws / clock.cpu:,.0f} order-draws per CPU second")
    if cpus:
        os.sched_setaffinity(0, set(cpus))
    import cloudpickle

    shipped = len(cloudpickle.dumps(clock.plan)) / 1e6
    print(f"two Dask worker processes, in {len(bands_module.draw_batches(args.draws, 2))} batches, "
          f"the plan scattered once ({shipped:.1f} MB pickled):")
    for label, environ in (("Dask's nanny environment (MALLOC_TRIM_THRESHOLD_=65536)", {}),
                           ("MALLOC_TRIM_THRESHOLD_ unset", {TRIM: None})):
        seconds, worker_cpu, dask = _on_workers(clock, lambda client: forecast(
            sim, frame, costs=costs, draws=args.draws, seed=1, engine="dask", client=client, progress=False), environ)
        two = n * args.draws / seconds
        assert local.bands is not None and dask.bands is not None
        pd.testing.assert_frame_equal(local.bands.budgets, dask.bands.budgets, check_exact=True)
        print(f"  {label}: the draws {seconds:.2f} s = {two:,.0f} order-draws/s = {two / one:.2f}x one core "
              f"(target >= 1.6x: {'met' if two >= 1.6 * one else 'NOT met'}; results equal); workers' CPU time "
              f"{worker_cpu:.2f} s = {worker_cpu / clock.cpu:.2f}x one core's; load average {os.getloadavg()[0]:.1f}")
    print(local.bands.budgets[["tier_id", "rule", "spent_p10", "spent_p50", "spent_p90", "ran_out_share",
                               "ran_out_at_p50"]].to_string(index=False))


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    main()
