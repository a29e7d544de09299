"""Releasing a validation session's hold on a code (endpoint `RELEASE_SESSION`).

A LOCK session holds a use of each code its validation applied (and gift
credits); releasing it for one code gives them back to everyone else at
once. A session left holding nothing ends. Unknown code, or a session that
holds nothing of this code: 404.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...models import endpoints
from ..operation import bind
from ..publishing_lookups import voucher_by_code
from ..refusals import NotFound

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["release_session"]


def release_session(sim: Simulator, *, code: str, session_key: str) -> None:
    voucher = voucher_by_code(sim, code)
    sessions = sim.state.sessions
    session = sessions.get(session_key)
    if session is None or session.expires_at <= sim.now or all(h.voucher_id != voucher.id for h in session.holds):
        raise NotFound("session", session_key)
    session.holds = [h for h in session.holds if h.voucher_id != voucher.id]
    if not session.holds:
        del sessions[session_key]


RELEASE_SESSION = bind(endpoints.RELEASE_SESSION, release_session, write=True)
