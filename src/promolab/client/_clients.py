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
from typing import Any, Self, TypeVar

import httpx

from ._methods import AsyncSender, ControlOperations, Operations, SyncSender
from ._requests import ApiKeys, Prepared, decode

__all__ = ["DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "AsyncClient", "AsyncControl", "Client", "Control"]

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 2
_RETRY_STATUSES = frozenset({429, 502, 503, 504})
_MAX_WAIT = 30.0


class _Base:
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
        self._credentials = ApiKeys(app_id, app_token, access_token, management_id, management_token)
        self.retries = max(0, retries)
        self.backoff = backoff
        self._timeout = timeout
        self._transport = transport

    def _request(self, prepared: Prepared[Any]) -> tuple[str, str, dict[str, str], tuple[tuple[str, str], ...], bytes | None]:
        endpoint = prepared.endpoint
        base = self.management_base_url if endpoint.auth == "management" or endpoint.control else self.base_url
        headers = self._credentials.headers(endpoint.auth)
        content = None
        if prepared.json is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(prepared.json, separators=(",", ":")).encode()
        # A tuple, not the list itself: httpx reads both alike, and a tuple is
        # covariant, so it matches httpx's QueryParamTypes.
        return endpoint.method, base + prepared.path, headers, tuple(prepared.params), content

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
    def _retryable_error(exc: httpx.TransportError, prepared: Prepared[Any]) -> bool:
        return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout) or (
            prepared.idempotent and isinstance(exc, httpx.TimeoutException)
        )


class Client(_Base, SyncSender, Operations):
    """Synchronous client; use as a context manager or call `close()`."""

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.Client(transport=self._transport, timeout=self._timeout)
        self.control = Control(self)

    def _send(self, prepared: Prepared[T]) -> T:
        method, url, headers, params, content = self._request(prepared)
        attempt = 0
        while True:
            try:
                response = self._http.request(method, url, headers=headers, params=params or None, content=content)
            except httpx.TransportError as exc:
                wait = self._wait_before_retry(attempt, None) if self._retryable_error(exc, prepared) else None
                if wait is None:
                    raise
            else:
                wait = self._wait_before_retry(attempt, response) if response.status_code in _RETRY_STATUSES else None
                if wait is None:
                    return decode(response, prepared)
            time.sleep(wait)
            attempt += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Base, AsyncSender, Operations):
    """Asynchronous client: every operation method returns an awaitable."""

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self._http = httpx.AsyncClient(transport=self._transport, timeout=self._timeout)
        self.control = AsyncControl(self)

    async def _send(self, prepared: Prepared[T]) -> T:
        method, url, headers, params, content = self._request(prepared)
        attempt = 0
        while True:
            try:
                response = await self._http.request(method, url, headers=headers, params=params or None, content=content)
            except httpx.TransportError as exc:
                wait = self._wait_before_retry(attempt, None) if self._retryable_error(exc, prepared) else None
                if wait is None:
                    raise
            else:
                wait = self._wait_before_retry(attempt, response) if response.status_code in _RETRY_STATUSES else None
                if wait is None:
                    return decode(response, prepared)
            await asyncio.sleep(wait)
            attempt += 1

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class Control(SyncSender, ControlOperations):
    """`client.control`: the served simulator's control API, through the client."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def _send(self, prepared: Prepared[T]) -> T:
        return self._client._send(prepared)


class AsyncControl(AsyncSender, ControlOperations):
    """`async_client.control`: the control API, awaited."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def _send(self, prepared: Prepared[T]) -> T:
        return await self._client._send(prepared)
