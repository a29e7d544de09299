"""Targets of the pull tests (tests/pull/): a simulator in-process, and hostile ones built on it.

`target_of(sim)` is a `Target` answering through the simulator's whole HTTP
face (no sockets). `Hostile` wraps that transport and replaces the answers of
one path with what a broken or malicious target would send, so a test names
only what is wrong and the rest of the project is read as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from promolab import Simulator
from promolab.http.transport import SimulatorTransport
from promolab.pull import pull
from promolab.shadow import Target
from promolab.shadow.sides import keys_of

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"

#: (request, the simulator's own answer) -> the answer the target sends instead.
Rewrite = Callable[[httpx.Request, Callable[[], httpx.Response]], httpx.Response]


def target_of(sim: Simulator, transport: httpx.BaseTransport | None = None) -> Target:
    return Target("http://promolab.local", keys_of(sim), transport=transport or SimulatorTransport(sim))


def pulled_back(original: Simulator, out: Path) -> Simulator:
    """`original` served, pulled to `out`, and the scenario written loaded: the round trip's other end."""
    pull(target_of(original), out)
    return Simulator.from_scenario(out)


class Hostile(httpx.BaseTransport):
    """The simulator's answers, except on `path`, where `rewrite` answers."""

    def __init__(self, sim: Simulator, path: str, rewrite: Rewrite) -> None:
        self.inner = SimulatorTransport(sim)
        self.path = path
        self.rewrite = rewrite
        self.calls = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if request.url.path != self.path:
            return self.inner.handle_request(request)

        def real() -> httpx.Response:
            response = self.inner.handle_request(request)
            response.read()
            return response

        return self.rewrite(request, real)
