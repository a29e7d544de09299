"""Replay throughput: events/s with the timeline vs the same lines applied bare.

    .venv/bin/python benchmarks/bench_replay.py [--lines 20000] [--seed 7]

Generates a seeded sequence of mixed lines on the demo scenario (orders as
`order_placed` events, some validated first, reviews, referral conversions,
newsletter publications, reward purchases settling on the clock, gift top-ups
firing webhooks that retry across advances, a webhook and a reward deletion,
a close-of-day advance), then, in one run:

1. baseline: the lines, already parsed, applied straight to a fresh simulator
   (`sim.advance` to each line's `at`, then `sim.apply`), no checks, no
   timeline;
2. replay: `promolab.replay.replay(sim, lines)` on another fresh simulator,
   from the JSON text: parse and check every line, time step, apply,
   timeline, balances, frames. Baseline and replay advance in alternating
   chunks (same machine conditions for both, so the ratio holds on a busy
   machine); both must end in the same state;

3. machinery: the same replay on a simulator whose operations are stubbed
   (canned answers, a clock that does not move): the replay's own cost per
   line, whatever the simulator's speed.

Prints events/s of each (CPU time of this process, so other work on a shared
machine does not blur the figures; wall time beside it), the overhead ratio
replay/baseline, and where the simulator's time goes per operation.
Target: replay >= 10,000 events/s. Prints, never asserts (design.md §6).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DEMO = ROOT / "data" / "scenarios" / "demo.yaml"
TARGET = 10_000

PRODUCTS = {"prod_beans_ethiopia": 1800, "prod_beans_colombia": 1600, "prod_espresso_blend": 1500,
            "prod_mug": 1200, "prod_tote": 2500, "prod_filters": 600, "prod_grinder": 8900, "prod_kettle": 5400}
REGULARS = ["alice", "alice", "bob", "carol", "dave", "dave", "erin", "frank"]
MEMBERS = ["lmbr_alice", "lmbr_alice", "lmbr_bob", "lmbr_dave", "lmbr_dave", "lmbr_frank", "lmbr_carol"]
REWARDS = ["lrew_mug", "lrew_coupon", "lrew_coupon", "lrew_gift_25", "lrew_sticker", "lrew_beans_1kg"]
GIFT_CODES = ["GIFT-ALICE-50", "GIFT-BOB-25"]


def generate(count: int, seed: int) -> list[str]:
    """`count`+ JSON lines, mixed like a busy shop (no shadow simulator: the
    simulator's refusals, e.g. 423 for a member short of points, are outcomes
    of the replay like any other)."""
    rng = random.Random(seed)
    clock = _start()
    lines: list[dict[str, Any]] = []
    guests = 0
    day = 0

    def add(op: str, args: dict[str, Any]) -> None:
        lines.append({"at": _iso(clock), "op": op, "args": args})

    while len(lines) < count:
        clock += timedelta(seconds=rng.randint(5, 120))
        roll = rng.random()
        if roll < 0.62:  # an order
            if rng.random() < 0.2:
                guests += 1
                who = f"guest-{guests:05d}"
            else:
                who = rng.choice(REGULARS)
            items = [(p, rng.choice((1, 1, 2, 3))) for p in rng.sample(sorted(PRODUCTS), rng.choice((1, 1, 2, 3)))]
            amount = sum(PRODUCTS[p] * q for p, q in items)
            customer = {"source_id": who}
            if rng.random() < 0.12:
                add("validate", {"request": {"customer": customer, "order": {
                    "items": [{"product_id": p, "quantity": q} for p, q in items]}}})
            if who.startswith("guest") and rng.random() < 0.1:
                add("track_event", {"request": {"event": "first_order_placed", "customer": customer,
                                                "referral": {"code": rng.choice(("REF-ALICE", "REF-DAVE"))},
                                                "metadata": {"amount": amount}}})
            else:
                add("track_event", {"request": {"event": "order_placed", "customer": customer,
                                                "metadata": {"amount": amount,
                                                             "channel": rng.choice(("web", "app", "store"))}}})
        elif roll < 0.72:
            add("track_event", {"request": {"event": "review_written", "customer": {"source_id": rng.choice(REGULARS)},
                                            "metadata": {"rating": rng.randint(1, 5)}}})
        elif roll < 0.80:
            add("publish", {"request": {"campaign": {"id": "camp_newsletter"},
                                        "customer": {"source_id": rng.choice(REGULARS + [f"guest-{guests:05d}"])}},
                            "join_once": True})
        elif roll < 0.92:
            add("purchase_reward", {"program_id": "lprg_coffee_club", "member_id": rng.choice(MEMBERS),
                                    "request": {"reward_id": rng.choice(REWARDS)}})
        elif roll < 0.97:
            add("add_gift_balance", {"code": rng.choice(GIFT_CODES),
                                     "request": {"amount": rng.choice((500, 1000, 2500))}})
        else:
            clock += timedelta(minutes=rng.randint(1, 30))
            lines.append({"at": _iso(clock), "op": "advance", "args": {}})
        if clock.day != (_start() + timedelta(days=day)).day:
            day += 1
            if day == 3:
                add("delete_webhook", {"project_id": "proj_kestrel", "webhook_id": "wh_crm"})
            if day == 5:
                add("delete_reward", {"reward_id": "lrew_retired"})
    return [json.dumps(e, separators=(",", ":")) for e in lines]


def _start() -> Any:
    from promolab.sim.clock import parse_instant

    return parse_instant("2026-03-06T10:00:00Z")


def _iso(moment: Any) -> str:
    from promolab.sim.clock import format_instant

    return format_instant(moment)


def _clock() -> float:
    """CPU seconds of this process: the figure that matters on a shared
    machine, where wall time also counts other processes' work."""
    return time.process_time()


