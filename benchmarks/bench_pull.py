"""Pulling a served project end to end, then loading what was pulled: one run (never asserts).

    .venv/bin/python benchmarks/bench_pull.py [--codes 100000] [--customers 20000] [--tiers 200] [--rounds 1]

Issue 36's figure: a served project of 100,000 codes, 20,000 customers and
200 tiers pulled "with no pacing, at least 2,000 objects/s end to end", and
the resulting scenario loaded "in at most 10 s and at most 2 KB of memory
per code". The project is bench_scenario_load's (the demo, `--tiers` tiers
in campaigns of ten, a campaign of `--codes` codes, `--customers`
customers), loaded into a simulator and answered through its whole HTTP
face in process (`SimulatorTransport`: the routes, auth, paging and JSON of
`promolab serve`, without a socket). The pull reads every list to its end
and writes the scenario (codes and customers as Parquet tables) and its
report. Printed: objects, calls, seconds and objects/s of the pull (wall
and CPU), then the pulled scenario's load seconds and memory per code
(retained after the load, and the peak during it; tracemalloc).

A list reads at most 9,900 objects through its pages when all were made at
one instant (docs/pull.md, "How far a list reaches"), as every object of a
scenario is: the codes and customers here are past that reach, so the pull
reads them through exports (`POST /v1/exports`, its status, its CSV), and
`--codes 9800 --customers 9800` measures the page path instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_scenario_load import document, size_arguments, timed, traced

from promolab import Simulator
from promolab.http.transport import SimulatorTransport
from promolab.pull import ProjectFacts, PullError, PullOptions, pull
from promolab.shadow import Target
from promolab.shadow.sides import keys_of

TARGET_OBJECTS_PER_SECOND = 2_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size_arguments(parser, rounds=1)
    args = parser.parse_args()
    served = Simulator.from_scenario(document(args))
    target = Target("http://promolab.local", keys_of(served), transport=SimulatorTransport(served))
    print(f"promolab pull benchmark: {len(served.state.vouchers):,} codes, {len(served.state.customers):,} customers, "
          f"{len(served.state.tiers):,} tiers served in process; load average {os.getloadavg()[0]:.1f}")
    walls, cpus, objects = [], [], 0
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "pulled.yaml"
        for _ in range(args.rounds):
            started, cpu = time.perf_counter(), time.process_time()
            try:
                pulled = pull(target, out, PullOptions(project=ProjectFacts(served.state.project.id)))
            except PullError as exc:
                sys.exit(f"the pull stopped: {exc}")
            walls.append(time.perf_counter() - started)
            cpus.append(time.process_time() - cpu)
            objects = pulled.objects
        wall, cpu = min(walls), min(cpus)
        print(f"pull: {objects:,} objects in {pulled.calls:,} calls, best {wall:.2f} s wall ({objects / wall:,.0f} "
              f"objects/s), {cpu:.2f} s CPU ({objects / cpu:,.0f} objects/CPU s); target >= "
              f"{TARGET_OBJECTS_PER_SECOND:,} objects/s: {'met' if objects / wall >= TARGET_OBJECTS_PER_SECOND else 'not met'}")
        load_walls, load_cpus = timed(out, max(args.rounds, 1))
        peak, retained, codes = traced(out)
        print(f"load of the pulled scenario: median {statistics.median(load_walls):.2f} s wall, "
              f"{statistics.median(load_cpus):.2f} s CPU; {codes:,} codes: {retained / codes:,.0f} B retained "
              f"and {peak / codes:,.0f} B peak per code (targets: 10 s, 2,048 B)")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
