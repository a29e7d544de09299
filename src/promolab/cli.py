"""`promolab` command line: serve, validate, sweep, forecast, replay, shadow, pull, dashboard.

    promolab serve [--scenario PATH] --port 8000 [--journal PATH] [--access-log]
    promolab validate [--scenario PATH] [--order ORDER.json] [--customer SOURCE_ID] [--json]
    promolab sweep [--scenario PATH] --orders ORDERS.csv --out RESULT.parquet [--at TIME]
    promolab forecast [--scenario PATH] --orders ORDERS.parquet [--policy P | --send NAMES] [--out RESULT.parquet] [--freq week]
    promolab replay [--scenario PATH] --events EVENTS.jsonl --out TIMELINE.csv [--receiver NAME]
    promolab shadow --script EVENTS.jsonl --target URL --cassette RUN.jsonl [--allow-writes]
    promolab pull --target URL --out PROJECT.yaml [--pace CALLS/SECONDS] [--resume] [--project ID]
    promolab dashboard [--port 8866]

Every subcommand loads the packaged demo scenario unless --scenario names
another (an empty file is an empty project). Exit status 2 with one line on
stderr for bad input, never a traceback.

Output cut short by a closed pipe (`promolab validate ... | head -1`): no
traceback, no message, exit 141 (`EXIT_BROKEN_PIPE`, what a shell reports for
a command killed by SIGPIPE), not 1, which `promolab replay` uses for "stopped at a line".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .child_process import run_until_stopped
from .samples import demo_scenario, whatif_notebook
from .version import __version__

__all__ = ["EXIT_BROKEN_PIPE", "main", "subcommands"]

#: Default `--scenario` of every subcommand: the packaged demo, found wherever promolab
#: is installed (a path computed from this file pointed outside a wheel install).
DEMO = demo_scenario()


def _packaged_dashboard() -> Path | None:
    try:
        return whatif_notebook()
    except FileNotFoundError:  # reported by `promolab dashboard` alone, not by every command
        return None


#: The what-if dashboard (`promolab dashboard`): the notebook `promolab.samples`
#: names, packaged in the wheel (the repository's notebooks/06-what-if.ipynb in a
#: checkout). It reads its data through `promolab.samples`, from any directory.
DASHBOARD = _packaged_dashboard()
#: stdout a pipe whose reader went away: 128 + SIGPIPE (13); Python ignores the signal itself.
EXIT_BROKEN_PIPE = 141
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


#: What help says for the default `--scenario`: its name, not this machine's path (wrapped at hyphens).
DEMO_DEFAULT = "(default: the bundled demo scenario)"


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's "(default: ...)" after each help, except where there is no value
    to show (None, a flag's False): "(default: None)" would read as a setting;
    and where the help already says its default in words (`(default: 100/3600)`
    rather than argparse's `(default: (100, 3600.0))`): said once, not twice."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or "(default:" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def _port(text: str) -> int:
    """A TCP port, checked by argparse: a typo is a usage error (exit 2), not a traceback."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range 0-65535: {value}")
    return value


def _rate(text: str) -> float:
    """A share between 0 and 1, checked by argparse (exit 2, not a traceback)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a rate is between 0 and 1, got {text}")
    return value


def _cents(text: str) -> int:
    """Whole minor units >= 0 (cents), checked by argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of minor units: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


#: `forecast --policy` choices, spelled here so that `--help` and the parse import
#: no analysis layer (pandas, numpy); `analysis.forecast.POLICIES` is the rule and
#: tests/test_cli.py holds the two equal.
FORECAST_POLICIES = ("best", "stack")


