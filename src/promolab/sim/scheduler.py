"""Work that falls due on the simulated clock (reward purchases, webhook retries).

A processor answers "when is your next job due?" and "run what is due now".
`Simulator.advance` walks the clock from due time to due time, so work is
done at the simulated instant it was scheduled for, in a deterministic order
(earliest first; ties broken by the order of `PROCESSORS`).

A processor whose work waits on the outside world (webhook POSTs) also
offers `claim_due`: it takes what is due under the simulator's lock and
returns `Outbound` work, which the simulator sends with the lock released
and then hands back to `finish` under the lock. Other clients are served
meanwhile; the processor keeps the recording in claim order.

Most clock moves (a replay stepping to its next line) find nothing due, so
`due_by` answers "may anything be due by then?" from per-state `Watch`es,
without asking every processor for its exact next due time: a processor
offers `watch(sim)`, an object that answers for it cheaply (see `Watch`).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from .loyalty.purchase_settlement import PURCHASES
from .state import State, derived
from .webhooks.delivery import DELIVERIES

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = [
    "PROCESSORS",
    "ClaimingProcessor",
    "Outbound",
    "Processor",
    "Watch",
    "after_writes",
    "claims",
    "due_by",
]


class Processor(Protocol):
    name: str

    def next_due(self, sim: Simulator) -> datetime | None: ...

    def run_due(self, sim: Simulator, now: datetime) -> None: ...


class Watch(Protocol):
    """Answers for one processor whether work may be due by an instant.

    Cheap and conservative: `due_by` may say True when nothing is due (the
    caller then asks `next_due`), never False when something is. A watch is
    derived from one state (`derived`): a new state gets new watches.
    """

    def due_by(self, sim: Simulator, target: datetime) -> bool: ...


class Watched(Protocol):
    """A processor with its own `Watch` (optional; others are asked `next_due`)."""

    def watch(self, sim: Simulator) -> Watch: ...


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


#: Every processor, listed once; work due at the same instant runs in this
#: order (webhook deliveries, then reward purchases).
PROCESSORS: tuple[Processor, ...] = (DELIVERIES, PURCHASES)
#: The processors flagged `after_writes`, in the same order.
_AFTER_WRITES: tuple[Processor, ...] = tuple(p for p in PROCESSORS if getattr(p, "after_writes", False))


def after_writes() -> tuple[Processor, ...]:
    """Processors whose due work must run right after every write (first
    webhook attempts), asked after each write: kept as a tuple, not filtered
    per write."""
    return _AFTER_WRITES


class _Asking:
    """The `Watch` of a processor without one of its own: asks `next_due`."""

    __slots__ = ("proc",)

    def __init__(self, proc: Processor) -> None:
        self.proc = proc

    def due_by(self, sim: Simulator, target: datetime) -> bool:
        when = self.proc.next_due(sim)
        return when is not None and when <= target


def _watch(sim: Simulator, proc: Processor) -> Watch:
    offer = getattr(proc, "watch", None)
    return _Asking(proc) if offer is None else cast(Watched, proc).watch(sim)


def _no_watches(state: State) -> list[Watch]:
    return []


def due_by(sim: Simulator, target: datetime) -> bool:
    """Whether some processor may have work due at or before `target`: False
    means that moving the clock to `target` runs nothing (`Simulator.advance`
    then only sets the clock); True, that the processors must be asked.

    The watches of the simulator's state are made on first use, in the
    order of `PROCESSORS`.
    """
    watches = derived(sim, "processing_watches", _no_watches)
    if not watches:
        watches[:] = [_watch(sim, proc) for proc in PROCESSORS]
    for watch in watches:
        if watch.due_by(sim, target):
            return True
    return False
