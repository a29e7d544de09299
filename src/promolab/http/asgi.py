"""The HTTP face as an ASGI application (what `promolab serve` runs).

Requests are handled in a worker thread: the simulator serialises operations
with its own lock, and a webhook delivery to a slow receiver must not stall
the event loop for other clients. A request that takes longer than
`timeout_seconds` is answered 504 `request_timeout`, like the real service's
load balancer; as there, the operation itself may still complete.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

import anyio

from .app import App
from .messages import HttpRequest, fold_headers

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["AsgiApp", "asgi_app"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class AsgiApp:
    def __init__(self, app: App, *, timeout_seconds: float | None = 30.0) -> None:
        self.app = app
        self.timeout_seconds = timeout_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        limit = self.app.sim.state.settings.max_body_bytes
        chunks: list[bytes] = []
        kept = 0
        more = True
        while more:
            message = await receive()
            chunk = message.get("body", b"")
            # Keep chunks until the limit is passed (so an oversized body still
            # reads as oversized and gets its 413), then drain without keeping.
            if kept <= limit:
                chunks.append(chunk)
                kept += len(chunk)
            more = message.get("more_body", False)
        # Repeated headers are folded, not collapsed to the last copy (messages.py).
        headers, repeated = fold_headers((k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", []))
        request = HttpRequest(
            method=scope["method"],
            path=scope.get("raw_path", scope["path"].encode()).decode("latin-1").split("?")[0],
            query_string=scope.get("query_string", b"").decode("latin-1"),
            headers=headers,
            body=b"".join(chunks),
            repeated=repeated,
        )
        response = None
        with anyio.move_on_after(self.timeout_seconds):
            response = await anyio.to_thread.run_sync(self.app.handle, request, abandon_on_cancel=True)
        if response is None:
            response = self.app.timeout_response(self.timeout_seconds or 0)
        await send({
            "type": "http.response.start",
            "status": response.status,
            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.header_list()],
        })
        await send({"type": "http.response.body", "body": response.body})


def asgi_app(sim: Simulator, **options: Any) -> AsgiApp:
    return AsgiApp(App(sim, **options))
