"""`promolab --help` and each subcommand's `--help`: how long a person waits (never asserts).

    .venv/bin/python benchmarks/bench_cli_help.py [--rounds 5]

Each figure is a fresh interpreter running `python -m promolab.cli [COMMAND] --help`
in a subprocess (start-up and imports included, output discarded): the best and
the median of `--rounds`. Beside them, measured in the same run: a bare
interpreter (`python -c pass`, the floor no change of ours can go under) and
`import promolab.analysis` (what a command that loads pandas and numpy costs),
and each help's ratio to both.

Target (issue "The first hour, round 2"): the help of every subcommand within
0.5 s; the imports that make the difference are checked, as behaviour, by
tests/test_cli.py (`--help` loads no pandas, numpy, pydantic, httpx or uvicorn).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from promolab.cli import subcommands

#: Every subcommand of `promolab`, read from its parser.
COMMANDS = subcommands()


def timed(argv: Sequence[str], rounds: int) -> tuple[float, float]:
    """Best and median wall time of `argv` in a subprocess, in seconds."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="runs of each command (default: 5)")
    rounds = parser.parse_args().rounds
    python = sys.executable
    floor = timed([python, "-c", "pass"], rounds)
    heavy = timed([python, "-c", "import promolab.analysis"], rounds)
    print(f"{'command':32} {'best':>8} {'median':>8} {'/ bare python':>14} {'/ import analysis':>18}")
    print(f"{'python -c pass':32} {floor[0]:8.3f} {floor[1]:8.3f}")
    print(f"{'python -c import promolab.analysis':32} {heavy[0]:8.3f} {heavy[1]:8.3f}")
    worst = 0.0
    for command in ("", *COMMANDS):
        argv = [python, "-m", "promolab.cli", *([command] if command else []), "--help"]
        best, median = timed(argv, rounds)
        worst = max(worst, median)
        name = f"promolab {command} --help".replace("  ", " ")
        print(f"{name:32} {best:8.3f} {median:8.3f} {median / floor[1]:13.1f}x {median / heavy[1]:17.2f}x")
    print(f"slowest median: {worst:.3f} s (target: every help within 0.5 s)")


if __name__ == "__main__":
    main()
