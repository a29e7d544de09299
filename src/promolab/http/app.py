"""The framework-free core of the HTTP face: `App.handle(request) -> response`.

Order of checks, each answered with the interface's error body:
route (404) -> method (405) -> credentials (401) -> rate limit (429) ->
implemented (501) -> body size (413) -> content type (415) -> JSON (400) ->
operation (its own status). Failed requests never reach the state.
A 500 is a bug: it is answered in the error shape and logged with its trace.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pydantic import BaseModel
from pydantic_core import to_json

from ..models.endpoints import OPENAPI
from ..models.rendered import Rendered
from ..sim import SimError
from .auth import AuthKind, authorized, identity
from .error_bodies import error_body, error_response
from .messages import MAX_JSON_DEPTH, HttpRequest, HttpResponse, JsonError, decode_json
from .query import parse_query
from .routes import Call, Route, Router
from .table import ROUTES

if TYPE_CHECKING:
    from ..sim import Simulator
    from .ratelimit import RateLimiter

__all__ = ["App"]

log = logging.getLogger("promolab.http")

# No `details`: the interface's 401 is exactly {code, message, key} (+ request_id).
_UNAUTHORIZED = SimError("", key="unauthorized", message="Unauthorized", status=401)


class App:
    def __init__(self, sim: Simulator, *, rate_limiter: RateLimiter | None = None) -> None:
        self.sim = sim
        self.router = Router([*ROUTES, Route(OPENAPI, self._openapi)])
        self._requests = itertools.count(1)
        self._openapi_bytes: bytes | None = None
        self.rate_limiter = rate_limiter
        if rate_limiter is not None:
            rate_limiter.bind(self.request_id)

    def request_id(self) -> str:
        """Unique per answer, deterministic per app, and outside the state so
        that a refused request leaves the state dump byte-identical."""
        n = next(self._requests)
        return "v-" + hashlib.blake2b(f"{self.sim.seed}:request:{n}".encode(), digest_size=10).hexdigest()

    def handle(self, request: HttpRequest) -> HttpResponse:
        response = self._handle(request)
        log.info("%s %s -> %d", request.method, request.path, response.status)
        return response

    def _handle(self, request: HttpRequest) -> HttpResponse:
        match = self.router.match(request.method, request.path)
        route = match.route
        if route is None:
            if match.allowed:
                return self._fail(SimError(
                    f"Method {request.method} is not allowed on {request.path}; allowed: {', '.join(match.allowed)}",
                    key="method_not_allowed", message="Method not allowed", status=405,
                ), [("allow", ", ".join(match.allowed))])
            return self._fail(SimError(
                f"Cannot find route {request.method} {request.path}", key="not_found",
                message="Resource not found", status=404, resource_type="route",
            ))
        credentials = self.sim.state.project.credentials
        if not authorized(route.auth, request.headers, credentials, request.repeated):
            return self._fail(_UNAUTHORIZED)
        extra_headers: list[tuple[str, str]] = []
        if self.rate_limiter is not None and route.auth is not AuthKind.NONE:
            # Keyed on who the credentials just proved the caller to be, never
            # on a header the caller may set to anything (a fresh X-App-Id per
            # request would otherwise get a fresh window, and an entry, each time).
            refusal, extra_headers = self.rate_limiter.check(
                self.sim, request, caller=identity(route.auth, credentials)
            )
            if refusal is not None:
                return refusal
        handler = route.handler
        if handler is None:
            return self._fail(SimError(
                f"{route.method} {route.path} is part of the interface but not implemented by this simulator yet",
                key="not_implemented", message="Not implemented", status=501,
            ), extra_headers)
        try:
            body = self._body(request)
            call = Call(
                sim=self.sim,
                params={k: unquote(v) for k, v in match.params.items()},
                # Only routes that declare query parameters read the query.
                query=parse_query(request.query_string) if request.query_string and route.endpoint.query else [],
                body=body,
                headers=request.headers,
            )
            status, payload = handler(call)
            media_type = route.endpoint.media_type
            if media_type != "application/json":  # a text answer (an export's CSV), sent as it is
                return HttpResponse(status, str(payload).encode(), extra_headers, f"{media_type}; charset=utf-8")
            body_bytes = _encode(payload)
        except SimError as exc:
            return self._fail(exc, extra_headers)
        except Exception:  # a bug: answer in shape, keep the trace
            log.exception("unhandled error on %s %s", request.method, request.path)
            return self._fail(SimError(
                "The simulator failed on this request; this is a bug in promolab",
                key="internal_error", message="Internal server error", status=500,
            ), extra_headers)
        return HttpResponse(status, body_bytes, extra_headers, None if payload is None else "application/json")

    def _body(self, request: HttpRequest) -> Any:
        if request.method in ("GET", "DELETE", "HEAD") or not request.body:
            return None
        limit = self.sim.state.settings.max_body_bytes
        if len(request.body) > limit:
            raise SimError(
                # No byte count: a server stops reading at the limit, so only
                # "more than the limit" is known the same way on every way in.
                f"Request body exceeds the limit of {limit} bytes",
                key="request_too_large", message="Payload too large", status=413,
            )
        media_type, _, parameters = request.headers.get("content-type", "application/json").partition(";")
        content_type = media_type.strip().lower()
        if content_type != "application/json" and not content_type.endswith("+json"):
            raise SimError(
                f"Content-Type must be application/json, got {content_type!r}",
                key="unsupported_media_type", message="Unsupported media type", status=415,
            )
        if parameters:
            _check_charset(parameters)
        try:
            return decode_json(request.body)
        except JsonError as exc:
            raise _invalid_json(str(exc)) from None

    def timeout_response(self, seconds: float) -> HttpResponse:
        return self._fail(SimError(
            f"The request did not complete within {seconds:g} s", key="request_timeout",
            message="Request timeout", status=504,
        ))

    def _fail(self, exc: SimError, headers: list[tuple[str, str]] | None = None) -> HttpResponse:
        return error_response(exc, self.request_id(), headers)

    def _openapi(self, call: Call) -> tuple[int, Any]:
        if self._openapi_bytes is None:
            from .openapi import build_openapi

            self._openapi_bytes = json.dumps(build_openapi([r.endpoint for r in self.router.routes]), separators=(",", ":")).encode()
        return 200, _Raw(self._openapi_bytes)


def _invalid_json(reason: str) -> SimError:
    return SimError(f"Invalid JSON: {reason}", key="invalid_payload", message="Invalid payload")


def _check_charset(parameters: str) -> None:
    """Refuse a Content-Type that declares a charset other than UTF-8: JSON
    is UTF-8 (RFC 8259 section 8.1), so a body announced as, say, latin-1 is
    either mislabelled or not JSON; reading it as UTF-8 anyway would
    silently misread every non-ASCII character. `charset=utf-8`, which many
    clients send, is accepted."""
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
            if charset not in ("utf-8", "utf8"):
                raise SimError(
                    f"Content-Type charset must be utf-8 (JSON is UTF-8, RFC 8259), got {charset[:40]!r}",
                    key="unsupported_media_type", message="Unsupported media type", status=415,
                )


class _Raw:
    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def _encode(payload: Any) -> bytes:
    if payload is None:
        return b""
    if isinstance(payload, BaseModel):
        # = model_dump_json(by_alias=True).encode(), without the str round trip
        return payload.__pydantic_serializer__.to_json(payload, by_alias=True)
    if isinstance(payload, _Raw):
        return payload.data
    if isinstance(payload, Rendered):
        # The pricing answers, served as rendered, once (models/rendered.py),
        # by pydantic-core's encoder: the bytes of the json.dumps below for
        # JSON-shaped data (a float's exponent aside: 1e-7, not 1e-07), at
        # 0.4x its time on a 20-tier validation (benchmarks/bench_validation.py).
        return to_json(payload.wire)
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


# re-exported for the transports' error path, and the nesting bound for the tests
__all__ += ["MAX_JSON_DEPTH", "error_body"]
