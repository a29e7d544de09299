"""`promolab replay`: an events file in, a timeline file out.

    promolab replay --scenario data/scenarios/demo.yaml --events data/events/demo_day.jsonl \\
        --out timeline.csv [--on-error stop|skip] [--no-progress]

Writes the timeline to `--out` (`.csv` or `.parquet`), and beside it the
balances (`<stem>.balances.<ext>`, wide: one column per card / gift voucher,
one row per line, 0 = opening) and the webhook delivery log
(`<stem>.deliveries.<ext>`). Prints a summary at the end. Exit status: 0 when
the replay ran to the end (refusals are outcomes, not failures), 1 when it
stopped at a line (the partial timeline is still written), 2 when the events
file cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["companion_path", "run_replay", "write_frame"]

_FORMATS = (".csv", ".parquet")


def companion_path(out: Path, name: str) -> Path:
    """`timeline.csv` -> `timeline.<name>.csv`."""
    return out.with_name(f"{out.stem}.{name}{out.suffix}")


def write_frame(frame: pd.DataFrame, path: Path, *, index: bool = False) -> None:
    """CSV (times in ISO 8601 UTC, NA as empty) or Parquet (dtypes kept)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".parquet":
        frame.to_parquet(path, index=index)
    else:
        frame.to_csv(path, index=index, date_format="%Y-%m-%dT%H:%M:%S.%fZ")


def run_replay(args: argparse.Namespace) -> int:
    from .. import Simulator
    from .runner import ReplayError, ReplayResult, replay

    out = Path(args.out)
    if out.suffix.lower() not in _FORMATS:
        print(f"promolab replay: --out must end in .csv or .parquet (got {out.name})", file=sys.stderr)
        return 2
    events = Path(args.events)
    if not events.is_file():
        print(f"promolab replay: events file not found: {events}", file=sys.stderr)
        return 2
    sim = Simulator.from_scenario(args.scenario)
    status = 0
    try:
        result: ReplayResult = replay(
            sim, events, on_error=args.on_error, progress=not getattr(args, "no_progress", False)
        )
    except ReplayError as exc:
        result = exc.result
        status = 1
        print(f"promolab replay: stopped at {events}:{exc.line}: {exc.key}: {exc.message}", file=sys.stderr)
    except UnicodeDecodeError as exc:
        print(f"promolab replay: {events} is not UTF-8 text ({exc.reason})", file=sys.stderr)
        return 2
    write_frame(result.timeline, out)
    balances_out = companion_path(out, "balances")
    write_frame(result.balance_table().reset_index(), balances_out)
    deliveries_out = companion_path(out, "deliveries")
    write_frame(result.deliveries, deliveries_out)
    print(f"replayed {events} on {args.scenario}")
    print(result.summary())
    print(f"timeline: {out}  ({len(result.timeline)} rows)")
    print(f"balances: {balances_out}  deliveries: {deliveries_out}  ({len(result.deliveries)} attempts)")
    return status
