"""Routes: endpoints (`models.endpoints`) bound to the handlers that answer them.

A `Route` is an `Endpoint` plus its handler; the router, the OpenAPI
document and the coverage report are all derived from the list of routes
(`http/table.py`), so the served contract cannot drift from the declared one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..models.endpoints import Endpoint
from .auth import AuthKind

__all__ = ["Call", "Match", "Route", "Router"]


@dataclass(slots=True)
class Call:
    """What a handler gets: the simulator, path params, query and JSON body."""

    sim: Any
    params: dict[str, str]
    query: list[tuple[str, str]]
    body: Any
    headers: dict[str, str]


Handler = Callable[[Call], tuple[int, Any]]


@dataclass(frozen=True, slots=True)
class Route:
    endpoint: Endpoint[Any]
    #: None: part of the interface, not implemented by this simulator (501).
    handler: Handler | None
    #: The credentials, as the auth checks read them.
    auth: AuthKind = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "auth", AuthKind(self.endpoint.auth))

    @property
    def method(self) -> str:
        return self.endpoint.method

    @property
    def path(self) -> str:
        return self.endpoint.path

    def regex(self) -> re.Pattern[str]:
        pattern = re.sub(r"\{(\w+)\}", lambda m: f"(?P<{m.group(1)}>[^/]+)", self.path)
        return re.compile(f"^{pattern}$")


@dataclass(frozen=True, slots=True)
class Match:
    route: Route | None
    params: dict[str, str]
    allowed: tuple[str, ...]


class Router:
    """Static paths by dict lookup, templated ones by one regex each.

    The hot path (GET an incentive) costs one dict miss and a handful of
    regex tries: cheap enough that the in-process client stays within 1.5x of
    a bare httpx round trip.
    """

    def __init__(self, routes: list[Route]) -> None:
        self.routes = routes
        self._static: dict[str, dict[str, Route]] = {}
        self._dynamic: list[tuple[re.Pattern[str], dict[str, Route]]] = []
        by_path: dict[str, dict[str, Route]] = {}
        for route in routes:
            by_path.setdefault(route.path, {})[route.method] = route
        for path, methods in by_path.items():
            if "{" in path:
                self._dynamic.append((methods[next(iter(methods))].regex(), methods))
            else:
                self._static[path] = methods

    def match(self, method: str, path: str) -> Match:
        methods = self._static.get(path)
        params: dict[str, str] = {}
        if methods is None:
            for regex, candidates in self._dynamic:
                found = regex.match(path)
                if found is not None:
                    methods, params = candidates, found.groupdict()
                    break
        if methods is None:
            return Match(None, {}, ())
        route = methods.get(method)
        if route is None and method == "HEAD":
            route = methods.get("GET")
        return Match(route, params, tuple(sorted(methods)))
