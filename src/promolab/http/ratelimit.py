"""Optional rate limiting with the real service's headers.

A fixed window of `limit` requests per `window` seconds per caller. The
caller is the identity the request's credentials proved (`auth.identity`:
the app, or the management caller), never a header value: headers are the
client's to choose, and keying on them let a client pick a fresh window per
request (a new `X-App-Id` on a management call) and grow the table by one
entry each time. Requests without an identity share one window. The table
is bounded as well (`MAX_CALLERS`), should the credentials change under a
running server (a restore). Every answer carries `X-Rate-Limit-Limit`,
`X-Rate-Limit-Remaining`, `X-Rate-Limit-Retry` (unix seconds when the window
resets) and `X-Rate-Limit-Type: api_calls`; a refused request gets 429 with
`Retry-After`. The limiter measures real time (a `now` callable, injectable
for tests), not the simulated clock: it exists so that client code can be
tested against real-time throttling, and the simulated clock only moves
when told.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..sim import SimError
from .error_bodies import error_response
from .messages import HttpRequest, HttpResponse

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["MAX_CALLERS", "RateLimiter"]

#: Windows kept at most; past it, expired windows are dropped, then the oldest.
MAX_CALLERS = 64
#: The one window of requests that carry no proved identity.
_NO_IDENTITY = "(no identity)"


class RateLimiter:
    def __init__(self, limit: int, window: float = 60.0, *, now: Callable[[], float] = time.time) -> None:
        if limit <= 0 or window <= 0:
            raise ValueError("limit and window must be positive")
        self.limit = limit
        self.window = window
        self._now = now
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}
        self._request_ids: Callable[[], str] | None = None

    def bind(self, request_ids: Callable[[], str]) -> None:
        self._request_ids = request_ids

    def __len__(self) -> int:
        """How many callers' windows are kept (at most `MAX_CALLERS`)."""
        return len(self._windows)

    def check(
        self, sim: Simulator, request: HttpRequest, *, caller: str | None = None
    ) -> tuple[HttpResponse | None, list[tuple[str, str]]]:
        """Count one request of `caller` (`auth.identity` of the route's
        credentials; None: the shared window of requests without one)."""
        key = _NO_IDENTITY if caller is None else caller
        now = self._now()
        with self._lock:
            windows = self._windows
            if key not in windows and len(windows) >= MAX_CALLERS:
                self._evict(now)
            start, used = windows.get(key, (now, 0))
            if now - start >= self.window:
                start, used = now, 0
            reset = start + self.window
            allowed = used < self.limit
            if allowed:
                used += 1
            windows[key] = (start, used)
        headers = [
            ("x-rate-limit-limit", str(self.limit)),
            ("x-rate-limit-remaining", str(max(0, self.limit - used))),
            ("x-rate-limit-retry", str(math.ceil(reset))),
            ("x-rate-limit-type", "api_calls"),
        ]
        if allowed:
            return None, headers
        retry_after = max(1, math.ceil(reset - now))
        headers.append(("retry-after", str(retry_after)))
        refusal = SimError(
            f"Rate limit of {self.limit} requests per {self.window:g} s reached; retry after {retry_after} s",
            key="too_many_requests", message="Too many requests hit the API too quickly.", status=429,
        )
        request_id = self._request_ids() if self._request_ids else "v-ratelimited"
        return error_response(refusal, request_id, headers), headers

    def _evict(self, now: float) -> None:
        """Make room for one window: drop the expired ones (they would restart
        anyway), else the oldest. Called with the lock held."""
        windows = self._windows
        for key in [k for k, (start, _) in windows.items() if now - start >= self.window]:
            del windows[key]
        while len(windows) >= MAX_CALLERS:
            del windows[next(iter(windows))]
