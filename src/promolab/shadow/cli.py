"""`promolab shadow`: a script against a real target and the simulator, or a
cassette re-diffed offline.

    promolab shadow --script data/events/demo_day.jsonl --target https://api.example.com \\
        --cassette run.jsonl [--allow-writes] [--report report.html] [--out differences.csv]
    promolab shadow --cassette run.jsonl [--scenario PATH] [--report report.html]

Credentials come from the environment only (`sides.ENVIRONMENT`). Exit
status: 0 no difference, 1 differences found (the report says where), 2 bad
input (one line on stderr, nothing sent), 3 the run stopped part way (the
cassette holds what was done: `--resume` goes on). `--report` and `--out`
are written together or not at all (`promolab.output_files`), and only when
the run completed (0 or 1: differences are the run's finding, not an
error); the cassette alone is written as the run goes, so that 3 can resume.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["run_shadow"]

_FRAME_SUFFIXES = (".csv", ".parquet")


def _fail(message: str) -> int:
    print(f"promolab shadow: {message}", file=sys.stderr)
    return 2


def run_shadow(args: argparse.Namespace) -> int:
    from functools import partial

    from ..output_files import Writer, write_all
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
    writers: dict[Path, Writer] = {}
    if args.report is not None:
        writers[args.report] = report.write_html
    if args.out is not None:
        writers[args.out] = partial(write_frame, report.differences)
    try:
        write_all(writers)  # both or neither
    except OSError as exc:
        return _fail(f"cannot write {exc.filename or 'the report'}: {exc.strerror or exc}")
    print(report.text())
    if run.cassette is not None:
        print(f"cassette: {run.cassette}")
    if args.report is not None:
        print(f"report: {args.report}")
    if args.out is not None:
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
