"""Exporting a project's customers as CSV against reading them page by page.

Prints, never asserts; every figure comes from this one run.

A scenario of N customers (default 9,900: 99 pages of 100, the most the
customers list pages to) is loaded; then:

(a) export, default fields   `create_export` of every customer (`name,
                             source_id`) and its `download_export`: the rows
                             read from the customers' profiles, sorted,
                             written as CSV, kept in the state.
(b) export, every field      the same with the 30 documented fields.
(c) list pages               `list_customers` pages 1..N/100 of 100 through
                             `sim.apply`: what a pull without exports reads.

Timing: bench_list_pages.py's `timed` (`time.perf_counter_ns`, one warm-up
run, then ROUNDS runs; the median and the minimum in ms). Each export run
adds an export to the state, as a caller's would. The ratio (c)/(a) says how much faster one
export brings every customer than walking the list does.

Run: .venv/bin/python benchmarks/bench_exports.py [--customers N] [--rounds R]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from bench_list_pages import timed

from promolab import Simulator
from promolab.sim import BY_NAME

FIELDS = ["name", "id", "description", "email", "source_id", "created_at", "address_city", "address_state",
          "address_line_1", "address_line_2", "address_country", "address_postal_code", "redemptions_total_redeemed",
          "redemptions_total_failed", "redemptions_total_succeeded", "redemptions_total_rolled_back",
          "redemptions_total_rollback_failed", "redemptions_total_rollback_succeeded", "orders_total_amount",
          "orders_total_count", "orders_average_amount", "orders_last_order_amount", "orders_last_order_date",
          "loyalty_points", "loyalty_referred_customers", "updated_at", "phone", "birthday", "metadata", "birthdate"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=9_900)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    customers = [{"id": f"cust_{i:06d}", "source_id": f"c-{i}", "name": f"Customer {i}",
                  "email": f"c{i}@example.test", "metadata": {"tier": i % 3}} for i in range(args.customers)]
    sim = Simulator.from_scenario({"customers": customers})
    create, download, listing = BY_NAME["create_export"], BY_NAME["download_export"], BY_NAME["list_customers"]

    def export(fields: list[str] | None) -> Callable[[], str]:
        body: dict[str, Any] = {"exported_object": "customer"}
        if fields is not None:
            body["parameters"] = {"fields": fields}
        return lambda: sim.apply(download, export_id=sim.apply(create, request=body).id)

    def walk() -> int:
        pages = -(-args.customers // 100)
        return sum(len(sim.apply(listing, limit=100, page=p).customers) for p in range(1, pages + 1))

    rows = export(FIELDS)().count("\r\n") - 1
    print(f"{args.customers:,} customers; an export holds {rows:,} rows")
    figures = {"(a) export, default fields": timed(export(None), args.rounds),
               "(b) export, every field": timed(export(FIELDS), args.rounds),
               "(c) list pages of 100": timed(walk, args.rounds)}
    for name, (median, best) in figures.items():
        print(f"{name:28s} median {median:9.1f} ms  min {best:9.1f} ms  {args.customers / median * 1000:10,.0f} rows/s")
    walked = figures["(c) list pages of 100"][0]
    print(f"ratio (c)/(a): {walked / figures['(a) export, default fields'][0]:.1f}x, "
          f"(c)/(b): {walked / figures['(b) export, every field'][0]:.1f}x")


if __name__ == "__main__":
    main()