def subcommands() -> tuple[str, ...]:
    """The subcommands of `promolab`, in the order `--help` lists them (what
    benchmarks/bench_cli_help.py times: read from the parser, never a copy)."""
    (action,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return tuple(action.choices)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="promolab", description=__doc__.split("\n\n")[0],
                                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    scenario_about = "scenario file, YAML or JSON (docs/scenarios.md); an empty file is an empty project"
    scenario_help = f"{scenario_about} {DEMO_DEFAULT}"

    serve = sub.add_parser("serve", help="serve a simulator over HTTP", formatter_class=_HelpFormatter)
    serve.add_argument("--scenario", type=Path, default=DEMO, help=scenario_help)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    serve.add_argument("--port", type=_port, default=8000, help="TCP port to listen on")
    serve.add_argument("--seed", type=int, default=None,
                       help="seed of generated ids (default: the scenario's seed, else 0)")
    serve.add_argument("--journal", type=Path, default=None, help="journal file: replayed at start, appended with fsync")
    serve.add_argument("--rate-limit", type=int, default=None, metavar="N", help="N requests per minute, like the real service")
    serve.add_argument("--timeout", type=float, default=30.0, help="seconds before a request is answered 504")
    serve.add_argument("--log-level", choices=LOG_LEVELS, default="info", help="uvicorn's log level")
    serve.add_argument("--access-log", action="store_true",
                       help="log one line per request (uvicorn's access log, at the info level)")

    validate = sub.add_parser("validate", help="check a scenario; with --order, validate promotions for it",
                              formatter_class=_HelpFormatter)
    validate.add_argument("--scenario", type=Path, default=DEMO, help=scenario_help)
    validate.add_argument("--order", type=Path, default=None,
                          help="JSON file: an order ({\"items\": [...]}) or a full validation request "
                               "(sample: data/orders/sample_order.json)")
    validate.add_argument("--customer", default=None, help="customer source_id (replaces the file's customer)")
    validate.add_argument("--json", action="store_true",
                          help="print one JSON object (counts, currency, the validation response; "
                               "amounts in minor units) instead of text")

    sweep = sub.add_parser("sweep", help="evaluate many orders x tiers; CSV/Parquet out",
                           formatter_class=_HelpFormatter)
    sweep.add_argument("--scenario", type=Path, default=DEMO, help=scenario_help)
    sweep.add_argument("--orders", type=Path, required=True, help="line items: CSV or Parquet, one row per item")
    sweep.add_argument("--out", type=Path, required=True, help="result file (.csv or .parquet)")
    sweep.add_argument("--tiers", default=None, help="comma-separated tier ids (default: all)")
    sweep.add_argument("--engine", choices=["pandas", "dask"], default=None,
                       help="pandas: one thread; dask: partitions by order (default: pandas, dask with --scheduler)")
    sweep.add_argument("--at", default=None, metavar="TIME",
                       help="pricing instant, ISO 8601 with Z or an offset (default: the scenario's clock)")
    sweep.add_argument("--customers", type=Path, default=None, metavar="FILE",
                       help="CSV or Parquet with order_id and customer_source_id: each order's customer "
                            "(default: the orders' customer_source_id column)")
    sweep.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="Dask distributed scheduler, e.g. tcp://10.0.0.5:8786 (workers need promolab "
                            "installed; docs/analysis.md)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    forecast = sub.add_parser("forecast", help="walk dated orders in time order, spending budgets; summary, "
                              "or CSV/Parquet/JSON out", formatter_class=_HelpFormatter)
    forecast.add_argument("--scenario", type=Path, default=DEMO,
                          help=f"{scenario_about} (one with budgets: data/scenarios/march_budgets.yaml) "
                               f"{DEMO_DEFAULT}")
    forecast.add_argument("--orders", type=Path, required=True,
                          help="line items with placed_at: CSV or Parquet, one row per item")
    picks = forecast.add_mutually_exclusive_group()
    picks.add_argument("--policy", choices=FORECAST_POLICIES, default="best", metavar="POLICY",
                       help="how each order picks the tier it redeems, one of %(choices)s (best: the largest discount)")
    picks.add_argument("--send", default=None, metavar="NAMES",
                       help="instead of a policy, a fixed set sent with every order: comma-separated tier ids "
                            "and codes (a code's stock and a gift card's balance are spent)")
    forecast.add_argument("--tiers", default=None, help="comma-separated candidate tier ids (default: all active)")
    forecast.add_argument("--redemption-rate", type=_rate, default=1.0, metavar="RATE",
                          help="share of qualifying orders that redeem, 0-1 (the same orders on every run: --seed)")
    forecast.add_argument("--shipping-cost", type=_cents, default=0, metavar="CENTS",
                          help="what a free-shipping redemption costs, in minor units")
    forecast.add_argument("--seed", type=int, default=0, help="key of which orders redeem under --redemption-rate")
    forecast.add_argument("--freq", choices=["day", "week", "month"], default="day",
                          help="the periods of <stem>.periods.<ext> and <stem>.budget_left.<ext> "
                               "(the project's time zone)")
    forecast.add_argument("--out", type=Path, default=None, metavar="FILE",
                          help="per-order frame to FILE (.csv, .parquet or .json), and beside it "
                               "<stem>.periods.<ext>, <stem>.budgets.<ext> and <stem>.budget_left.<ext>; "
                               "nothing is written on an error "
                               "(default: print the summary only)")
    forecast.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    replay = sub.add_parser("replay", help="replay an event sequence (JSON Lines); timeline out",
                            formatter_class=_HelpFormatter)
    replay.add_argument("--scenario", type=Path, default=DEMO, help=scenario_help)
    replay.add_argument("--events", type=Path, required=True,
                        help="event sequence, JSON Lines (docs/replay.md), e.g. data/events/demo_day.jsonl")
    replay.add_argument("--out", type=Path, required=True, help="timeline file (.csv or .parquet)")
    replay.add_argument("--on-error", choices=["stop", "skip"], default="stop",
                        help="at a malformed line: stop there (exit 1), or record it and go on")
    replay.add_argument("--receiver", action="append", default=[], metavar="NAME[=STATUS]",
                        help="answer the webhooks of the scenario's receiver NAME ('*': every receiver) "
                             "with STATUS (default 200) and write what they got to <out>.webhooks.jsonl; "
                             "repeatable")
    replay.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    _add_shadow_parser(sub, scenario_help)
    _add_pull_parser(sub)

    dashboard = sub.add_parser("dashboard", help="open the what-if dashboard (Voila)",
                               formatter_class=_HelpFormatter)
    dashboard.add_argument("--notebook", type=Path, default=DASHBOARD,
                           help="the notebook Voila serves (default: the bundled what-if notebook)")
    dashboard.add_argument("--host", default="127.0.0.1", help="address to listen on")
    dashboard.add_argument("--port", type=_port, default=8866, help="TCP port to listen on")
    dashboard.add_argument("--no-browser", action="store_true", help="do not open a browser; print the address")
    return parser


