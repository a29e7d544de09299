"""Shadow runs: one script against a real deployment and the simulator, and
a report of where they drift, field by field (docs/shadow.md).

    from promolab.shadow import Target, shadow

    target = Target.from_env()            # PROMOLAB_BASE_URL, PROMOLAB_APP_ID, ... only
    run = shadow("data/events/demo_day.jsonl", target=target, scenario="data/scenarios/demo.yaml",
                 cassette="run.jsonl", allow_writes=True)
    run.report.differences                # one row per (line, operation, field path)
    run.report.summary()                  # counts by operation and field path
    rediff("run.jsonl")                   # the same report, from the cassette, offline
"""

from .calls import Call, auth_needed, call_for, line_kind, read_script, write_lines
from .cassette import FORMAT, MAX_DEPTH, Exchange, SideRecord, read_cassette
from .diff import KINDS, Difference
from .errors import CassetteError, RateLimited, ShadowInputError, ShadowInterrupted, WritesRefused
from .ids import IdMap
from .masking import DEFAULT_MASKS, Mask, Masking, parse_mask
from .pacing import SANDBOX, Pace, Pacer
from .report import DIFFERENCE_COLUMNS, ShadowReport
from .runner import ShadowOptions, ShadowRun, compare_exchange, rediff, shadow
from .sides import ENVIRONMENT, Side, Target, served_side, simulator_side

__all__ = [
    "DEFAULT_MASKS",
    "DIFFERENCE_COLUMNS",
    "ENVIRONMENT",
    "FORMAT",
    "KINDS",
    "MAX_DEPTH",
    "SANDBOX",
    "Call",
    "CassetteError",
    "Difference",
    "Exchange",
    "IdMap",
    "Mask",
    "Masking",
    "Pace",
    "Pacer",
    "RateLimited",
    "ShadowInputError",
    "ShadowInterrupted",
    "ShadowOptions",
    "ShadowReport",
    "ShadowRun",
    "Side",
    "SideRecord",
    "Target",
    "WritesRefused",
    "auth_needed",
    "call_for",
    "compare_exchange",
    "line_kind",
    "parse_mask",
    "read_cassette",
    "read_script",
    "rediff",
    "served_side",
    "shadow",
    "simulator_side",
    "write_lines",
]
