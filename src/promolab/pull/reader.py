"""Reading one answer of the target: paced, bounded, parsed against its endpoint.

The target may be anything at the end of a URL, so nothing it sends is
trusted: a body is read in chunks and refused past `Limits.max_page_bytes`
(a 50 MB page never sits in memory whole; an export's file, a whole list,
past `Limits.max_export_bytes`), a request and the whole read of its body
have a deadline, the JSON must be an object, and it must parse as
the endpoint's response model (`models.endpoints`: the same declaration the
simulator answers from). A 429 is waited out through the shadow run's
`Pacer` (its `Retry-After` and `X-Rate-Limit-*` reading, its retries); any
other status that is not the endpoint's success is a `PullError` naming the
call. Credentials go in headers only, from the `Target` (the environment).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from ..models.endpoint import Endpoint
from ..shadow import Pacer, RateLimited, Target
from .errors import PullError
from .state_file import StateFile

__all__ = ["Limits", "Reader", "Sent", "first_misfit"]

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Limits:
    """How much one answer of the target may cost."""

    #: Bytes of one page's body (the service's largest pages are a few hundred KB).
    max_page_bytes: int = 8 * 2**20
    #: Seconds for one request: connecting, and reading its whole body.
    deadline: float = 60.0
    #: Bytes of one export's CSV: a whole list in one file (100,000 codes are some 40 MB).
    max_export_bytes: int = 512 * 2**20
    #: Seconds for one export's download, which is one long read.
    export_deadline: float = 900.0
    #: How often an export's status is asked for before the pull gives up on it, and the seconds between.
    export_polls: int = 60
    export_poll_every: float = 2.0
    #: The most pages one pass of a walk reads (None: as many as the endpoint allows): what a list's
    #: pages reach, past which a long list is read through an export; smaller only to test that path.
    max_pages: int | None = None


@dataclass(frozen=True, slots=True)
class Sent:
    """One call of the target: which endpoint, the filled path, the query (what a state file keys on),
    and the JSON body of a create (an export's)."""

    endpoint: Endpoint[Any]
    path: str
    query: tuple[tuple[str, str], ...] = ()
    payload: Mapping[str, Any] | None = None

    @property
    def key(self) -> str:
        return self.path + ("?" + "&".join(f"{k}={v}" for k, v in self.query) if self.query else "")


class Reader:
    """Calls of one target (its GETs, and the POST that creates an export), each answered as a parsed
    JSON object, or as the text of an export's file."""

    def __init__(self, target: Target, *, pacer: Pacer | None = None, limits: Limits = Limits(),
                 state: StateFile | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.target = target
        #: Pages read before (a resumed pull) and where each new one is recorded.
        self.state = state
        self.pacer = pacer
        self.limits = limits
        self.clock = clock
        self.calls = 0
        self.http = httpx.Client(transport=target.transport, timeout=httpx.Timeout(limits.deadline))

    def close(self) -> None:
        self.http.close()

    def body(self, sent: Sent) -> dict[str, Any]:
        """The JSON object the target answers to `sent` (429s waited out), or
        the one it answered before, from the state file of a resumed pull."""
        kept = self.state.get(sent.key) if self.state is not None else None
        return kept if kept is not None else self._fetch(sent)

    def _fetch(self, sent: Sent) -> dict[str, Any]:
        content = self._answer(sent, (self.limits.max_page_bytes, self.limits.deadline, "a page"))
        try:
            body = json.loads(content)
        except (ValueError, RecursionError):
            raise PullError(f"{sent.endpoint.name} {sent.key}: the answer is not JSON") from None
        if not isinstance(body, dict):
            raise PullError(f"{sent.endpoint.name} {sent.key}: the answer is {type(body).__name__}, not an object")
        return body

    def fresh(self, sent: Sent, model: type[M]) -> M:
        """The target's answer to `sent` now, as `model`, never from or into the state file (an
        export's create, kept by its caller, and its status, which changes)."""
        return parse(sent, model, self._fetch(sent))

    def text(self, sent: Sent) -> str:
        """The target's answer to `sent` as UTF-8 text (an export's file: bounded by
        `max_export_bytes` and `export_deadline`, not a page's limits)."""
        content = self._answer(sent, (self.limits.max_export_bytes, self.limits.export_deadline, "an export's file"))
        try:
            return content.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise PullError(f"{sent.endpoint.name} {sent.key}: the file is not UTF-8 (byte {exc.start:,})") from None

    def _answer(self, sent: Sent, bounds: tuple[int, float, str]) -> bytes:
        """The body of the target's answer to `sent`: paced, 429s waited out, its status the endpoint's;
        `bounds`: the bytes it may hold, the seconds it may take, and what it is (for the messages)."""
        endpoint = sent.endpoint
        base = self.target.management_base_url if endpoint.auth == "management" else None
        url = (base or self.target.base_url).rstrip("/") + sent.path
        try:
            headers = self.target.keys.headers(endpoint.auth) if endpoint.auth != "none" else {}
        except ValueError as exc:
            raise PullError(f"{endpoint.name}: {exc}") from None
        attempt = 0
        while True:
            if self.pacer is not None:
                self.pacer.before_request()
            status, response_headers, content = self._get(sent, url, headers, bounds)
            self.calls += 1
            try:
                again = self.pacer is not None and self.pacer.after_answer(status, response_headers, attempt)
            except RateLimited as exc:
                raise PullError(f"{sent.endpoint.name} {sent.key}: rate limited: {exc}") from None
            if not again:
                break
            attempt += 1
        if status != endpoint.status:
            raise PullError(f"{endpoint.name} {sent.key}: the target answered {status}{_reason(content)}")
        return content

    def parsed(self, sent: Sent, model: type[M]) -> M:
        """The answer to `sent` as `model` (the endpoint's response model); a
        new answer that parses is recorded in the state file (one that does
        not is never kept: a resumed pull asks for it again)."""
        body = self.body(sent)
        answer = parse(sent, model, body)
        if self.state is not None and not self.state.has(sent.key):
            self.state.put(sent.key, body)
        return answer

    def _get(self, sent: Sent, url: str, headers: Mapping[str, str],
             bounds: tuple[int, float, str]) -> tuple[int, httpx.Headers, bytes]:
        limit, deadline, what = bounds
        started = self.clock()
        try:
            with self.http.stream(sent.endpoint.method, url, params=list(sent.query), headers=dict(headers),
                                  json=sent.payload, timeout=httpx.Timeout(deadline)) as response:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise PullError(f"{sent.endpoint.name} {sent.key}: the answer is {int(declared):,} bytes, "
                                    f"more than the {limit:,} {what} may hold")
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise PullError(f"{sent.endpoint.name} {sent.key}: the answer is more than the "
                                        f"{limit:,} bytes {what} may hold")
                    if self.clock() - started > deadline:
                        raise PullError(f"{sent.endpoint.name} {sent.key}: the answer took more than "
                                        f"{deadline:g} s")
                    chunks.append(chunk)
                return response.status_code, response.headers, b"".join(chunks)
        except httpx.HTTPError as exc:
            raise PullError(f"{sent.endpoint.name} {sent.key}: {type(exc).__name__}: {exc}") from None


def parse(sent: Sent, model: type[M], body: Mapping[str, Any]) -> M:
    """`body` as `model`, or a `PullError` naming the first field that does not fit."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise PullError(f"{sent.endpoint.name} {sent.key}: {first_misfit(exc, 'the body')} "
                        f"({exc.error_count()} field(s) do not fit the service's schema)") from None


def first_misfit(exc: ValidationError, whole: str) -> str:
    """`path.to.field: why` of the first field that does not fit (`whole` when it is the object itself):
    what a message about a target's object names, be it a page's or an export row's."""
    first = exc.errors()[0]
    return f"{'.'.join(str(part) for part in first['loc']) or whole}: {first['msg']}"


def _reason(content: bytes) -> str:
    """The service's error message, if the body is its error object."""
    try:
        body = json.loads(content[:65536])
    except (ValueError, RecursionError):
        return ""
    if isinstance(body, dict):
        message = body.get("message") or body.get("key")
        if isinstance(message, str):
            return f": {message[:200]}"
    return ""
