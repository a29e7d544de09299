"""The handler of an interface endpoint, derived from its declaration.

Handlers hold no business rules: the endpoint says which path and query
parameters carry which of the operation's arguments and which status a
success gets; the handler picks them out of the request, runs the operation
and answers. Arguments are passed in one order (path parameters, the body,
query parameters), which is the order a journal line records them in.
"""

from __future__ import annotations

from typing import Any

from ..models.endpoints import Param
from ..sim import Operation
from .query import query_bool, query_filters, query_string, query_strings
from .routes import Call, Handler

__all__ = ["operation_handler"]


def _query_value(call: Call, param: Param, listed: bool) -> Any:
    """`listed`: a GET's query, which the simulator checks itself (sim/listing.py),
    so its text is passed as sent; a boolean there is a filter, and an absent
    one filters nothing (None), where a flag of any other call is false."""
    if param.type == "boolean" and not listed:
        return query_bool(call.query, param.name)
    if param.type in ("string", "integer", "boolean"):  # a list's paging is checked by the simulator
        return query_string(call.query, param.name)
    if param.type == "array":
        return query_strings(call.query, param.name)
    if param.type == "object":  # a deep object: `filters`, a campaign list's `access_settings`
        return query_filters(call.query, param.name)
    raise NotImplementedError(f"query parameters of type {param.type} have no reader")


def operation_handler(op: Operation[..., Any]) -> Handler:
    """`Call -> (status, payload)` for the endpoint `op` is bound to."""
    endpoint = op.endpoint
    if endpoint is None:
        raise ValueError(f"operation {op.name} has no endpoint to serve")
    path_params = tuple((p.arg, p.name) for p in endpoint.path_params)
    body_arg = endpoint.body_arg
    optional_body = endpoint.optional_body
    query = endpoint.query
    status = endpoint.status
    listed = endpoint.method == "GET"
    no_content = status == 204

    def handle(call: Call) -> tuple[int, Any]:
        args: dict[str, Any] = {arg: call.params[name] for arg, name in path_params}
        if body_arg is not None:
            args[body_arg] = {} if call.body is None and optional_body else call.body
        for param in query:
            args[param.arg] = _query_value(call, param, listed)
        result = call.sim.apply(op, **args)
        return status, None if no_content else result

    handle.__name__ = handle.__qualname__ = op.name
    return handle
