"""A script line as an HTTP call, derived from the operation catalogue.

A line names an operation (`promolab.sim.operations.BY_NAME`); its bound
`Endpoint` says the method, the path and which argument fills each path
parameter, which arguments travel in the query, whether `request` is the
body, and which credentials it needs. Whether the line writes is the
operation's own `write` flag. Nothing here lists operations: an operation
added to the catalogue joins shadow runs as it is.

Lines that are not calls of the service:
- `advance` moves the clock (the simulator's; the target's too when it is a
  simulator whose clock the run drives);
- an operation of the simulator's control API (`reset`, `restore`: the
  catalogue's control endpoints) is refused before the run: a real service
  has nothing to compare it with;
- an operation with no endpoint at all (a served journal's header line,
  which changes nothing) is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..client._requests import flatten_filters
from ..models.endpoints import Endpoint, endpoint_named
from ..replay import Event, EventFormatError, read_events
from ..replay.reader import ADVANCE, EventSource
from ..sim import BY_NAME
from .errors import ShadowInputError

__all__ = ["Call", "LineKind", "auth_needed", "call_for", "line_kind", "read_script", "write_lines"]

LineKind = Literal["call", "clock", "skip", "simulator_only"]


@dataclass(frozen=True, slots=True)
class Call:
    """One request of the service: its endpoint, the filled path, query and body."""

    endpoint: Endpoint[Any]
    path: str
    query: tuple[tuple[str, str], ...] = ()
    #: The JSON body (None: the request has none).
    body: Any = None

    def describe(self) -> dict[str, Any]:
        """The request as the cassette records it (no headers: they hold credentials)."""
        return {"method": self.endpoint.method, "path": self.path, "query": [list(q) for q in self.query],
                "body": self.body}


def line_kind(op: str) -> LineKind:
    """What a line of operation `op` is to a shadow run (see the module)."""
    if op == ADVANCE:
        return "clock"
    endpoint = BY_NAME[op].endpoint or _control_endpoint(op)
    if endpoint is None:
        return "skip"
    return "simulator_only" if endpoint.control else "call"


def _control_endpoint(op: str) -> Endpoint[Any] | None:
    """The control API's endpoint of that name (`reset`, `restore`), if any."""
    try:
        return endpoint_named(op)
    except KeyError:
        return None


def call_for(op: str, args: dict[str, Any]) -> Call:
    """The request of a `call` line, from its endpoint's declaration."""
    endpoint = BY_NAME[op].endpoint
    if endpoint is None:
        raise ValueError(f"{op} has no endpoint")
    path = endpoint.url_path(**{p.arg: str(args[p.arg]) for p in endpoint.path_params})
    query: list[tuple[str, str]] = []
    for param in endpoint.query:
        value = args.get(param.arg)
        if value is None:
            continue
        if param.type == "object" and isinstance(value, dict):
            query.extend(flatten_filters(value, param.name))
        elif isinstance(value, bool):
            query.append((param.name, "true" if value else "false"))
        else:
            query.append((param.name, str(value)))
    body = args.get(endpoint.body_arg) if endpoint.body_arg is not None else None
    return Call(endpoint, path, tuple(query), body)


def read_script(source: EventSource) -> list[Event]:
    """The script's lines, checked as a replay checks them (docs/replay.md),
    with lines only a simulator has refused. Raises `ShadowInputError`."""
    try:
        events = read_events(source)
    except EventFormatError as exc:
        raise ShadowInputError(f"script line {exc.line}: {exc.message}") from None
    except FileNotFoundError as exc:
        raise ShadowInputError(f"cannot read the script: {exc.filename}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ShadowInputError(f"cannot read the script: {exc}") from None
    own = [f"{e.line} ({e.op})" for e in events if line_kind(e.op) == "simulator_only"]
    if own:
        raise ShadowInputError(f"script lines {', '.join(own)} are the simulator's own control operations; "
                               "a real service has nothing to compare them with")
    return events


def write_lines(events: Iterable[Event]) -> list[tuple[int, str]]:
    """(line, operation) of every line that writes to the service."""
    return [(e.line, e.op) for e in events if line_kind(e.op) == "call" and BY_NAME[e.op].write]


def auth_needed(events: Iterable[Event]) -> set[str]:
    """The kinds of credentials (`Endpoint.auth`) the script's calls need."""
    kinds: set[str] = set()
    for event in events:
        endpoint = BY_NAME[event.op].endpoint if line_kind(event.op) == "call" else None
        if endpoint is not None:
            kinds.add(endpoint.auth)
    return kinds
