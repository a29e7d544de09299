"""Loading a pulled project's scenario: seconds and memory per code (never asserts).

    .venv/bin/python benchmarks/bench_scenario_load.py [--codes 100000] [--customers 20000] [--tiers 200] [--rounds 3]

Issue 36: a pulled project of 100,000 codes, 20,000 customers and 200 tiers
"loads in at most 10 s and at most 2 KB of memory per code". The scenario
is built in a temporary folder: the demo, plus `--tiers` promotion tiers
(10 a campaign, each its own percentage and an `order.amount` rule, every
third scoped to a product), a DISCOUNT_COUPONS campaign of `--codes` codes
(every tenth published to a customer, every fiftieth with metadata) and
`--customers` customers (every fifth with metadata). It is written twice:

- **tables**: customers and codes as Parquet tables beside the YAML
  (`{table: FILE.parquet}`, a column per field and mappings as JSON text,
  as `promolab pull` writes its customers; docs/scenarios.md, "Long lists
  as tables");
- **inline**: the same entries inline in one YAML file (the parsing limits
  allow it at this size: the value count is printed).

Each is loaded from its file as `promolab validate` loads it
(`promolab.scenario_file.open_scenario`, the core `promolab.sim.Simulator`
with its initial snapshot). Printed per variant: the load's seconds, best
and median of `--rounds` runs without tracing, wall clock and CPU time of
the process (the figure to compare on a busy machine); then one run
under `tracemalloc`: the **peak** traced during the load and the
**retained** size (traced memory once loaded and collected, the simulator
alive, minus what was traced before), each divided by the codes. Also the
load average (`os.getloadavg`), which says how far the seconds can be trusted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from promolab.scenario_file import open_scenario
from promolab.sim.scenario.parsing import MAX_NODES

DEMO = Path(__file__).parents[1] / "data" / "scenarios" / "demo.yaml"
TARGET_SECONDS = 10.0
TARGET_BYTES_PER_CODE = 2048


def customers(count: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n in range(count):
        row: dict[str, Any] = {"source_id": f"shopper-{n:05d}", "name": f"Shopper {n}", "email": f"shopper{n}@example.com"}
        if n % 5 == 0:
            row["metadata"] = {"tier": ("gold", "silver", "bronze")[n % 3]}
        rows.append(row)
    return rows


def codes(count: int, holders: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n in range(count):
        row: dict[str, Any] = {"code": f"PULL-{n:07d}"}
        if n % 10 == 0 and holders:
            row["holder"] = f"shopper-{(n // 10) % holders:05d}"
        if n % 50 == 0:
            row["metadata"] = {"batch": f"2026-{n % 12 + 1:02d}"}
        rows.append(row)
    return rows


def tier_campaigns(count: int) -> list[dict[str, Any]]:
    """`count` tiers, 10 a campaign, no two with the same terms."""
    campaigns: list[dict[str, Any]] = []
    for n in range(count):
        if n % 10 == 0:
            campaigns.append({"id": f"camp_pulled_{n // 10:02d}", "name": f"Pulled campaign {n // 10}",
                              "type": "PROMOTION", "tiers": []})
        tier: dict[str, Any] = {
            "id": f"promo_pulled_{n:03d}", "name": f"{n % 30 + 1}% over ${n + 10}", "hierarchy": n % 10 + 1,
            "discount": {"type": "PERCENT", "percent_off": n % 30 + 1,
                         "effect": "APPLY_TO_ITEMS" if n % 3 == 0 else "APPLY_TO_ORDER"},
            "validation_rules": {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": (n + 10) * 100}},
                                           "logic": "1"}},
        }
        if n % 3 == 0:
            tier["applicable_to"] = {"included": [{"object": "product", "id": "prod_mug"}]}
        campaigns[-1]["tiers"].append(tier)
    return campaigns


def size_arguments(parser: argparse.ArgumentParser, rounds: int) -> None:
    """The project's size (what `document` reads) and the rounds to time: this benchmark's and bench_pull's."""
    parser.add_argument("--codes", type=int, default=100_000)
    parser.add_argument("--customers", type=int, default=20_000)
    parser.add_argument("--tiers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=rounds)


def document(args: argparse.Namespace) -> dict[str, Any]:
    """The scenario with every list inline."""
    doc: dict[str, Any] = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    doc["customers"] = [*doc["customers"], *customers(args.customers)]
    doc["campaigns"] = [*doc["campaigns"], *tier_campaigns(args.tiers), {
        "id": "camp_pulled_codes", "name": "Pulled $5 codes", "type": "DISCOUNT_COUPONS",
        "discount": {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"},
        "vouchers": codes(args.codes, args.customers),
    }]
    return doc


def write_table(rows: list[dict[str, Any]], path: Path) -> None:
    """A column per field, mappings as JSON text (what `promolab pull` writes)."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    encoded = [{key: json.dumps(value, sort_keys=True) if isinstance(value, dict) else value
                for key, value in row.items()} for row in rows]
    pd.DataFrame(encoded, columns=columns).to_parquet(path, index=False)


def write_yaml(doc: dict[str, Any], path: Path) -> None:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(doc, out, Dumper=dumper, sort_keys=False, allow_unicode=True, width=120)


def write_variants(doc: dict[str, Any], folder: Path) -> dict[str, Path]:
    inline = folder / "inline.yaml"
    write_yaml(doc, inline)
    tables = folder / "tables.yaml"
    codes_campaign = doc["campaigns"][-1]
    write_table(doc["customers"], folder / "tables.customers.parquet")
    write_table(codes_campaign["vouchers"], folder / "tables.codes.parquet")
    write_yaml({**doc, "customers": {"table": "tables.customers.parquet"},
                "campaigns": [*doc["campaigns"][:-1], {**codes_campaign, "vouchers": {"table": "tables.codes.parquet"}}]},
               tables)
    return {"tables": tables, "inline": inline}


def values(node: Any) -> int:
    """The values a document stands for, counted as the parsing limit counts them."""
    if isinstance(node, dict):
        return 1 + sum(1 + values(v) for v in node.values())
    if isinstance(node, list):
        return 1 + sum(values(v) for v in node)
    return 1


def timed(path: Path, rounds: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds (of this process) of each load."""
    walls, cpus = [], []
    for _ in range(rounds):
        gc.collect()
        started, cpu = time.perf_counter(), time.process_time()
        sim, _ = open_scenario(path)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        del sim
    return walls, cpus


def traced(path: Path) -> tuple[int, int, int]:
    """(peak during the load, retained after it, vouchers loaded), bytes traced."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    sim, _ = open_scenario(path)
    peak = tracemalloc.get_traced_memory()[1] - before
    gc.collect()
    retained = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return peak, retained, len(sim.state.vouchers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size_arguments(parser, rounds=3)
    parser.add_argument("--variant", choices=("tables", "inline", "both"), default="both")
    args = parser.parse_args()
    doc = document(args)
    print(f"scenario: {args.codes:,} codes, {args.customers:,} customers, {args.tiers} tiers over the demo; "
          f"inline it holds {values(doc):,} values (limit {MAX_NODES:,})")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        paths = write_variants(doc, Path(folder))
        del doc
        for label, path in paths.items():
            if args.variant not in (label, "both"):
                continue
            walls, cpus = timed(path, args.rounds)
            peak, retained, loaded = traced(path)
            per_peak, per_retained = peak / args.codes, retained / args.codes
            print(f"{label:>7}: load {min(walls):6.2f} s best, {statistics.median(walls):6.2f} s median of {len(walls)}"
                  f" (CPU {min(cpus):.2f} s best, {statistics.median(cpus):.2f} s median;"
                  f" target <= {TARGET_SECONDS:.0f} s); {loaded:,} vouchers")
            print(f"{'':>7}  tracemalloc peak {peak / 2**20:7.1f} MiB = {per_peak:6.0f} B/code;"
                  f" retained {retained / 2**20:7.1f} MiB = {per_retained:6.0f} B/code"
                  f" (target retained <= {TARGET_BYTES_PER_CODE} B/code)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
