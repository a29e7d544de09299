"""`reset` and `restore` as operations, so that their journal lines are lines
of the replay format (`promolab replay` and a restarting server run them
through `apply` like any line).

They are `write=False` because `apply` must not journal them itself:
`Simulator.reset` and `load_snapshot` do (their line carries the clock
before the swap, and they wait until no webhook delivery is in flight), and
they are what these call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..operation import Operation
from ..refusals import InvalidPayload

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["RESET", "RESTORE"]


def reset(sim: Simulator) -> None:
    """Back to the state the simulator was created with (`endpoints.SIM_RESET`)."""
    sim.reset()


def restore(sim: Simulator, snapshot: dict[str, Any], keep_secrets: bool = False) -> None:
    """Restore a snapshot in place (`endpoints.SIM_RESTORE`); a bad snapshot is
    400 `invalid_payload`, nothing changed."""
    if not isinstance(snapshot, Mapping):
        raise InvalidPayload("Payload should be a snapshot object")
    try:
        sim.load_snapshot(snapshot, keep_secrets=keep_secrets)
    except ValueError as exc:
        raise InvalidPayload(f"Not a valid snapshot: {exc}") from None


RESET = Operation("reset", reset, write=False)
RESTORE = Operation("restore", restore, write=False)
