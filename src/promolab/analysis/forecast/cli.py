"""`promolab forecast`: dated line items in, what budgets spend over time out.

    promolab forecast --orders data/orders/month_orders.parquet \\
        --scenario data/scenarios/march_budgets.yaml [--policy best | --send TIER,CODE] [--tiers a,b] \\
        [--redemption-rate 0.7] [--shipping-cost CENTS] [--seed N] [--freq day|week|month] \\
        [--draws N [--scheduler tcp://host:8786]] [--out RESULT.parquet] [--no-progress]

Input: CSV or Parquet line items with `placed_at` (read as `promolab sweep`
reads them). Printed: per campaign, redemptions, discount and orders held
back; per budget, when it ran out (the project's time zone), with money in
the scenario's currency. `--out FILE` (.csv, .parquet or .json) also writes
the per-order frame there and the periods, budgets and what each budget had
left per period beside it (`<stem>.periods<suffix>`, `<stem>.budgets<suffix>`,
`<stem>.budget_left<suffix>`). `--draws N` walks N draws of who redeems
(`forecast(..., draws=N, seed=--seed)`, on `--scheduler` when given), prints
per budget its P10-P90 band, and with `--out` also writes the bands per budget
and per tier (`<stem>.bands<suffix>`, `<stem>.tier_bands<suffix>`).

Exit codes: 0 done, 2 bad input (one line on stderr naming the row and
column at fault, or the option: `--draws` outside 1 to 10,000, `--seed`
outside 0 to 10**16 - 1; nothing written: the files are written to temporary
names and renamed only once all are complete).
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from .result import ForecastResult

__all__ = ["OUT_SUFFIXES", "run_forecast", "sibling_paths"]

OUT_SUFFIXES = (".csv", ".parquet", ".pq", ".json")


def sibling_paths(out: Path) -> dict[str, Path]:
    """Where `--out FILE` puts each frame: the orders at FILE, the others beside it."""
    return {"orders": out, "periods": out.with_name(f"{out.stem}.periods{out.suffix}"),
            "budgets": out.with_name(f"{out.stem}.budgets{out.suffix}"),
            "budget_left": out.with_name(f"{out.stem}.budget_left{out.suffix}"),
            "bands": out.with_name(f"{out.stem}.bands{out.suffix}"),
            "tier_bands": out.with_name(f"{out.stem}.tier_bands{out.suffix}")}


def _write(frame: pd.DataFrame, path: Path) -> None:
    """JSON: one array of records, timestamps as the wire writes them (UTC, `Z`).
    `path` may be a temporary name: `output_files` keeps the target's suffix."""
    from ..cli import write_frame

    if path.suffix.lower() == ".json":
        frame.to_json(path, orient="records", date_format="iso", force_ascii=False)
    else:
        write_frame(frame, path)


def _summary(result: ForecastResult, currency: str) -> str:
    """Per campaign and per budget, for people: the rows and headers the notebook's
    summary shows (`result_summary`), as text tables."""
    from ...display import text_table
    from .result_summary import (
        BUDGET_HEADER,
        CAMPAIGN_HEADER,
        budget_caption,
        budget_rows,
        campaign_rows,
    )

    lines = ["per campaign:"]
    rows = campaign_rows(result, currency)
    lines.append(text_table(list(CAMPAIGN_HEADER), rows) if rows else "  (none)")
    lines += ["", f"{budget_caption(result)}:"]
    budgets = budget_rows(result, currency)
    lines.append(text_table(list(BUDGET_HEADER), budgets, left=2) if budgets else "  (none)")
    return "\n".join(lines)


def _band_summary(result: ForecastResult, currency: str) -> str:
    """Per budget: the P10-P90 band of what it counted, and how often and when it ran out."""
    from ...display import format_count, format_money, text_table

    bands = result.bands
    assert bands is not None
    rows = []
    for row in bands.budgets.itertuples(index=False):
        fmt = format_count if row.measure == "count" else (lambda v: format_money(v, currency))
        when = "-" if pd.isna(row.ran_out_at_p50) else f"{row.ran_out_at_p50:%Y-%m-%d %H:%M}"
        rows.append([str(row.tier_id), str(row.rule), f"{fmt(row.spent_p10)} - {fmt(row.spent_p90)}",
                     f"{row.ran_out_share:.0%}", when])
    header = ["tier", "rule", "spent P10 - P90", "ran out", "ran out P50"]
    table = text_table(header, rows, left=2) if rows else "  (none)"
    return f"bands over {bands.draws:,} draws (seed {bands.seed}), per budget:\n{table}"


