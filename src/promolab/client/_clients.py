"""`Client` and `AsyncClient`: the same operations, waited on differently.

Either talks to a simulator in-process (`transport=SimulatorTransport(sim)`,
or just `sim.client()`), to a served simulator, or to a real deployment: only
the base URL, credentials and transport change. A caller with an httpx
client of its own (proxies, certificates, limits, hooks, a mounted transport)
passes it as `http_client=` and keeps it; one with only hooks passes
`event_hooks=`, as to httpx. URLs are the base URL joined with each
endpoint's path by httpx (`httpx.URL.join`), so a base with a path prefix
keeps it.

Retries: a request is sent again after a 429 (honouring Retry-After, capped),
a 502/503/504, or a connection that never opened; after a timeout only when
the operation is idempotent, since the service may already have done it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Required, Self, TypedDict, TypeVar, Unpack

import httpx

from ..keywords import check_keywords
from ._methods import AsyncSender, ControlOperations, Operations, SyncSender
from ._requests import ApiKeys, Prepared, decode

__all__ = [
    "DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "AsyncClient", "AsyncClientOptions", "AsyncControl", "Client",
    "ClientKeys", "ClientOptions", "Control",
]

T = TypeVar("T")
H = TypeVar("H", httpx.Client, httpx.AsyncClient)

DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 2
_RETRY_STATUSES = frozenset({429, 502, 503, 504})
_MAX_WAIT = 30.0
#: How many joined URLs a client keeps (`_joiner`): every static path of the
#: interface and the ids a session keeps asking about.
_URL_CACHE = 512

#: httpx's own shape of event hooks: `{"request": [...], "response": [...]}`.
EventHooks = Mapping[str, Sequence[Callable[..., Any]]]


class ClientKeys(TypedDict, total=False):
    """A project's keys as the clients take them: `Client(url, **keys)`."""

    app_id: Required[str]
    app_token: Required[str]
    access_token: str | None
    management_id: str | None
    management_token: str | None


class _Options(ClientKeys, total=False):
    """The keywords both clients take after the base URL (docs/client.md).

    A TypedDict rather than a dozen parameters: the keywords stay checked by
    mypy at every call, and the constructors keep to a few parameters."""

    management_base_url: str | None
    timeout: float | httpx.Timeout
    retries: int
    backoff: float


class ClientOptions(_Options, total=False):
    """`Client(base_url, **options)`: with the httpx pieces of a sync client."""

    transport: httpx.BaseTransport | None
    event_hooks: EventHooks | None
    #: The caller's own configured `httpx.Client`: requests go through it,
    #: and it stays the caller's (closing this client leaves it open).
    http_client: httpx.Client | None


class AsyncClientOptions(_Options, total=False):
    """`AsyncClient(base_url, **options)`: with the httpx pieces of an async client."""

    transport: httpx.AsyncBaseTransport | None
    event_hooks: EventHooks | None
    http_client: httpx.AsyncClient | None


#: The keys no client goes without. Written out: with postponed annotations
#: typing cannot see `Required[...]`, so `__required_keys__` is empty.
_REQUIRED = ("app_id", "app_token")
#: What configures the httpx client itself: given with `http_client`, they
#: would be silently ignored (the caller's client is already configured).
_HTTPX_SETTINGS = ("transport", "timeout", "event_hooks")


