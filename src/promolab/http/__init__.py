"""The HTTP face of the simulator: one framework-free core, three ways in.

- `SimulatorTransport` / `AsyncSimulatorTransport`: httpx, in-process;
- `asgi_app(sim)`: any ASGI server;
- `serve(...)`: uvicorn on a host and port (`promolab serve`);
  `serving_in_thread(sim)`: uvicorn in a thread on a free port, for tests.
"""

from .app import App
from .asgi import AsgiApp, asgi_app
from .messages import HttpRequest, HttpResponse
from .server import serve, serving_in_thread
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
    "serving_in_thread",
]
