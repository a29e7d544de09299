"""The HTTP face of the simulator: one framework-free core, three ways in.

- `SimulatorTransport` / `AsyncSimulatorTransport`: httpx, in-process;
- `asgi_app(sim)`: any ASGI server;
- `serve(...)`: uvicorn on a host and port (`promolab serve`).
"""

from .app import App
from .asgi import AsgiApp, asgi_app
from .messages import HttpRequest, HttpResponse
from .server import serve
from .table import ROUTES
from .transport import AsyncSimulatorTransport, SimulatorTransport

__all__ = [
    "ROUTES",
    "App",
    "AsgiApp",
    "AsyncSimulatorTransport",
    "HttpRequest",
    "HttpResponse",
    "SimulatorTransport",
    "asgi_app",
    "serve",
]
