"""Work that falls due on the simulated clock (reward purchases, webhook retries).

A processor answers "when is your next job due?" and "run what is due now".
`Simulator.advance` walks the clock from due time to due time, so work is
done at the simulated instant it was scheduled for, in a deterministic order
(earliest first; ties broken by processor registration order).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["Processor", "PROCESSORS", "processor"]


class Processor(Protocol):
    name: str

    def next_due(self, sim: Simulator) -> datetime | None: ...

    def run_due(self, sim: Simulator, now: datetime) -> None: ...


#: Registered at import time by the modules that schedule work.
PROCESSORS: list[Processor] = []


def processor(p: Processor) -> Processor:
    PROCESSORS.append(p)
    return p
