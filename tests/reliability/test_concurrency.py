"""Concurrency: 8 client threads x 1,000 mixed operations on one served simulator.

The threads share one publishing campaign with a code pool smaller than the
publication attempts, the same four loyalty cards (purchases race for their
points and for the mug's stock), one gift voucher, and the simulated clock
(some operations advance it, so purchases settle while others are still
being made). After the load the clock is advanced to settle every pending
purchase and `loadmix.reconcile` checks: no code published twice, every
acknowledged publication held by its customer, no points spent twice (each
card's balance is its opening balance plus its approved transactions, and
never more is spent than it had and earned), stock and gift balance exact,
every acknowledged write in the state, no 5xx, only the expected refusals.

Figures (ops/s, per-operation counts, refusals) are printed and written to
test-output/reliability-results.json. Timings are reported, never asserted.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from loadmix import Acks, Load, load_scenario, reconcile
from relsupport import MANAGEMENT_HEADERS, record_result, summary_line, write_scenario

pytestmark = [pytest.mark.served, pytest.mark.timeout(600)]

THREADS = 8
OPS_PER_THREAD = 1000
DEADLINE_SECONDS = 240.0  # a bound, not an assertion: a slow machine stops early and reports it


def test_concurrent_clients_reconcile(server_factory: Any, tmp_path: Path) -> None:
    scenario = write_scenario(load_scenario(), tmp_path / "load.yaml")
    server = server_factory(scenario)
    with server.http() as http:
        opening = http.get("/_sim/state", headers=MANAGEMENT_HEADERS).json()

        loads = [Load(server.base_url, t, OPS_PER_THREAD, seed=20260306, deadline=DEADLINE_SECONDS)
                 for t in range(THREADS)]
        threads = [threading.Thread(target=load.run, name=f"load-{load.thread}") for load in loads]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=DEADLINE_SECONDS + 60)
        elapsed = time.monotonic() - started
        assert not any(t.is_alive() for t in threads), "a client thread is stuck"
        errors = [load.error for load in loads if load.error is not None]
        assert not errors, f"client errors: {errors!r}"

        acks = Acks()
        for load in loads:
            acks.merge(load.acks)
        done = sum(acks.ops.values())

        # settle: pending purchases are due 2 s after they were made
        settle = http.post("/_sim/clock/advance", headers=MANAGEMENT_HEADERS, json={"seconds": 60})
        assert settle.status_code == 200, settle.text
        final = http.get("/_sim/state", headers=MANAGEMENT_HEADERS).json()

    ops_per_second = done / elapsed
    summary_line(f"concurrency: {THREADS} clients x {OPS_PER_THREAD} ops -> {done} operations in {elapsed:.1f} s "
                 f"= {ops_per_second:.0f} ops/s; statuses {dict(sorted(acks.statuses.items()))}")
    print(f"  operations {dict(sorted(acks.ops.items()))}")
    print(f"  refusals {dict(sorted(acks.refusals.items()))}")
    assert not acks.unexpected, "unexpected answers:\n" + "\n".join(acks.unexpected[:20])
    assert acks.transport_errors == 0
    assert not any(status >= 500 for status in acks.statuses)

    figures = reconcile(opening, final, acks, exact_acks=True)
    summary_line(f"concurrency reconciled: {figures['distinct_codes']} distinct codes for "
                 f"{figures['publications_acknowledged']} publications, {figures['purchases_approved']} purchases "
                 f"approved, balances/stock/gift exact")
    record_result("concurrency", {
        "clients": THREADS,
        "ops_per_client": OPS_PER_THREAD,
        "operations": done,
        "completed_all": done == THREADS * OPS_PER_THREAD,
        "seconds": round(elapsed, 2),
        "ops_per_second": round(ops_per_second, 1),
        "operations_by_kind": dict(sorted(acks.ops.items())),
        "statuses": {str(k): v for k, v in sorted(acks.statuses.items())},
        "refusals": dict(sorted(acks.refusals.items())),
        "server_errors": 0,
        "reconciliation": figures,
    })
    assert done == THREADS * OPS_PER_THREAD, (
        f"only {done} of {THREADS * OPS_PER_THREAD} operations within {DEADLINE_SECONDS:g} s"
    )
