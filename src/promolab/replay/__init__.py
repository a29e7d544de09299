"""Event replay: apply a sequence of operations on the simulated clock and
get a timeline DataFrame back (docs/replay.md).

    from promolab import Simulator
    from promolab.replay import replay

    sim = Simulator.from_scenario("data/scenarios/demo.yaml")
    result = replay(sim, "data/events/demo_day.jsonl")
    result.timeline            # one row per line: time, op, outcome, status, summary, counts
    result.balance_table()     # card and gift balances after every line
    result.deliveries          # webhook delivery attempts, with the line that made each

The format is the simulator's journal: record a session with `record(sim)`
(or `sim.record_to(...)`) and replay it on a fresh simulator to get the same
state back.
"""

from .reader import (
    ALIASES,
    FORMAT_KEYS,
    BadLine,
    Event,
    EventFormatError,
    check_events,
    iter_events,
    known_operations,
    read_events,
)
from .results import LineError, ReplayError, ReplayResult
from .runner import record, replay
from .timeline import BALANCE_COLUMNS, TIMELINE_COLUMNS

__all__ = [
    "ALIASES",
    "BALANCE_COLUMNS",
    "FORMAT_KEYS",
    "TIMELINE_COLUMNS",
    "BadLine",
    "Event",
    "EventFormatError",
    "LineError",
    "ReplayError",
    "ReplayResult",
    "check_events",
    "iter_events",
    "known_operations",
    "read_events",
    "record",
    "replay",
]
