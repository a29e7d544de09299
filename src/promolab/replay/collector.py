"""The cyclic garbage collector paused while a replay runs.

A replay grows the state by tens of thousands of records, and the
collector's automatic passes would walk all of it again and again; the
runner pauses them and collects the young generations itself, every
`COLLECT_EVERY` lines (see `collector_paused`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["COLLECT_EVERY", "collector_paused"]

#: Lines between two collections of the young generations during a replay
#: (see `collector_paused`).
COLLECT_EVERY = 1024


@contextmanager
def collector_paused() -> Iterator[Callable[[], None]]:
    """Pause the automatic cyclic garbage collector while a replay runs; the
    runner collects the young generations itself every `COLLECT_EVERY`
    lines (the yielded `collect`).

    A replay grows the state by tens of thousands of records, and the
    collector answers growth with full passes that walk every live object:
    the modules, pandas and the scenario, which the replay cannot have made
    garbage, and the records already added, which stay in the state. Such a
    pass costs a hundred milliseconds and more on a grown state, and young
    collections triggered every 700 allocations find next to nothing (an
    operation makes almost no reference cycles): together about 40% of a
    replay's time. With the automatic collector paused, the only passes are
    the runner's young ones, which walk what the last `COLLECT_EVERY` lines
    allocated (about 11,000 containers on a busy mix) and free any cycle
    among them; what survives waits in the oldest generation, and a cycle
    that becomes garbage there is collected after the replay.

    The only process-wide state this touches is the collector's on/off
    switch, put back however the replay ends. It freezes nothing: a
    `gc.freeze()` cannot be undone selectively, so unfreezing at the end
    would also thaw what the process froze itself (CPython 3.12 starts with
    objects frozen). Left alone (and `collect` does nothing) when the
    collector is already disabled.
    """
    if not gc.isenabled():
        yield _nothing
        return
    gc.disable()
    try:
        yield _collect_young
    finally:
        gc.enable()


def _collect_young() -> None:
    gc.collect(1)


def _nothing() -> None:
    return None
