"""`promolab serve`: the simulator over real HTTP, with uvicorn."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

__all__ = ["build_served_simulator", "serve"]

log = logging.getLogger("promolab.serve")


def build_served_simulator(scenario: str | Path | None, *, seed: int | None = None, journal: str | Path | None = None) -> Any:
    """Load the scenario, then (with a journal) replay what the journal
    already holds before recording new writes to it: a restart after a crash
    comes back with every acknowledged operation."""
    from ..sim.simulator import Simulator

    sim = Simulator.from_scenario(scenario, seed=seed) if scenario else Simulator(seed=seed or 0)
    if journal is not None:
        path = Path(journal)
        if path.exists() and path.stat().st_size:
            from ..sim.journal import replay_journal

            replayed = replay_journal(sim, path)
            log.info("replayed %d journal lines from %s", replayed, path)
        sim.record_to(path, fsync=True)
    return sim


def serve(
    scenario: str | Path | None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    seed: int | None = None,
    journal: str | Path | None = None,
    rate_limit: int | None = None,
    timeout: float = 30.0,
    log_level: str = "info",
) -> None:
    import uvicorn

    from .app import App
    from .asgi import AsgiApp

    sim = build_served_simulator(scenario, seed=seed, journal=journal)
    limiter = None
    if rate_limit is not None:
        from .ratelimit import RateLimiter

        limiter = RateLimiter(rate_limit, 60)
    app = AsgiApp(App(sim, rate_limiter=limiter), timeout_seconds=timeout)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False)
