"""Paging large lists: 10,000 products and 10,000 customers, one page at a time.

Prints, never asserts; every figure comes from this one run.

A scenario of N products (default 10,000, one SKU each) is loaded; then, for
a page of 100 at the start, the middle and the end (page 1, 50, 100), with
the default order (`-created_at`: a sort of all N) and with a date filter:

(a) operation   `sim.apply(LIST_PRODUCTS, limit=100, page=p)`: the query
                checked, N objects filtered and sorted, 100 rendered and
                validated into `models.ProductList`.
(b) client      the same page through `sim.client().list_products(...)`:
                (a) plus the HTTP face, serialising, and the client's parse.
(c) get         `sim.apply(GET_PRODUCT, ...)` of one product, for scale: a
                page of 100 costs about 100 of these plus the sort.

Then the same for 10,000 customers (`list_customers`, page 1 to 99: each
page summarises its customers from the records) and their `starting_after`
cursor past page 99.

Timing: `time.perf_counter_ns`, one warm-up call, then ROUNDS calls; the
median and the minimum in ms per call. The ratio (a)/(c) says how much a page
costs in single reads.

Run: .venv/bin/python benchmarks/bench_list_pages.py [--products N] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from promolab import Simulator
from promolab.sim.operations import BY_NAME


def timed(call: Callable[[], Any], rounds: int) -> tuple[float, float]:
    call()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(samples), min(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    products = [{"id": f"prod_{i:06d}", "source_id": f"p-{i}", "name": f"Product {i}", "price": 100 + i,
                 "skus": [{"id": f"sku_{i:06d}", "sku": "one size", "price": 100 + i}]} for i in range(args.products)]
    started = time.perf_counter()
    sim = Simulator.from_scenario({"catalogue": {"products": products}})
    print(f"loaded {args.products:,} products in {time.perf_counter() - started:.2f} s")
    listing, get = BY_NAME["list_products"], BY_NAME["get_product"]
    single, _ = timed(lambda: sim.apply(get, product_id="prod_000042"), args.rounds)
    print(f"(c) get one product: {single:.3f} ms")
    last = min(100, -(-args.products // 100))
    with sim.client() as client:
        for page in (1, last // 2 or 1, last):
            for label, query in (("default order", {}), ("start_date filter", {"start_date": "2020-01-01T00:00:00Z"})):
                op, op_min = timed(lambda p=page, q=query: sim.apply(listing, limit=100, page=p, **q), args.rounds)
                via, via_min = timed(lambda p=page, q=query: client.list_products(limit=100, page=p, **q), args.rounds)
                print(f"page {page:>3} of 100, {label:<17}: (a) operation {op:7.2f} ms (min {op_min:6.2f}), "
                      f"(b) client {via:7.2f} ms (min {via_min:6.2f}); a/c = {op / single:5.0f}x, b/a = {via / op:.2f}")
    customers(args.products, args.rounds)


def customers(count: int, rounds: int) -> None:
    started = time.perf_counter()
    sim = Simulator.from_scenario({"customers": [{"id": f"cust_{i:06d}", "source_id": f"c-{i}"} for i in range(count)]})
    print(f"loaded {count:,} customers in {time.perf_counter() - started:.2f} s")
    listing, get = BY_NAME["list_customers"], BY_NAME["get_customer"]
    single, _ = timed(lambda: sim.apply(get, customer_id="cust_000042"), rounds)
    print(f"(c) get one customer: {single:.3f} ms")
    with sim.client() as client:
        for page in (1, 50, 99):
            op, op_min = timed(lambda p=page: sim.apply(listing, limit=100, page=p, order="created_at"), rounds)
            via, via_min = timed(lambda p=page: client.list_customers(limit=100, page=p, order="created_at"), rounds)
            print(f"customers page {page:>2} of 99: (a) operation {op:7.2f} ms (min {op_min:6.2f}), "
                  f"(b) client {via:7.2f} ms (min {via_min:6.2f}); a/c = {op / single:5.0f}x, b/a = {via / op:.2f}")
        cursor, cursor_min = timed(lambda: sim.apply(listing, limit=100, order="created_at",
                                                     starting_after="2020-01-01T00:00:00Z"), rounds)
        print(f"customers by the cursor: (a) operation {cursor:7.2f} ms (min {cursor_min:6.2f})")


if __name__ == "__main__":
    main()