def _pace(text: str) -> tuple[int, float]:
    """`CALLS/SECONDS`, e.g. `100/3600` (the sandbox) or `5/1`."""
    calls, sep, seconds = text.partition("/")
    try:
        value = (int(calls), float(seconds if sep else "1"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a pace is CALLS/SECONDS, e.g. 100/3600 (got {text!r})") from None
    if value[0] <= 0 or value[1] < 0:
        raise argparse.ArgumentTypeError(f"a pace needs CALLS > 0 and SECONDS >= 0 (got {text!r})")
    return value


def _add_shadow_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser], scenario_help: str) -> None:
    """The `shadow` subcommand's options. Here, not in `promolab.shadow`: importing any
    module of that package loads the whole of it (the simulator, pandas), which
    `promolab --help` should not wait for; `shadow.cli.run_shadow` runs the command."""
    shadow = sub.add_parser("shadow", help="run a script against a real target and the simulator; report where "
                                           "they differ (or re-diff a cassette offline)", formatter_class=_HelpFormatter)
    shadow.add_argument("--script", type=Path, default=None,
                        help="operations, JSON Lines (docs/replay.md); without it, --cassette is re-diffed offline")
    shadow.add_argument("--target", default=None, metavar="URL",
                        help="the real service's base URL (default: $PROMOLAB_BASE_URL); credentials come from "
                             "PROMOLAB_APP_ID, PROMOLAB_APP_TOKEN, PROMOLAB_ACCESS_TOKEN, PROMOLAB_MANAGEMENT_ID, "
                             "PROMOLAB_MANAGEMENT_TOKEN only")
    shadow.add_argument("--scenario", type=Path, default=DEMO, help=scenario_help)
    shadow.add_argument("--seed", type=int, default=None, help="seed of the simulator's ids (default: the scenario's)")
    shadow.add_argument("--cassette", type=Path, default=None, help="the run's cassette (JSON Lines), written as it goes")
    shadow.add_argument("--resume", action="store_true", help="go on with an interrupted run from its --cassette")
    shadow.add_argument("--allow-writes", action="store_true", help="send the script's write operations to the target")
    shadow.add_argument("--target-is-simulator", action="store_true",
                        help="the target is a promolab simulator: move its clock with the script (/_sim/)")
    shadow.add_argument("--simulator", default=None, metavar="URL",
                        help="a served simulator of --scenario as the simulator side (default: in-process)")
    shadow.add_argument("--pace", type=_pace, default=(100, 3600.0), metavar="CALLS/SECONDS",
                        help="at most CALLS requests to the target per SECONDS, evenly spaced (default: 100/3600)")
    shadow.add_argument("--max-wait", type=float, default=3600.0,
                        help="the longest wait for a rate limit before stopping (resume later)")
    shadow.add_argument("--mask", action="append", default=[], metavar="[OP:]PATH",
                        help="also mask this field path (docs/shadow.md); repeatable")
    shadow.add_argument("--unmask", action="append", default=[], metavar="[OP:]PATH",
                        help="drop this row of the default masking table; repeatable")
    shadow.add_argument("--report", type=Path, default=None, help="write the HTML report here")
    shadow.add_argument("--out", type=Path, default=None, help="write the differences here (.csv or .parquet)")
    shadow.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _add_pull_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `pull` subcommand's options (here for the reason `_add_shadow_parser` gives)."""
    pull = sub.add_parser("pull", help="read a project through its read endpoints; write it as a scenario",
                          formatter_class=_HelpFormatter)
    pull.add_argument("--target", default=None, metavar="URL", help="the project's base URL (default: "
                      "$PROMOLAB_BASE_URL); keys from PROMOLAB_APP_ID and PROMOLAB_APP_TOKEN only")
    pull.add_argument("--out", type=Path, required=True, metavar="FILE",
                      help="the scenario (YAML); beside it <stem>.report.csv, what it cannot hold")
    pull.add_argument("--pace", type=_pace, default=None, metavar="CALLS/SECONDS", help="at most CALLS requests "
                      "per SECONDS, evenly spaced (default: as fast as the target's rate-limit headers allow)")
    pull.add_argument("--max-wait", type=float, default=3600.0, help="the longest wait for a rate limit")
    pull.add_argument("--resume", action="store_true", help="go on with an interrupted pull of the same --out")
    pull.add_argument("--project", default=None, metavar="ID", help="the project's id: its stacking rules are read "
                      "(PROMOLAB_MANAGEMENT_ID/_TOKEN) and the scenario's project takes the id")
    pull.add_argument("--timezone", default=None, help="the project's time zone (budget periods; not readable)")
    pull.add_argument("--currency", default=None, help="the project's currency (ISO 4217; not readable)")
    pull.add_argument("--history", default=None, metavar="SINCE", help="also the orders and redemptions since "
                      "SINCE (2026-03-01 or an instant with its offset), to <stem>.orders/.redemptions.parquet")
    pull.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status. A closed stdout pipe ends it
    quietly with EXIT_BROKEN_PIPE (Python docs, "Note on SIGPIPE"): stdout is
    flushed here, inside the handler, so the error cannot surface later at exit."""
    try:
        try:
            return _run(argv)
        finally:  # also after argparse's --help/--version, which exit by SystemExit
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at devnull so that flush
        # of what is still buffered cannot fail (and print a second error).
        try:
            stdout = sys.stdout.fileno()
        except (AttributeError, OSError, ValueError):  # not a file (an in-process caller's stream)
            return EXIT_BROKEN_PIPE
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout)
        os.close(devnull)
        return EXIT_BROKEN_PIPE


def _run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    from .sim import JournalError, ScenarioError

    try:
        if args.command == "serve":
            from .http.server import ServeSettings, serve

            serve(args.scenario, ServeSettings(host=args.host, port=args.port, seed=args.seed, journal=args.journal,
                                               rate_limit=args.rate_limit, timeout=args.timeout,
                                               log_level=args.log_level, access_log=args.access_log))
            return 0
        if args.command == "validate":
            return _validate(args)
        if args.command == "sweep":
            from .analysis.cli import run_sweep

            return run_sweep(args)
        if args.command == "forecast":
            from .analysis.forecast.cli import run_forecast

            return run_forecast(args)
        if args.command == "replay":
            from .replay.cli import run_replay

            return run_replay(args)
        if args.command == "shadow":
            from .shadow.cli import run_shadow

            return run_shadow(args)
        if args.command == "pull":
            from .pull.cli import run_pull

            return run_pull(args)
        if args.command == "dashboard":
            return _dashboard(args)
    except ScenarioError as exc:
        print(f"promolab: scenario refused: {exc}", file=sys.stderr)
        return 2
    except JournalError as exc:  # serve: a journal it must not start from; nothing was changed
        print(f"promolab: journal refused: {exc}", file=sys.stderr)
        return 2
    return 1


def _order_request(path: Path, customer: str | None) -> dict[str, object]:
    """The validation request of `validate --order`: the file holds an order or a
    whole request; `--customer` replaces its customer. Raises OSError, UnicodeDecodeError,
    JSONDecodeError, or TypeError (JSON, but not an object): all bad input."""
    document = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(document, dict):
        raise TypeError(f"{path}: expected a JSON object (an order or a validation request), "
                        f"not {type(document).__name__}")
    request = document if "order" in document or "customer" in document else {"order": document}
    if customer:
        request["customer"] = {"source_id": customer}
    return request


def _validate(args: argparse.Namespace) -> int:
    from .display import format_money, text_table
    from .scenario_file import open_scenario
    from .sim import VALIDATE, SimError

    sim, currency = open_scenario(args.scenario)
    st = sim.state
    counts = {"products": len(st.products), "customers": len(st.customers), "campaigns": len(st.campaigns),
              "tiers": len(st.tiers), "vouchers": len(st.vouchers), "programs": len(st.programs),
              "rewards": len(st.rewards), "incentives": len(st.incentives)}
    result = None
    if args.order is not None:
        try:
            request = _order_request(args.order, args.customer)
        except OSError as exc:
            print(f"promolab validate: cannot read {args.order}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        except json.JSONDecodeError as exc:
            print(f"promolab validate: {args.order} is not JSON: {exc}", file=sys.stderr)
            return 2
        except UnicodeDecodeError as exc:
            print(f"promolab validate: {args.order} is not UTF-8 text ({exc.reason})", file=sys.stderr)
            return 2
        except TypeError as exc:
            print(f"promolab validate: {exc}", file=sys.stderr)
            return 2
        try:
            result = sim.apply(VALIDATE, request=request).model()
        except SimError as exc:  # the request itself is refused (unknown product without price, ...)
            print(f"promolab validate: {args.order}: refused {exc.status} {exc.key}: {exc.details}",
                  file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps({"scenario": str(args.scenario), "currency": currency, "counts": counts,
                          "validation": None if result is None else result.model_dump(mode="json")},
                         ensure_ascii=False))
        return 0
    print(f"{args.scenario}: OK: " + ", ".join(f"{n} {name}" for name, n in counts.items()))
    if result is None:
        return 0
    print(f"valid: {result.valid}  tracking_id: {result.tracking_id}")
    rows = [[tier.id, tier.name, format_money(tier.discount_amount, currency),
             format_money(tier.order.total_amount, currency)] for tier in result.promotions]
    if rows:
        print(text_table(["tier", "name", "discount", "total"], rows, left=2))
    return 0


def _dashboard(args: argparse.Namespace) -> int:
    """Voila on the what-if notebook, in the notebook's folder (where a notebook
    passed with --notebook finds files beside it); returns Voila's exit status.
    Voila comes with the `lab` extra."""
    import importlib.util

    if args.notebook is None:
        print("promolab dashboard: the packaged what-if notebook is missing (promolab._notebooks; "
              "a wheel built without pyproject.toml's notebook rewrite?): pass --notebook PATH",
              file=sys.stderr)
        return 2
    notebook = Path(args.notebook)
    if not notebook.is_file():
        print(f"promolab dashboard: notebook not found: {notebook}", file=sys.stderr)
        return 2
    if importlib.util.find_spec("voila") is None:
        print("promolab dashboard: Voila is not installed: pip install 'promolab[lab]'", file=sys.stderr)
        return 2
    command = [sys.executable, "-m", "voila", str(notebook.resolve()), f"--port={args.port}",
               f"--Voila.ip={args.host}"]
    if args.no_browser:
        command.append("--no-browser")
    print(f"promolab dashboard: serving {notebook} at http://{args.host}:{args.port}/ (Ctrl-C stops it)",
          file=sys.stderr)
    return run_until_stopped(command, notebook.resolve().parent)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
