"""ROUTES: every endpoint the HTTP face answers, derived from the declarations.

The service's endpoints (the interface's and those beyond it) are bound to
the simulator's operations of the same name (an endpoint no operation implements answers 501); the control API's to
the handlers in `control.py`.
"""

from __future__ import annotations

from typing import Any

from ..models import endpoints
from ..sim import BY_NAME
from . import control
from .handlers import operation_handler
from .routes import Call, Handler, Route

__all__ = ["ROUTES", "coverage"]


def coverage(call: Call) -> tuple[int, Any]:
    """`endpoints.SIM_COVERAGE`: which operations are implemented, the
    interface's and those beyond it."""
    rows = [
        {"method": e.method, "path": e.path, "operation": e.name, "implemented": e.name in BY_NAME}
        for e in endpoints.SERVICE
    ]
    return 200, {"object": "list", "data": rows}


_CONTROL: dict[str, Handler] = {
    endpoints.SIM_STATE.name: control.state,
    endpoints.SIM_RESET.name: control.reset,
    endpoints.SIM_CLOCK.name: control.clock,
    endpoints.SIM_ADVANCE.name: control.advance,
    endpoints.SIM_SNAPSHOT.name: control.snapshot,
    endpoints.SIM_RESTORE.name: control.restore,
    endpoints.SIM_DELIVERIES.name: control.deliveries,
    endpoints.SIM_MEMBER.name: control.member,
    endpoints.SIM_WHY_NOT.name: control.why_not,
    endpoints.SIM_WHY_NOT_QUALIFIED.name: control.why_not_qualified,
    endpoints.SIM_COVERAGE.name: coverage,
}


def _service_route(endpoint: endpoints.Endpoint[Any]) -> Route:
    op = BY_NAME.get(endpoint.name)
    return Route(endpoint, None if op is None else operation_handler(op))


ROUTES: list[Route] = [
    *(_service_route(e) for e in endpoints.SERVICE),
    *(Route(e, _CONTROL[e.name]) for e in endpoints.CONTROL),
]