def _parse(lines: list[str]) -> list[dict[str, Any]]:
    from promolab.sim.clock import parse_instant

    entries = [json.loads(line) for line in lines]
    for entry in entries:
        entry["at"] = parse_instant(entry["at"])
    return entries


def apply_bare(sim: Any, entries: list[dict[str, Any]], per_op: dict[str, list[float]]) -> None:
    """The baseline: time step to `at`, then `sim.apply`; no checks, no
    timeline. Accumulates CPU seconds per operation (time steps as `advance`)."""
    from promolab.sim.errors import SimError

    clock = _clock
    for entry in entries:
        t0 = clock()
        at = entry["at"]
        if at > sim.now or entry["op"] == "advance":
            sim.advance(at - sim.now)
        t1 = clock()
        if entry["op"] != "advance":
            try:
                sim.apply(entry["op"], **entry["args"])
            except SimError:
                pass
        t2 = clock()
        per_op["advance"][0] += t1 - t0
        op = per_op[entry["op"]]
        op[0] += t2 - t1
        op[1] += 1


def interleaved(lines: list[str], chunk: int) -> dict[str, Any]:
    """Baseline and replay of the same sequence, each on its own simulator,
    advanced chunk by chunk in alternation (baseline first, then replay first,
    ...): both see the same machine conditions, so their ratio holds on a
    busy machine. The replay is one simulator replayed chunk after chunk."""
    from promolab import Simulator
    from promolab.replay import replay

    bare, replayed = Simulator.from_scenario(DEMO), Simulator.from_scenario(DEMO)
    entries = _parse(lines)
    per_op: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])  # type: ignore[arg-type]
    totals = {"baseline": 0.0, "replay": 0.0, "applied": 0, "refused": 0, "skipped": 0, "deliveries": 0}

    def run_baseline(i: int) -> None:
        start = _clock()
        apply_bare(bare, entries[i:i + chunk], per_op)
        totals["baseline"] += _clock() - start

    def run_replay(i: int) -> None:
        start = _clock()
        result = replay(replayed, lines[i:i + chunk])
        totals["replay"] += _clock() - start
        for key in ("applied", "refused", "skipped"):
            totals[key] += getattr(result, key)
        totals["deliveries"] += len(result.deliveries)

    wall = time.perf_counter()
    for k, i in enumerate(range(0, len(lines), chunk)):
        first, second = (run_baseline, run_replay) if k % 2 == 0 else (run_replay, run_baseline)
        first(i)
        second(i)
    totals["wall"] = time.perf_counter() - wall
    totals["per_op"] = per_op
    totals["same_state"] = bare.dump_json() == replayed.dump_json()
    return totals


