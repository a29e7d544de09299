"""`promolab` command line: serve, validate, sweep, replay.

    promolab serve --scenario data/scenarios/demo.yaml --port 8000 [--journal PATH]
    promolab validate --scenario PATH [--order ORDER.json] [--customer SOURCE_ID]
    promolab sweep --scenario PATH --orders ORDERS.csv --out RESULT.parquet
    promolab replay --scenario PATH --events EVENTS.jsonl --out TIMELINE.csv
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main"]

DEMO = Path(__file__).resolve().parents[2] / "data" / "scenarios" / "demo.yaml"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="promolab", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve a simulator over HTTP")
    serve.add_argument("--scenario", type=Path, default=None, help="scenario file (default: empty project)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--seed", type=int, default=None)
    serve.add_argument("--journal", type=Path, default=None, help="journal file: replayed at start, appended with fsync")
    serve.add_argument("--rate-limit", type=int, default=None, metavar="N", help="N requests per minute, like the real service")
    serve.add_argument("--timeout", type=float, default=30.0, help="seconds before a request is answered 504")
    serve.add_argument("--log-level", default="info")

    validate = sub.add_parser("validate", help="check a scenario; with --order, validate promotions for it")
    validate.add_argument("--scenario", type=Path, required=True)
    validate.add_argument("--order", type=Path, default=None, help="JSON file: an order, or a full validation request")
    validate.add_argument("--customer", default=None, help="customer source_id")

    sweep = sub.add_parser("sweep", help="evaluate many orders x tiers; CSV/Parquet out")
    sweep.add_argument("--scenario", type=Path, default=DEMO)
    sweep.add_argument("--orders", type=Path, required=True, help="line items: CSV or Parquet, one row per item")
    sweep.add_argument("--out", type=Path, required=True, help="result file (.csv or .parquet)")
    sweep.add_argument("--tiers", default=None, help="comma-separated tier ids (default: all)")
    sweep.add_argument("--engine", choices=["pandas", "dask"], default="pandas")
    sweep.add_argument("--no-progress", action="store_true")

    replay = sub.add_parser("replay", help="replay an event sequence (JSON Lines); timeline out")
    replay.add_argument("--scenario", type=Path, default=DEMO)
    replay.add_argument("--events", type=Path, required=True)
    replay.add_argument("--out", type=Path, required=True, help="timeline file (.csv or .parquet)")
    replay.add_argument("--on-error", choices=["stop", "skip"], default="stop")
    replay.add_argument("--no-progress", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .sim.scenario import ScenarioError

    try:
        if args.command == "serve":
            from .http.server import serve

            serve(args.scenario, host=args.host, port=args.port, seed=args.seed, journal=args.journal,
                  rate_limit=args.rate_limit, timeout=args.timeout, log_level=args.log_level)
            return 0
        if args.command == "validate":
            return _validate(args)
        if args.command == "sweep":
            from .analysis.cli import run_sweep

            return run_sweep(args)
        if args.command == "replay":
            from .replay.cli import run_replay

            return run_replay(args)
    except ScenarioError as exc:
        print(f"promolab: scenario refused: {exc}", file=sys.stderr)
        return 2
    return 1


def _validate(args: argparse.Namespace) -> int:
    from . import ApiError, Simulator

    sim = Simulator.from_scenario(args.scenario)
    st = sim.state
    print(f"{args.scenario}: OK: {len(st.products)} products, {len(st.customers)} customers, "
          f"{len(st.campaigns)} campaigns, {len(st.tiers)} tiers, {len(st.vouchers)} vouchers, "
          f"{len(st.programs)} programs, {len(st.rewards)} rewards, {len(st.incentives)} incentives")
    if args.order is None:
        return 0
    document = json.loads(args.order.read_text(encoding="utf-8"))
    request = document if "order" in document or "customer" in document else {"order": document}
    if args.customer:
        request["customer"] = {"source_id": args.customer}
    try:
        result = sim.validate_promotions(request)
    except ApiError as exc:  # pragma: no cover - sim raises SimError, kept for symmetry
        print(exc, file=sys.stderr)
        return 1
    from .sim.errors import SimError  # noqa: F401  (documented failure type)

    print(f"valid: {result.valid}  tracking_id: {result.tracking_id}")
    for tier in result.promotions:
        order = tier.order
        print(f"  {tier.id:28} {tier.name[:40]:40} discount {tier.discount_amount or 0:>8}  total {order.total_amount}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
