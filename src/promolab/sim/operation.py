"""`Operation`: a function of the simulator, bound to the name it is known by.

An operation is what a journal or replay line names and what `Simulator.apply`
runs under the simulator's lock. Interface operations carry their wire
contract (`models.endpoints`); the few that exist only for the simulator
(`reset`, `restore`, the journal's header line) have none.

`Operation` is generic in the function's parameters and result, so
`sim.apply(GET_INCENTIVE, incentive_id="linc_1")` is checked by the type
checker like a call of the function itself, and returns what it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar

if TYPE_CHECKING:
    from ..models.endpoints import Endpoint
    from .simulator import Simulator

__all__ = ["Operation", "bind"]

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True, slots=True, eq=False)
class Operation(Generic[P, R]):
    name: str
    #: Takes the simulator and keyword arguments of JSON-shaped values
    #: (what a journal line stores).
    run: Callable[Concatenate[Simulator, P], R]
    #: Writes are journaled and wait for an advance in progress; reads are not.
    write: bool
    endpoint: Endpoint[Any] | None = None


def bind(endpoint: Endpoint[Any], run: Callable[Concatenate[Simulator, P], R], *, write: bool) -> Operation[P, R]:
    """The operation implementing `endpoint`, known by the endpoint's name."""
    return Operation(endpoint.name, run, write, endpoint)
