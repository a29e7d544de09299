"""httpx transports that hand requests to a simulator in-process (no sockets).

`Client(transport=SimulatorTransport(sim))` exercises the full HTTP face
(routing, auth, JSON, error bodies) exactly as a served simulator would,
minus the network; this is what `Simulator.client()` uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from .app import App
from .messages import HttpRequest, HttpResponse, fold_headers

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["AsyncSimulatorTransport", "SimulatorTransport"]


def _to_message(request: httpx.Request, body: bytes) -> HttpRequest:
    raw = request.url.raw_path
    path, _, query = raw.partition(b"?")
    # Repeated headers are folded as the served face folds them (asgi.py), so a
    # credential sent twice is refused in-process too, not silently the last one.
    headers, repeated = fold_headers((k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw)
    return HttpRequest(
        method=request.method,
        path=path.decode("ascii"),
        query_string=query.decode("ascii"),
        headers=headers,
        body=body,
        repeated=repeated,
    )


def _to_httpx(response: HttpResponse, request: httpx.Request) -> httpx.Response:
    return httpx.Response(response.status, headers=response.header_list(), content=response.body, request=request)


class SimulatorTransport(httpx.BaseTransport):
    def __init__(self, sim: Simulator | App) -> None:
        self.app = sim if isinstance(sim, App) else App(sim)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return _to_httpx(self.app.handle(_to_message(request, request.read())), request)


class AsyncSimulatorTransport(httpx.AsyncBaseTransport):
    """The async twin. The simulator itself is synchronous and fast, so the
    request is handled inline rather than in a thread."""

    def __init__(self, sim: Simulator | App) -> None:
        self.app = sim if isinstance(sim, App) else App(sim)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        return _to_httpx(self.app.handle(_to_message(request, body)), request)
