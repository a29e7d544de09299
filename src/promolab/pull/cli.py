"""`promolab pull`: a project through its read endpoints, written as a scenario.

    promolab pull --target https://api.voucherify.io --out ours.yaml [--pace 100/3600] [--resume]
                  [--history 2026-03-01]

Credentials come from the environment only (`promolab.shadow.ENVIRONMENT`:
the app keys, and the management keys with `--project`). Exit status 0 with the scenario and its report written; 2
with one line on stderr and nothing written, for bad input and for a target
whose answers cannot be pulled (the pages read are kept: `--resume`).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime

__all__ = ["run_pull"]


def _fail(message: str) -> int:
    print(f"promolab pull: {message}", file=sys.stderr)
    return 2


def run_pull(args: argparse.Namespace) -> int:
    from ..shadow import Pace, ShadowInputError, Target
    from .errors import PullError
    from .project import UNPACED, PullOptions, history_paths, pull, report_path
    from .project_facts import ProjectFacts

    if args.out.suffix.lower() not in (".yaml", ".yml"):
        return _fail(f"--out must end in .yaml or .yml (got {args.out.name})")
    try:
        since = _since(args.history)
        facts = ProjectFacts(args.project, args.timezone, args.currency)
        target = Target.from_env(args.target, needs=("app", "management") if args.project else ("app",))
        pace = UNPACED if args.pace is None else Pace(*args.pace)
        options = PullOptions(pace=Pace(pace.calls, pace.per, max_wait=args.max_wait), resume=args.resume,
                              progress=not args.no_progress, history_since=since, project=facts)
        pulled = pull(target, args.out, options)
    except (PullError, ShadowInputError, ValueError) as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write {exc.filename or args.out}: {exc.strerror or exc}")
    print(f"pulled {pulled.objects:,} objects in {pulled.calls:,} calls; "
          f"{len(pulled.unexpressed):,} values the scenario cannot hold")
    print(f"scenario: {args.out}")
    print(f"report: {report_path(args.out)}")
    if pulled.history is not None:
        orders, redemptions = history_paths(args.out)
        print(f"history: {pulled.history.orders['order_id'].nunique():,} orders ({orders}), "
              f"{len(pulled.history.redemptions):,} redemptions ({redemptions})")
    return 0


def _since(text: str | None) -> datetime | None:
    """`--history`: a date (midnight UTC) or an instant with its offset; ValueError otherwise."""
    if text is None:
        return None
    from ..sim import parse_instant

    value = f"{text}T00:00:00Z" if len(text) == 10 else text
    try:
        return parse_instant(value)
    except ValueError:
        raise ValueError(f"--history: {text!r} is not a date (2026-03-01) or an instant with its offset "
                         "(2026-03-01T00:00:00Z)") from None
