"""Optional rate limiting with the real service's headers.

A fixed window of `limit` requests per `window` seconds per caller (app id or
management id). Every answer carries `X-Rate-Limit-Limit`,
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

from ..sim.errors import SimError
from .errors import error_response
from .messages import HttpRequest, HttpResponse

if TYPE_CHECKING:
    from ..sim.simulator import Simulator

__all__ = ["RateLimiter"]


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

    def check(self, sim: Simulator, request: HttpRequest) -> tuple[HttpResponse | None, list[tuple[str, str]]]:
        caller = request.headers.get("x-app-id") or request.headers.get("x-management-id") or "anonymous"
        now = self._now()
        with self._lock:
            start, used = self._windows.get(caller, (now, 0))
            if now - start >= self.window:
                start, used = now, 0
            reset = start + self.window
            allowed = used < self.limit
            if allowed:
                used += 1
            self._windows[caller] = (start, used)
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
