"""The control API under `/_sim/`: moto's `/moto-api/` for this simulator.

It lets a test suite that uses a served simulator reset it, move its clock,
read its whole state and take/restore snapshots, all over HTTP. It is guarded
by the management credentials (never the app ones): whoever can rewind the
clock can change any outcome.

Every call that changes the state (reset, clock advance, restore) goes
through the simulator's journaled paths, so a served simulator restarted
from its journal comes back to the state these calls answered from. Bodies
are read strictly: JSON numbers only where a number is asked (`true` or
`"5"` seconds are refused, not converted), no body where none is taken.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from ..models.endpoints import SIM_RESET
from ..sim import RESET, RESTORE, InvalidPayload, NotFound, TimeOutOfRange, parse
from .routes import Call

__all__ = ["AdvanceRequest", "advance", "clock", "deliveries", "member", "reset", "restore", "snapshot", "state", "why_not", "why_not_qualified"]


def _json_number(value: Any) -> Any:
    """Only a JSON number is a number of seconds: pydantic's lax float reads
    `true` as 1 and `"5"` as 5. A string that is no number at all is left to
    the float check, whose message says so."""
    if isinstance(value, bool):
        raise PydanticCustomError("float_type", "Input should be a valid number, not a boolean")
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return value
        raise PydanticCustomError("float_type", "Input should be a valid number, not a string")
    return value


class AdvanceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seconds: Annotated[float, BeforeValidator(_json_number)] = Field(ge=0, le=10 * 365 * 24 * 3600)


def state(call: Call) -> tuple[int, Any]:
    return 200, call.sim.dump()


def reset(call: Call) -> tuple[int, Any]:
    if call.body not in (None, {}):
        raise InvalidPayload(f"{SIM_RESET.method} {SIM_RESET.path} takes no body (or an empty object)")
    call.sim.apply(RESET)
    return 200, {"now": call.sim.clock.iso()}


def clock(call: Call) -> tuple[int, Any]:
    return 200, {"now": call.sim.clock.iso()}


def advance(call: Call) -> tuple[int, Any]:
    request = parse(AdvanceRequest, call.body)
    try:
        call.sim.advance(request.seconds)
    except TimeOutOfRange as exc:  # past the last instant: nothing moved, nothing ran
        raise InvalidPayload(str(exc)) from None
    return 200, {"now": call.sim.clock.iso()}


def snapshot(call: Call) -> tuple[int, Any]:
    return 200, call.sim.snapshot(redact=True)


def restore(call: Call) -> tuple[int, Any]:
    if not isinstance(call.body, dict):
        raise InvalidPayload("Payload should be a snapshot object")
    # The `restore` operation: checks the snapshot strictly (400, nothing
    # changed), installs it and journals it.
    call.sim.apply(RESTORE, snapshot=call.body, keep_secrets=True)
    return 200, {"now": call.sim.clock.iso()}


def deliveries(call: Call) -> tuple[int, Any]:
    return 200, {"object": "list", "data": [d.model_dump(mode="json") for d in call.sim.state.webhook_deliveries]}


def why_not(call: Call) -> tuple[int, Any]:
    """The body is a stacked validation request; nothing changes."""
    from ..sim import why_not as explain

    return 200, {"object": "list", "data": explain(call.sim, call.body)}


def why_not_qualified(call: Call) -> tuple[int, Any]:
    """The body is a qualifications request; nothing changes."""
    from ..sim import why_not_qualified as explain

    return 200, {"object": "list", "data": explain(call.sim, call.body)}


def member(call: Call) -> tuple[int, Any]:
    from ..sim import member_view

    member_id = call.params["memberId"]
    if member_id not in call.sim.state.members:
        raise NotFound("member", member_id)
    return 200, member_view(call.sim, member_id)