def _base(url: str, name: str) -> httpx.URL:
    """`url` as a base that relative paths join below (a trailing slash, so
    `https://host/prefix` + `v1/x` is `https://host/prefix/v1/x`)."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise ValueError(f"{name} {url!r} is not a URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"{name} must be an absolute http(s) URL such as 'http://127.0.0.1:8000', not {url!r}")
    if parsed.query or parsed.fragment:
        raise ValueError(f"{name} {url!r} has a query or fragment; give the URL the API paths start from")
    return parsed.copy_with(raw_path=parsed.raw_path.rstrip(b"/") + b"/")


def _joiner(bases: Mapping[bool, httpx.URL]) -> Callable[[bool, str], httpx.URL]:
    """`(management, path) -> URL` below the base of the credentials, remembered.

    httpx's own joining (`URL.join`: the endpoint's path below the base's
    path, which is relative, so a prefix of the base URL is kept). A join
    parses the path, formats the base, joins the two strings (urllib) and
    parses the result again: ~30 us, as much as the rest of a GET on the
    client's side. The same path always joins to the same (immutable) URL, so
    each client keeps the last ones (its own: two clients' bases differ)."""

    @functools.lru_cache(maxsize=_URL_CACHE)
    def join(management: bool, path: str) -> httpx.URL:
        return bases[management].join(path.lstrip("/"))

    return join


def _http_client(options: Mapping[str, Any], kind: type[H]) -> tuple[H, bool]:
    """The httpx client to send with, and whether it is ours to close: the
    caller's `http_client` (when nothing would configure it twice), or a new
    one with the given transport, timeout and hooks."""
    given = options.get("http_client")
    if given is None:
        made = kind(transport=options.get("transport"), timeout=options.get("timeout", DEFAULT_TIMEOUT),
                    event_hooks=_hooks(options.get("event_hooks")))
        return made, True
    if not isinstance(given, kind):
        raise TypeError(f"http_client must be an {kind.__module__}.{kind.__qualname__}, "
                        f"not {type(given).__module__}.{type(given).__qualname__}")
    both = [name for name in _HTTPX_SETTINGS if name in options]
    if both:
        raise ValueError(f"http_client is already configured: pass {', '.join(both)} to it, not to the promolab client")
    return given, False


def _hooks(hooks: EventHooks | None) -> dict[str, list[Callable[..., Any]]] | None:
    """As httpx wants them (lists; a caller may hold tuples). httpx ignores a key it does not
    know, so a misspelt `"reponse"` would never run: refused here instead."""
    if hooks is None:
        return None
    unknown = sorted(set(hooks) - {"request", "response"})
    if unknown:
        raise ValueError(f"event_hooks takes 'request' and 'response' hooks, not {', '.join(map(repr, unknown))}")
    return {name: list(functions) for name, functions in hooks.items()}


def _check_keywords(options: Mapping[str, Any]) -> None:
    """What mypy checks, checked at run time too: a misspelt keyword would
    otherwise be dropped without a word (a `timeot=` leaving the default)."""
    check_keywords(options, ClientOptions.__optional_keys__ | ClientOptions.__required_keys__)
    missing = [name for name in _REQUIRED if name not in options]
    if missing:
        raise TypeError(f"missing the project's keys: {', '.join(missing)}")


class _Base:
    def __init__(self, base_url: str, options: _Options) -> None:
        _check_keywords(options)
        self.base_url = base_url.rstrip("/")
        self.management_base_url = (options.get("management_base_url") or base_url).rstrip("/")
        self._bases = {False: _base(base_url, "base_url"),
                       True: _base(self.management_base_url, "management_base_url")}
        self._credentials = ApiKeys(options["app_id"], options["app_token"], options.get("access_token"),
                                    options.get("management_id"), options.get("management_token"))
        self.retries = max(0, options.get("retries", DEFAULT_RETRIES))
        self.backoff = options.get("backoff", 0.5)
        self._url = _joiner(self._bases)

    def _request(self, prepared: Prepared[Any]) -> tuple[str, httpx.URL, dict[str, str], tuple[tuple[str, str], ...], bytes | None]:
        endpoint = prepared.endpoint
        headers = self._credentials.headers(endpoint.auth)
        content = None
        if prepared.json is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(prepared.json, separators=(",", ":")).encode()
        # A tuple of params, not the list itself: httpx reads both alike, and
        # a tuple is covariant, so it matches httpx's QueryParamTypes.
        url = self._url(endpoint.auth == "management" or endpoint.control, prepared.path)
        return endpoint.method, url, headers, tuple(prepared.params), content

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

    def __init__(self, base_url: str, **options: Unpack[ClientOptions]) -> None:
        super().__init__(base_url, options)
        self._http, self._owns_http = _http_client(options, httpx.Client)
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
        """Close the httpx client this client made (one passed as `http_client` is its owner's to close)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Base, AsyncSender, Operations):
    """Asynchronous client: every operation method returns an awaitable."""

    def __init__(self, base_url: str, **options: Unpack[AsyncClientOptions]) -> None:
        super().__init__(base_url, options)
        self._http, self._owns_http = _http_client(options, httpx.AsyncClient)
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
        """Close the httpx client this client made (one passed as `http_client` is its owner's to close)."""
        if self._owns_http:
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
