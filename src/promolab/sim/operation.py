"""`Operation`: a function of the simulator, bound to the name it is known by.

An operation is what a journal or replay line names and what `Simulator.apply`
runs under the simulator's lock. Interface operations carry their wire
contract (`models.endpoints`); the few that exist only for the simulator
(`reset`, `restore`, the journal's header line) have none.

`Operation` is generic in the function's parameters and result, so
`sim.apply(GET_INCENTIVE, incentive_id="linc_1")` is checked by the type
checker like a call of the function itself, and returns what it returns.

`bind` puts the endpoint's request model in front of the function: the body
is checked before the function runs (`request_parsing.enter_body`), so no
operation looks anything up in, or because of, a body its model refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from pydantic import BaseModel

from ..models.rendered import Rendered
from .request_parsing import enter_body, leave_body

if TYPE_CHECKING:
    from ..models.endpoints import Endpoint
    from .simulator import Simulator

__all__ = ["Operation", "bind"]

P = ParamSpec("P")
R = TypeVar("R")
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True, eq=False)
class Operation(Generic[P, R]):
    name: str
    #: Takes the simulator and keyword arguments of JSON-shaped values
    #: (what a journal line stores).
    run: Callable[Concatenate[Simulator, P], R]
    #: Writes are journaled and wait for an advance in progress; reads are not.
    write: bool
    #: Its wire contract. `Any`: an operation's result is the endpoint's
    #: model or that model already rendered (`Rendered[model]`); `bind`
    #: checks which is which.
    endpoint: Endpoint[Any] | None = None


@overload
def bind(
    endpoint: Endpoint[M], run: Callable[Concatenate[Simulator, P], Rendered[M]], *, write: bool
) -> Operation[P, Rendered[M]]: ...
@overload
def bind(endpoint: Endpoint[R], run: Callable[Concatenate[Simulator, P], R], *, write: bool) -> Operation[P, R]: ...
def bind(endpoint: Endpoint[Any], run: Callable[Concatenate[Simulator, P], Any], *, write: bool) -> Operation[P, Any]:
    """The operation implementing `endpoint`, known by the endpoint's name.

    Generic in the endpoint's response type, so the type checker holds every
    operation to its endpoint where it is bound: the function returns the
    endpoint's model (`Endpoint[Incentive]`: an `Incentive`), or that model
    rendered to its wire JSON (`Rendered[ValidationResponse]`,
    models/rendered.py, for the answers served as the renderers write them).
    A function returning a plain dict, or another model, is refused.

    With a request model, the operation's body (its `request` argument; `{}`
    when left out of an optional body) is checked against the model before
    `run` is called: a bad body is 400 `invalid_payload` whatever the path,
    the state or the rest of the body would have led to."""
    model = endpoint.request
    if model is None:
        return Operation(endpoint.name, run, write, endpoint)
    optional = endpoint.optional_body

    @wraps(run)
    def checked(sim: Simulator, /, *args: P.args, **kwargs: P.kwargs) -> Any:
        if "request" not in kwargs and not optional:  # the call itself is wrong: `run` says how
            return run(sim, *args, **kwargs)
        body = kwargs.get("request")
        saved = enter_body(model, {} if body is None and optional else body)
        try:
            return run(sim, *args, **kwargs)
        finally:
            leave_body(saved)

    return Operation(endpoint.name, checked, write, endpoint)
