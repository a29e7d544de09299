"""What undoing a failed write costs the writes that do not fail, and what a failure costs.

Prints, never asserts; every figure comes from this one run.

Writes on the demo scenario, each variant on a simulator of its own, in
interleaved rounds (bench_validation.py's `measure`: CPU time of this
process, per-round means; the median and the minimum of them):

(a) `sim.apply(REDEEM_STACKED, ...)`: a stacked redemption of a gift card,
    the whole write path (the lock, the id-counter mark, the write log's
    line and checkpoints), unjournaled;
(b) the same on a journaled simulator (a file, without fsync: the disk is
    not what is measured), whose journal line the write log keeps as it is;
(c) `REDEEM_STACKED.run(sim, ...)`: the operation's function alone, without
    the write path: (a) / (c) is the write path's cost;
(d), (e) the same for gift credits (`ADD_GIFT_BALANCE`), a small write;
(f) (a) with the write log switched off (it logs nothing and never takes a
    checkpoint; nothing could be undone): (a) / (f) is what the write log
    costs a write, measured in the same rounds.

Then, on the simulator of (a) once it holds every redemption of the run:
what a checkpoint takes (a pickle of the state), what a JSON snapshot takes
(the copy the write log does not make per write), and what undoing one
failed redemption takes (the rebuild from the checkpoint: the lines since,
replayed), with the number of lines replayed.

Run it on another checkout to compare (it measures whatever `promolab` is
imported): `PYTHONPATH=<checkout>/src .venv/bin/python benchmarks/bench_write_rollback.py`;
the parts a checkout without the write log lacks are skipped.

Run: .venv/bin/python benchmarks/bench_write_rollback.py [--rounds 10] [--batch 100]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_validation import measure

from promolab import Simulator
from promolab.sim.journal import resume_journal
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.redemptions import REDEEM_STACKED

DEMO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "demo.yaml"
REDEMPTION: dict[str, Any] = {
    "redeemables": [{"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 1}}],
    "order": {"items": [{"product_id": "prod_mug", "quantity": 2}]},
    "customer": {"source_id": "alice"},
}


def _fresh() -> Simulator:
    return Simulator.from_scenario(DEMO)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--batch", type=int, default=100, help="writes per variant and round")
    options = parser.parse_args()
    plain, journaled, bare, unlogged = _fresh(), _fresh(), _fresh(), _fresh()
    gift_plain, gift_bare = _fresh(), _fresh()
    for sim in (plain, journaled, bare, unlogged):  # enough credit for every redemption of the run
        ADD_GIFT_BALANCE.run(sim, code="GIFT-ALICE-50", request={"amount": 10**9})
    logged = hasattr(unlogged, "write_log")
    if logged:
        unlogged.write_log = _switched_off()
    with tempfile.TemporaryDirectory() as tmp:
        resume_journal(journaled, Path(tmp) / "journal.jsonl", fsync=False)
        per_round = measure({
            "apply": (lambda: plain.apply(REDEEM_STACKED, request=REDEMPTION), options.batch),
            "journaled": (lambda: journaled.apply(REDEEM_STACKED, request=REDEMPTION), options.batch),
            "bare": (lambda: REDEEM_STACKED.run(bare, request=REDEMPTION), options.batch),
            "gift": (lambda: gift_plain.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 5}),
                     options.batch),
            "gift_bare": (lambda: ADD_GIFT_BALANCE.run(gift_bare, code="GIFT-ALICE-50", request={"amount": 5}),
                          options.batch),
            **({"unlogged": (lambda: unlogged.apply(REDEEM_STACKED, request=REDEMPTION), options.batch)}
               if logged else {}),
        }, options.rounds)
        journaled.record_to(None)
    writes = len(plain.state.redemptions)
    print(f"write path: {options.rounds} rounds x {options.batch} writes a variant (plus warm-up); "
          f"{writes} redemptions in (a)'s state at the end; Python {platform.python_version()}; "
          f"load {os.getloadavg()[0]:.2f}")
    labels = {
        "apply": "(a) redemption, sim.apply, no journal",
        "journaled": "(b) redemption, sim.apply, journaled (no fsync)",
        "bare": "(c) redemption, REDEEM_STACKED.run alone",
        "gift": "(d) gift credit, sim.apply, no journal",
        "gift_bare": "(e) gift credit, ADD_GIFT_BALANCE.run alone",
        "unlogged": "(f) redemption, sim.apply, write log switched off",
    }
    median = {name: statistics.median(values) for name, values in per_round.items()}
    for name, label in labels.items():
        if name not in median:
            continue
        print(f"  {label:<52} median {median[name]:8.1f} us  min {min(per_round[name]):8.1f} us")
    print(f"  write path / bare: redemption {median['apply'] / median['bare']:.3f}x, "
          f"journaled {median['journaled'] / median['bare']:.3f}x, gift {median['gift'] / median['gift_bare']:.3f}x")
    if logged:
        print(f"  the write log's cost: (a) / (f) = {median['apply'] / median['unlogged']:.3f}x "
              f"(min over rounds {min(per_round['apply']) / min(per_round['unlogged']):.3f}x)")
    _failure_costs(plain)


def _switched_off() -> Any:
    """A write log that logs nothing (variant (f))."""
    from promolab.sim.write_log import WriteLog

    class SwitchedOff(WriteLog):
        __slots__ = ()

        def record(self, at: Any, op: str, args: dict[str, Any], line: str | None = None) -> None:
            pass

        def spent(self, seconds: float) -> None:
            pass

        def due(self) -> bool:
            return False

    return SwitchedOff()


def _failure_costs(sim: Simulator) -> None:
    log = getattr(sim, "write_log", None)
    start = time.perf_counter()
    sim.snapshot()
    snapshot_ms = (time.perf_counter() - start) * 1000
    print(f"one JSON snapshot of that state: {snapshot_ms:.1f} ms")
    if log is None:
        print("(no write log in this checkout: no checkpoint, no undo)")
        return
    start = time.perf_counter()
    log.checkpoint(sim.seed, sim.ids, sim.clock, sim.state)
    checkpoint_ms = (time.perf_counter() - start) * 1000
    for _ in range(200):
        sim.apply(REDEEM_STACKED, request=REDEMPTION)
    lines = len(log.lines)
    real, armed = REDEEM_STACKED.run, [True]

    def failing(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if armed[0]:
            armed[0] = False
            raise ZeroDivisionError("an injected bug, after the write changed the state")
        return result

    object.__setattr__(REDEEM_STACKED, "run", failing)  # a frozen dataclass: the benchmark's own fault
    start = time.perf_counter()
    try:
        sim.apply(REDEEM_STACKED, request=REDEMPTION)
    except ZeroDivisionError:
        pass
    finally:
        object.__setattr__(REDEEM_STACKED, "run", real)
    undo_ms = (time.perf_counter() - start) * 1000
    print(f"checkpoint (pickle) of that state: {checkpoint_ms:.1f} ms ({checkpoint_ms / snapshot_ms:.2f}x the snapshot)")
    print(f"one failed redemption undone: {undo_ms:.1f} ms (rebuilt from the checkpoint and {lines} lines)")


if __name__ == "__main__":
    main()
