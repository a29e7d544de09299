"""Validation sessions (LOCK): a validation holds a use of each code it
applied and the gift credits it spent, so that other requests see them as
taken, until the session's redemption, its release, or its end.

- `held(sim, except_key)`: uses and credits held by the active sessions
  other than the request's own (a redemption with its session's key spends
  what its own session holds);
- `lock(...)`: a validation with `session: {type: LOCK}` (a key sent again
  replaces that session's holds, as the service says);
- `release(...)`: a redemption with the session's key releases the session;
  `DELETE …/vouchers/{code}/sessions/{key}` releases one code's hold.

Promotion tiers have no redemption limit and are not held (docs/decisions.md
§ Sessions). A session ends at `expires_at` on the simulated clock: it then
holds nothing, and the next write that touches sessions drops it.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import TYPE_CHECKING

from .clock import TimeOutOfRange, later
from .records.sessions import SessionHold, ValidationSession
from .refusals import InvalidPayload

if TYPE_CHECKING:
    from datetime import datetime

    from .. import models
    from .simulator import Simulator

__all__ = ["DEFAULT_TTL", "Held", "held", "lock", "prune", "release", "ttl_delta"]

#: Without ttl and ttl_unit a lock lasts 7 days (the service's default).
DEFAULT_TTL = (7, "DAYS")

_UNITS = {
    "DAYS": timedelta(days=1), "HOURS": timedelta(hours=1), "MINUTES": timedelta(minutes=1),
    "SECONDS": timedelta(seconds=1), "MILLISECONDS": timedelta(milliseconds=1),
    "MICROSECONDS": timedelta(microseconds=1),
}  # fmt: skip


def ttl_delta(ttl: int, unit: str) -> timedelta:
    """How long a session lasts (the clock counts microseconds: nanoseconds
    round down to them)."""
    if unit == "NANOSECONDS":
        return timedelta(microseconds=ttl // 1000)
    return _UNITS[unit] * ttl


class Held:
    """Uses and credits held by sessions, per voucher id."""

    __slots__ = ("credits", "uses")

    def __init__(self) -> None:
        self.uses: Counter[str] = Counter()
        self.credits: Counter[str] = Counter()


def held(sim: Simulator, except_key: str | None = None, at: datetime | None = None) -> Held:
    """What the sessions still open at `at` (default: now) hold; a forecast
    asks at each order's instant, when some sessions have ended."""
    out = Held()
    now = sim.now if at is None else at
    for session in sim.state.sessions.values():
        if session.key == except_key or session.expires_at <= now:
            continue
        for hold in session.holds:
            out.uses[hold.voucher_id] += 1
            out.credits[hold.voucher_id] += hold.credits
    return out


def prune(sim: Simulator, now: datetime) -> None:
    """Drop the sessions that have ended (a write's housekeeping)."""
    sessions = sim.state.sessions
    for key in [k for k, s in sessions.items() if s.expires_at <= now]:
        del sessions[key]


def lock(sim: Simulator, asked: models.SessionInput, holds: list[SessionHold]) -> ValidationSession:
    """Start (or replace) the session `asked` for, holding `holds`."""
    now = sim.now
    ttl, unit = (asked.ttl, asked.ttl_unit or "DAYS") if asked.ttl is not None else DEFAULT_TTL
    # The end first, before anything changes: a ttl the schema allows can
    # still end past the last instant a timestamp holds when the clock is late.
    try:
        expires_at = later(now, ttl_delta(ttl, unit), field="session.ttl")
    except TimeOutOfRange as exc:
        raise InvalidPayload(f"{exc}; send a shorter session.ttl or session.ttl_unit") from None
    prune(sim, now)
    key = asked.key or sim.ids.next("session", length=32)
    session = ValidationSession(key=key, created_at=now, expires_at=expires_at, ttl=ttl,
                                ttl_unit=unit, holds=holds)
    sim.state.sessions[key] = session
    return session


def release(sim: Simulator, key: str | None) -> None:
    """End the session `key` (its redemption was made); nothing if unknown."""
    if key is not None:
        sim.state.sessions.pop(key, None)
    prune(sim, sim.now)