def run_replay(lines: list[str], sim: Any = None) -> tuple[float, Any]:
    """CPU seconds and the result of one `replay(sim, lines)`."""
    from promolab import Simulator
    from promolab.replay import replay

    sim = sim if sim is not None else Simulator.from_scenario(DEMO)
    start = _clock()
    result = replay(sim, lines)
    return _clock() - start, result


def stubbed_simulator(lines: list[str]) -> Any:
    """A demo simulator whose operations return a canned answer (the first
    real answer per operation) and whose clock never moves: replaying on it
    measures the replay machinery alone (parse, check, dispatch, timeline,
    frames), independent of the simulator's speed."""
    from promolab import Simulator
    from promolab.sim.errors import SimError

    real = Simulator.from_scenario(DEMO)
    canned: dict[str, Any] = {}
    for line in lines:
        entry = json.loads(line)
        op = entry["op"]
        if op == "advance" or op in canned:
            continue
        try:
            canned[op] = real.apply(op, **entry["args"])
        except SimError:
            pass
    sim = Simulator.from_scenario(DEMO)
    sim.apply = lambda name, /, **args: canned.get(name)  # type: ignore[method-assign]
    sim.advance = lambda by: sim.now  # type: ignore[method-assign, assignment]
    return sim


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--chunk", type=int, default=1_000, help="lines per alternation of baseline and replay")
    args = parser.parse_args(argv)

    lines = generate(args.lines, args.seed)
    mix: dict[str, int] = defaultdict(int)
    for line in lines:
        mix[json.loads(line)["op"]] += 1
    n = len(lines)
    print(f"bench_replay: {n:,} lines on the demo scenario (seed {args.seed}); rates in CPU time of this process")
    print("  mix: " + ", ".join(f"{op} {count}" for op, count in sorted(mix.items(), key=lambda kv: -kv[1])))

    run_replay(lines[:300])  # warm-up: imports, compiled rules, pricing view (not timed)

    run = interleaved(lines, args.chunk)
    base_cpu, replay_cpu = run["baseline"], run["replay"]
    stub_cpu, _ = run_replay(lines, stubbed_simulator(lines))

    replay_rate = n / replay_cpu
    print(f"  baseline  sim.apply, no checks/timeline: {base_cpu:7.2f} s cpu  {n / base_cpu:9,.0f} events/s")
    print(f"  replay    parse+check+apply+timeline:    {replay_cpu:7.2f} s cpu  {replay_rate:9,.0f} events/s"
          f"   target {TARGET:,}: {'met' if replay_rate >= TARGET else 'NOT met'}")
    print(f"  overhead ratio replay/baseline: {replay_cpu / base_cpu:.3f}"
          f"   ({(replay_cpu - base_cpu) / n * 1e6:+.1f} us/line; alternated in chunks of {args.chunk:,},"
          f" {run['wall']:.0f} s wall; same final state: {'yes' if run['same_state'] else 'NO'})")
    print(f"  replay machinery alone (stubbed simulator, one call): {stub_cpu:6.2f} s cpu  {n / stub_cpu:9,.0f} lines/s"
          f"  ({stub_cpu / n * 1e6:.1f} us/line)   target {TARGET:,}: {'met' if n / stub_cpu >= TARGET else 'NOT met'}")
    print(f"  outcomes: {run['applied']:,} applied, {run['refused']:,} refused, {run['skipped']} skipped; "
          f"{run['deliveries']:,} webhook attempts")
    print("  simulator CPU time per operation (baseline):")
    for op, (secs, count) in sorted(run["per_op"].items(), key=lambda kv: -kv[1][0]):
        each = f"{secs / count * 1e6:9.1f} us each" if count else "      (time steps of every line)"
        print(f"    {op:<17} {secs:7.2f} s  {count:6} calls {each}  {100 * secs / base_cpu:5.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
