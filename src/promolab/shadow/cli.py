"""`promolab shadow`: a script against a real target and the simulator, or a
cassette re-diffed offline.

    promolab shadow --script data/events/demo_day.jsonl --target https://api.example.com \\
        --cassette run.jsonl [--allow-writes] [--report report.html] [--out differences.csv]
    promolab shadow --cassette run.jsonl [--scenario PATH] [--report report.html]

Credentials come from the environment only (`sides.ENVIRONMENT`). Exit
status: 0 no difference, 1 differences found (the report says where), 2 bad
input (one line on stderr, nothing sent), 3 the run stopped part way (the
cassette holds what was done: `--resume` goes on).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run_shadow"]

_FRAME_SUFFIXES = (".csv", ".parquet")


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


def add_parser(sub: Any, formatter: type[argparse.HelpFormatter], scenario_default: Path, scenario_help: str) -> None:
    """The `shadow` subcommand's options (called by `promolab.cli`)."""
    shadow = sub.add_parser("shadow", help="run a script against a real target and the simulator; report where "
                                           "they differ (or re-diff a cassette offline)", formatter_class=formatter)
    shadow.add_argument("--script", type=Path, default=None,
                        help="operations, JSON Lines (docs/replay.md); without it, --cassette is re-diffed offline")
    shadow.add_argument("--target", default=None, metavar="URL",
                        help="the real service's base URL (default: $PROMOLAB_BASE_URL); credentials come from "
                             "PROMOLAB_APP_ID, PROMOLAB_APP_TOKEN, PROMOLAB_ACCESS_TOKEN, PROMOLAB_MANAGEMENT_ID, "
                             "PROMOLAB_MANAGEMENT_TOKEN only")
    shadow.add_argument("--scenario", type=Path, default=scenario_default, help=scenario_help)
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


def _fail(message: str) -> int:
    print(f"promolab shadow: {message}", file=sys.stderr)
    return 2


def run_shadow(args: argparse.Namespace) -> int:
    from ..replay.cli import write_frame
    from ..sim import ScenarioError
    from .errors import ShadowInputError, ShadowInterrupted
    from .masking import Masking

    if args.out is not None and args.out.suffix.lower() not in _FRAME_SUFFIXES:
        return _fail(f"--out must end in .csv or .parquet (got {args.out.name})")
    try:
        masking = Masking().overridden(args.mask, args.unmask)
        run = _online(args, masking) if args.script is not None else _offline(args, masking)
    except ShadowInterrupted as exc:
        print(f"promolab shadow: {exc}", file=sys.stderr)
        return 3
    except (ShadowInputError, ScenarioError, ValueError) as exc:
        return _fail(str(exc))
    report = run.report
    print(report.text())
    if run.cassette is not None:
        print(f"cassette: {run.cassette}")
    if args.report is not None:
        report.write_html(args.report)
        print(f"report: {args.report}")
    if args.out is not None:
        write_frame(report.differences, args.out)
        print(f"differences: {args.out}")
    return 1 if len(report) else 0


def _online(args: argparse.Namespace, masking: Any) -> Any:
    from .calls import auth_needed, read_script
    from .errors import ShadowInputError
    from .pacing import Pace
    from .runner import shadow
    from .sides import Target

    if args.resume and args.cassette is None:
        raise ShadowInputError("--resume needs the --cassette of the interrupted run")
    if args.cassette is not None and not args.resume and args.cassette.exists() and args.cassette.stat().st_size:
        raise ShadowInputError(f"{args.cassette} exists: --resume to go on with it, or name another cassette")
    events = read_script(args.script)
    target = Target.from_env(args.target, needs=auth_needed(events), drive_clock=args.target_is_simulator)
    calls, seconds = args.pace
    simulator = _served_simulator(args) if args.simulator else None
    return shadow(events, target=target, scenario=args.scenario, seed=args.seed, cassette=args.cassette,
                  resume=args.resume, allow_writes=args.allow_writes, masks=masking,
                  pace=Pace(calls, seconds, max_wait=args.max_wait), simulator=simulator,
                  progress=not args.no_progress)


def _offline(args: argparse.Namespace, masking: Any) -> Any:
    from .errors import ShadowInputError
    from .runner import rediff

    if args.cassette is None:
        raise ShadowInputError("give --script (and a target) to run, or --cassette to re-diff a recorded run")
    if args.resume or args.allow_writes:
        raise ShadowInputError("--resume and --allow-writes go with --script: a re-diff sends nothing")
    return rediff(args.cassette, scenario=args.scenario, seed=args.seed, masks=masking,
                  simulator=_served_simulator(args) if args.simulator else None, progress=not args.no_progress)


def _served_simulator(args: argparse.Namespace) -> Any:
    from ..sim import Simulator
    from .sides import keys_of, served_side

    return served_side(args.simulator, keys_of(Simulator.from_scenario(args.scenario)))
