"""Work that falls due on the simulated clock (reward purchases, webhook retries).

A processor answers "when is your next job due?" and "run what is due now".
`Simulator.advance` walks the clock from due time to due time, so work is
done at the simulated instant it was scheduled for, in a deterministic order
(earliest first; ties broken by processor registration order).

A processor whose work waits on the outside world (webhook POSTs) also
offers `claim_due`: it takes what is due under the simulator's lock and
returns `Outbound` work, which the simulator sends with the lock released
and then hands back to `finish` under the lock. Other clients are served
meanwhile; the processor keeps the recording in claim order.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["PROCESSORS", "ClaimingProcessor", "Outbound", "Processor", "after_writes", "claims", "processor"]


class Processor(Protocol):
    name: str

    def next_due(self, sim: Simulator) -> datetime | None: ...

    def run_due(self, sim: Simulator, now: datetime) -> None: ...


class Outbound(Protocol):
    """Claimed work whose slow part runs outside the simulator's lock."""

    @property
    def needs_network(self) -> bool: ...

    def send(self) -> None: ...


@runtime_checkable
class ClaimingProcessor(Protocol):
    """A processor that can split its work around the lock (see module doc)."""

    def claim_due(self, sim: Simulator, now: datetime) -> Outbound | None: ...

    def finish(self, sim: Simulator, work: Outbound) -> None: ...


_CLAIMS: dict[type, bool] = {}


def claims(proc: Processor) -> bool:
    """Whether `proc` is a ClaimingProcessor, answered once per class: an
    isinstance check against a runtime-checkable protocol inspects every
    member (several µs), and this is asked for every due step and write."""
    kind = type(proc)
    found = _CLAIMS.get(kind)
    if found is None:
        found = _CLAIMS[kind] = isinstance(proc, ClaimingProcessor)
    return found


#: Registered at import time by the modules that schedule work.
PROCESSORS: list[Processor] = []
#: The processors flagged `after_writes`, in registration order (rebuilt by `processor`).
_AFTER_WRITES: list[Processor] = []


def processor(p: Processor) -> Processor:
    PROCESSORS.append(p)
    _AFTER_WRITES[:] = [proc for proc in PROCESSORS if getattr(proc, "after_writes", False)]
    return p


def after_writes() -> list[Processor]:
    """Processors whose due work must run right after every write (first
    webhook attempts), asked after each write: kept as a list, not filtered
    per write."""
    return _AFTER_WRITES
