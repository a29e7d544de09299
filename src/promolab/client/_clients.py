"""`Client` and `AsyncClient`: the same operations, waited on differently.

Either talks to a simulator in-process (`transport=SimulatorTransport(sim)`,
or just `sim.client()`), to a served simulator, or to a real deployment: only
the base URL, credentials and transport change.

Retries: a request is sent again after a 429 (honouring Retry-After, capped),
a 502/503/504, or a connection that never opened; after a timeout only when
the operation is idempotent, since the service may already have done it.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Self

import httpx

from ._methods import ControlOperations, Operations
from ._requests import Credentials, Spec, decode

__all__ = ["DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "AsyncClient", "Client"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 2
_RETRY_STATUSES = frozenset({429, 502, 503, 504})
_MAX_WAIT = 30.0


class _Base(Operations):
    def __init__(
        self,
        base_url: str,
        *,
        app_id: str,
        app_token: str,
        access_token: str | None = None,
        management_base_url: str | None = None,
        management_id: str | None = None,
        management_token: str | None = None,
        transport: Any = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = 0.5,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.management_base_url = (management_base_url or base_url).rstrip("/")
        self._credentials = Credentials(app_id, app_token, access_token, management_id, management_token)
        self.retries = max(0, retries)
        self.backoff = backoff
        self._timeout = timeout
        self._transport = transport
        self.control = ControlOperations(self._call)

    def _request(self, spec: Spec) -> tuple[str, str, dict[str, str], tuple[tuple[str, str], ...], bytes | None]:
        base = self.management_base_url if spec.auth == "management" or spec.path.startswith("/_sim/") else self.base_url
        headers = self._credentials.headers(spec.auth)
        content = None
        if spec.json is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(spec.json, separators=(",", ":")).encode()
        # A tuple, not the list itself: httpx reads both alike, and a tuple is
        # covariant, so it matches httpx's QueryParamTypes.
        return spec.method, base + spec.path, headers, tuple(spec.params), content

    def _wait_before_retry(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before the next try, or None to stop."""
        if attempt >= self.retries:
            return None
        delay: float = self.backoff * (2**attempt)
        if response is not None:
            retry_after = response.headers.get("retry-after")
            if retry_after is not None:
                try:
                    delay = float(retry_after)
                except ValueError:
                    pass
        return min(delay, _MAX_WAIT)

    @staticmethod
    def _retryable_error(exc: httpx.TransportError, spec: Spec) -> bool:
        return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout) or (
            spec.idempotent and isinstance(exc, httpx.TimeoutException)
        )


class Client(_Base):
    """Synchronous client; use as a context manager or call `close()`."""

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.Client(transport=self._transport, timeout=self._timeout)

    def _call(self, spec: Spec, raw: bool = False) -> Any:
        method, url, headers, params, content = self._request(spec)
        attempt = 0
        while True:
            try:
                response = self._http.request(method, url, headers=headers, params=params or None, content=content)
            except httpx.TransportError as exc:
                wait = self._wait_before_retry(attempt, None) if self._retryable_error(exc, spec) else None
                if wait is None:
                    raise
            else:
                wait = self._wait_before_retry(attempt, response) if response.status_code in _RETRY_STATUSES else None
                if wait is None:
                    return response.json() if raw and response.status_code < 400 else decode(response, spec)
            time.sleep(wait)
            attempt += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Base):
    """Asynchronous client: every operation method returns an awaitable."""

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.AsyncClient(transport=self._transport, timeout=self._timeout)

    async def _call(self, spec: Spec, raw: bool = False) -> Any:
        method, url, headers, params, content = self._request(spec)
        attempt = 0
        while True:
            try:
                response = await self._http.request(method, url, headers=headers, params=params or None, content=content)
            except httpx.TransportError as exc:
                wait = self._wait_before_retry(attempt, None) if self._retryable_error(exc, spec) else None
                if wait is None:
                    raise
            else:
                wait = self._wait_before_retry(attempt, response) if response.status_code in _RETRY_STATUSES else None
                if wait is None:
                    return response.json() if raw and response.status_code < 400 else decode(response, spec)
            await asyncio.sleep(wait)
            attempt += 1

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
