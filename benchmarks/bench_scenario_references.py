"""The reference check of a scenario: its share of a whole load (never asserts).

    .venv/bin/python benchmarks/bench_scenario_references.py [--customers 40000] [--rounds 3]

Every scenario load walks the document once more to check its references
(`promolab.sim.scenario.references.dangling_references`). Measured in one
run, best of `--rounds`: the check alone and the whole load
(`Simulator.from_scenario`) of the demo, and of the demo with `--customers`
more customers, all members of one segment (as many references as
customers); the check's share of the load is the figure to compare.

Target (issue 35): the check a small share of a load, linear in the
references (an id is looked up in a set, never compared with every id).
"""

from __future__ import annotations

import argparse
import copy
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from promolab import Simulator
from promolab.sim.scenario.references import dangling_references

DEMO = Path(__file__).parents[1] / "data" / "scenarios" / "demo.yaml"


def best(run: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def with_customers(demo: dict[str, Any], count: int) -> dict[str, Any]:
    document = copy.deepcopy(demo)
    document["customers"] += [{"id": f"cust_{i}", "source_id": f"src_{i}"} for i in range(count)]
    document["segments"].append({"id": "seg_all", "name": "Everyone", "customers": [f"cust_{i}" for i in range(count)]})
    return document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=40_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    demo = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    for label, document in (("demo", demo), (f"demo + {args.customers:,} customers", with_customers(demo, args.customers))):
        check = best(lambda document=document: dangling_references(document), args.rounds)
        load = best(lambda document=document: Simulator.from_scenario(document), args.rounds)
        print(f"{label:>28}: check {check * 1e3:8.1f} ms, load {load * 1e3:8.1f} ms, check/load {check / load:5.1%}")


if __name__ == "__main__":
    main()