def _check_bands(args: argparse.Namespace) -> None:
    """--draws and --seed, before the scenario is loaded."""
    from .bands import MOST_DRAWS, MOST_SEED

    if args.draws is not None and not 1 <= args.draws <= MOST_DRAWS:
        raise ValueError(f"--draws must be from 1 to {MOST_DRAWS:,}, got {args.draws}")
    if not 0 <= args.seed <= MOST_SEED:
        raise ValueError(f"--seed must be from 0 to 10**16 - 1, got {args.seed}")
    if args.scheduler is not None and args.draws is None:
        raise ValueError("--scheduler runs the --draws on Dask: give --draws N")
    if args.draws is not None and args.send is not None:
        raise ValueError("--draws walks the best or the stack policy, not a fixed set: drop --send")
    if args.scheduler is not None and args.policy == "stack":
        raise ValueError("--draws with --policy stack price each order with this process's simulator: drop --scheduler")


def run_forecast(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from ...output_files import write_all
    from ...scenario_file import open_scenario
    from ..cli import _client, read_orders
    from .api import forecast
    from .costs import CostModel

    try:
        _check_bands(args)
        # what can be told before the scenario is loaded and the forecast runs
        if args.out is not None and args.out.suffix.lower() not in OUT_SUFFIXES:
            raise ValueError(f"{args.out}: output must be .csv, .parquet or .json")
        if args.out is not None and not args.out.parent.is_dir():
            raise ValueError(f"{args.out}: no such folder {args.out.parent}")
        if not args.orders.is_file():  # pyarrow's FileNotFoundError says the path only
            raise ValueError(f"{args.orders}: no such file")
        sim, currency = open_scenario(args.scenario)
        try:
            orders = read_orders(args.orders)
        except (ValueError, OSError) as exc:  # a parser's message may not say which file
            raise ValueError(str(exc) if str(args.orders) in str(exc) else f"{args.orders}: {exc}") from None
        tiers = _names(args.tiers) if args.tiers else None
        costs = CostModel(redemption_rate=args.redemption_rate, shipping_cost=args.shipping_cost, seed=args.seed)
        started = time.perf_counter()
        policy = _names(args.send) if args.send is not None else args.policy
        if args.draws is None:
            result = forecast(sim, orders, tiers=tiers, policy=policy, costs=costs, progress=not args.no_progress)
        else:
            with _client(args.scheduler) if args.scheduler else nullcontext() as client:
                result = forecast(sim, orders, tiers=tiers, policy=policy, costs=costs, progress=not args.no_progress,
                                  draws=args.draws, seed=args.seed, engine="dask" if client is not None else "pandas",
                                  client=client)
        elapsed = time.perf_counter() - started
        paths = sibling_paths(args.out) if args.out is not None else {}
        if result.bands is None:
            paths = {name: path for name, path in paths.items() if name not in ("bands", "tier_bands")}
        if paths:
            frames = {paths["orders"]: result.orders, paths["periods"]: result.periods(args.freq),
                      paths["budgets"]: result.budgets, paths["budget_left"]: result.budget_left(args.freq)}
            if result.bands is not None:
                frames.update({paths["bands"]: result.bands.budgets, paths["tier_bands"]: result.bands.tiers})
            write_all({path: partial(_write, frame) for path, frame in frames.items()})
    except (ValueError, OSError) as exc:
        print(f"promolab forecast: {exc}", file=sys.stderr)
        return 2
    _print_report(result, currency, args, elapsed, paths)
    return 0


def _names(listed: str) -> list[str]:
    """A comma-separated list of tier ids or codes, blanks dropped."""
    return [n.strip() for n in listed.split(",") if n.strip()]


def _print_report(result: ForecastResult, currency: str, args: argparse.Namespace, elapsed: float,
                  paths: dict[str, Path]) -> None:
    from ...display import format_count

    placed = result.orders["placed_at"]
    span = f", {placed.min():%Y-%m-%d %H:%M} to {placed.max():%Y-%m-%d %H:%M} {result.timezone}" if len(placed) else ""
    policy = f"sending {args.send}" if args.send is not None else f"policy {args.policy}"
    print(f"forecast of {format_count(len(result.orders))} orders{span}: {policy}, "
          f"{len(result.tier_ids)} candidate tiers, {elapsed:.2f} s")
    by_reason: dict[str, list[str]] = {}
    for tier_id, reason in result.excluded.items():
        by_reason.setdefault(reason, []).append(tier_id)
    for reason, tier_ids in by_reason.items():
        print(f"left out: {', '.join(tier_ids)} ({reason})")
    for name, path in paths.items():
        print(f"wrote {path} ({name.replace('_', ' ')}{f', per {args.freq}' if name in ('periods', 'budget_left') else ''})")
    print()
    print(_summary(result, currency))
    if result.bands is not None:
        print()
        print(_band_summary(result, currency))
