"""The queue of pending sendouts in due order, derived from the state.

`state.pending_deliveries` is a list in queue order; the processor asks
"when is the next sendout due?" after every write and at every clock step,
and a delivery takes the due ones earliest first. `DueOrder` answers both
from a heap instead of a scan of the queue (see the class).
"""

from __future__ import annotations

import bisect
import heapq
from datetime import datetime
from typing import TYPE_CHECKING

from ..records import PendingDelivery
from ..state import State, derived

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["DUE_ORDER", "DueOrder", "due_order"]

#: The `derived` key of the simulator's `DueOrder`.
DUE_ORDER = "webhook_due_order"


class DueOrder:
    """`state.pending_deliveries` ordered by due time, for the processor's
    `next_due` (asked after every write and at every clock step) and for
    `deliver_due`, without a scan of the queue per question.

    Derived, never stored. It follows one list object: sendouts are appended
    to the queue (`attempts.queue`, retries in `attempts.record_attempt`, or
    anyone else: new items are read from the end of the list) and leave it
    only through `take_due`;
    when the list is replaced (a configuration disabled or deleted drops its
    sendouts) or shrank behind its back, it is rebuilt. Each sendout gets a
    sequence number in queue order: heap entries are (next_attempt_at,
    sequence, sendout), so ties go to queue order, and the list, sorted by
    sequence, is searched by bisection to remove the sendout taken.
    """

    __slots__ = ("heap", "items", "seen", "seq", "seq_of", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self._rebuild()

    def _rebuild(self) -> None:
        self.items = self.state.pending_deliveries
        self.seen = 0
        self.heap: list[tuple[datetime, int, PendingDelivery]] = []
        self.seq = 0
        #: id(sendout) -> its sequence number, for as long as it is queued
        self.seq_of: dict[int, int] = {}
        self.sync()

    def sync(self) -> DueOrder:
        items = self.state.pending_deliveries
        if items is self.items and len(items) == self.seen:
            return self  # nothing new: the common case, asked after every write
        if items is not self.items or len(items) < self.seen:
            self._rebuild()
            return self
        for pending in items[self.seen:]:
            heapq.heappush(self.heap, (pending.next_attempt_at, self.seq, pending))
            self.seq_of[id(pending)] = self.seq
            self.seq += 1
        self.seen = len(items)
        return self

    def next_due(self) -> datetime | None:
        return self.heap[0][0] if self.heap else None

    def due_by(self, sim: Simulator, target: datetime) -> bool:
        """Whether a sendout is due at or before `target`: the processor's
        `processing.Watch` (exact, once in step with the queue)."""
        items = self.items
        if items is not self.state.pending_deliveries or len(items) != self.seen:
            self.sync()
        heap = self.heap
        return bool(heap) and heap[0][0] <= target

    def take_due(self, moment: datetime) -> PendingDelivery | None:
        """Remove the earliest sendout due at or before `moment` from the queue."""
        heap = self.heap
        if not heap or heap[0][0] > moment:
            return None
        _, seq, pending = heapq.heappop(heap)
        items, seq_of = self.items, self.seq_of
        i = bisect.bisect_left(items, seq, key=lambda p: seq_of.get(id(p), -1))
        if i == len(items) or items[i] is not pending:  # pragma: no cover - changed behind our back
            found = next((k for k, item in enumerate(items) if item is pending), None)
            if found is None:  # no longer queued: start over from the list
                self._rebuild()
                return self.take_due(moment)
            i = found
        del items[i]
        seq_of.pop(id(pending), None)
        self.seen -= 1
        return pending


def due_order(sim: Simulator) -> DueOrder:
    """The simulator's `DueOrder`, up to date."""
    return derived(sim, DUE_ORDER, DueOrder).sync()
