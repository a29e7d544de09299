"""The control API under `/_sim/`: moto's `/moto-api/` for this simulator.

It lets a test suite that uses a served simulator reset it, move its clock,
read its whole state and take/restore snapshots, all over HTTP. It is guarded
by the management credentials (never the app ones): whoever can rewind the
clock can change any outcome.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..sim.errors import InvalidPayload, NotFound
from ..sim.inputs import parse
from .routes import Call

__all__ = ["AdvanceRequest", "advance", "clock", "coverage", "deliveries", "member", "reset", "restore", "snapshot", "state"]


class AdvanceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seconds: float = Field(ge=0, le=10 * 365 * 24 * 3600)


def state(call: Call) -> tuple[int, Any]:
    return 200, call.sim.dump()


def reset(call: Call) -> tuple[int, Any]:
    call.sim.reset()
    return 200, {"now": call.sim.clock.iso()}


def clock(call: Call) -> tuple[int, Any]:
    return 200, {"now": call.sim.clock.iso()}


def advance(call: Call) -> tuple[int, Any]:
    request = parse(AdvanceRequest, call.body)
    call.sim.advance(request.seconds)
    return 200, {"now": call.sim.clock.iso()}


def snapshot(call: Call) -> tuple[int, Any]:
    return 200, call.sim.snapshot(redact=True)


def restore(call: Call) -> tuple[int, Any]:
    if not isinstance(call.body, dict):
        raise InvalidPayload("Payload should be a snapshot object")
    try:
        call.sim.load_snapshot(call.body, keep_secrets=True)
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidPayload(f"Not a valid snapshot: {exc}") from None
    return 200, {"now": call.sim.clock.iso()}


def deliveries(call: Call) -> tuple[int, Any]:
    return 200, {"object": "list", "data": [d.model_dump(mode="json") for d in call.sim.state.webhook_deliveries]}


def member(call: Call) -> tuple[int, Any]:
    from ..sim.loyalty_view import member_view

    member_id = call.params["memberId"]
    if member_id not in call.sim.state.members:
        raise NotFound("member", member_id)
    return 200, member_view(call.sim, member_id)


def coverage(call: Call) -> tuple[int, Any]:
    from ..sim.operations import REGISTRY
    from .table import ROUTES

    rows = [
        {
            "method": r.method,
            "path": r.path,
            "operation": r.operation,
            "implemented": r.operation is None or r.operation in REGISTRY,
        }
        for r in ROUTES
        if not r.control
    ]
    return 200, {"object": "list", "data": rows}
