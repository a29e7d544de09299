"""`promolab serve`: the simulator over real HTTP, with uvicorn (in its own
process, or in a thread of this one for a test suite: `serving_in_thread`)."""

from __future__ import annotations

import logging
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["ServeSettings", "build_served_simulator", "serve", "serving_in_thread"]

log = logging.getLogger("promolab.serve")


def build_served_simulator(
    scenario: str | Path | None,
    *,
    seed: int | None = None,
    journal: str | Path | None = None,
    report: Callable[[str, str], None] | None = None,
) -> Any:
    """Load the scenario, then (with a journal) replay what the journal
    already holds before recording new writes to it: a restart after a crash
    comes back with every acknowledged operation.

    `journal.resume_journal` does the journal's part: a damaged or
    incomplete last line is cut (reported), a journal for another scenario
    or seed, damage before the last line and a line that cannot be replayed
    raise `JournalError` (line and reason) before anything is changed, and
    so does a journal another server holds (its lock, `lock_journal`): the
    returned simulator holds the lock until `sim.record_to(None)`.
    `report(level, text)` receives what the operator should know (default:
    the `promolab.serve` log)."""
    from ..sim import Simulator

    sim = Simulator.from_scenario(scenario, seed=seed) if scenario else Simulator(seed=seed or 0)
    if journal is not None:
        from ..sim import resume_journal

        note = f"promolab serve --scenario {scenario}" if scenario else "promolab serve (empty project)"
        resumed = resume_journal(sim, journal, fsync=True, note=note)
        for level, text in resumed.messages():
            if report is not None:
                report(level, text)
            else:
                log.log(logging.WARNING if level == "warning" else logging.INFO, "%s", text)
    return sim


def _to_stderr(level: str, text: str) -> None:
    """Start-up notes of `promolab serve`, before uvicorn's logging exists:
    warnings always, the rest at `--log-level info` and below (the caller
    filters)."""
    print(f"promolab serve: {level}: {text}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class ServeSettings:
    """How `promolab serve` runs (its command-line options): where it listens,
    the simulator's seed and journal, the rate limit per minute, the request
    timeout in seconds, and uvicorn's log level and access log."""

    host: str = "127.0.0.1"
    port: int = 8000
    seed: int | None = None
    journal: str | Path | None = None
    rate_limit: int | None = None
    timeout: float = 30.0
    log_level: str = "info"
    access_log: bool = False


def serve(scenario: str | Path | None, settings: ServeSettings | None = None) -> None:
    """Serve the simulator of `scenario` over HTTP until interrupted."""
    import uvicorn

    from .app import App
    from .asgi import AsgiApp

    settings = settings if settings is not None else ServeSettings()
    seed, journal, rate_limit, log_level = settings.seed, settings.journal, settings.rate_limit, settings.log_level
    verbose = log_level.lower() in ("trace", "debug", "info")

    def report(level: str, text: str) -> None:
        if verbose or level == "warning":
            _to_stderr(level, text)

    sim = build_served_simulator(scenario, seed=seed, journal=journal, report=report)
    limiter = None
    if rate_limit is not None:
        from .ratelimit import RateLimiter

        limiter = RateLimiter(rate_limit, 60)
    app = AsgiApp(App(sim, rate_limiter=limiter), timeout_seconds=settings.timeout)
    try:
        uvicorn.run(app, host=settings.host, port=settings.port, log_level=log_level, access_log=settings.access_log)
    finally:
        if journal is not None:
            sim.record_to(None)  # closes the journal, releasing its lock (a killed process's goes with it)


#: How long `serving_in_thread` waits for uvicorn to start, and to stop.
_START_SECONDS = 10.0
_STOP_SECONDS = 10.0


@contextmanager
def serving_in_thread(sim: Simulator, *, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve `sim` with uvicorn in a daemon thread on a free port of `host`;
    yield the base URL, then stop the server and wait for its thread.

    What a test suite needs from a served simulator (its own port, the same
    process, so the test may also look at `sim` directly), written once: the
    pytest plugin's `promolab_server` and `Simulator.served()` use it. The
    listening socket is bound before uvicorn starts, so the port cannot be
    taken between choosing and binding it."""
    import uvicorn

    from .asgi import asgi_app

    listener = socket.create_server((host, 0))
    server = uvicorn.Server(uvicorn.Config(asgi_app(sim), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True,
                              name="promolab-served-simulator")
    thread.start()
    try:
        deadline = time.monotonic() + _START_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the served simulator did not start on {host} within {_START_SECONDS:g} s")
            time.sleep(0.005)
        port = listener.getsockname()[1]
        yield f"http://{host}:{port}" if ":" not in host else f"http://[{host}]:{port}"
    finally:
        server.should_exit = True
        thread.join(_STOP_SECONDS)
        listener.close()
