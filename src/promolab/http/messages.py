"""Framework-free request and response values, and the strict JSON reader.

The core of the HTTP face speaks only these two types; the httpx transports,
the ASGI app and the tests adapt to them. Header names are lower-case.

A header sent more than once reaches the core folded into one value (the
values joined with ", ", RFC 9110 section 5.3) and named in
`HttpRequest.repeated`: `fold_headers` does both. Folding rather than keeping
the last value means that no copy is silently dropped: a repeated credential
or Content-Type is refused as a whole instead of being read as whichever
copy came last.

`decode_json` is the one JSON reader of request content (bodies and the
`filters` query parameter), stricter than `json.loads` where RFC 8259 is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

__all__ = ["MAX_JSON_DEPTH", "HttpRequest", "HttpResponse", "JsonError", "decode_json", "fold_headers"]


@dataclass(slots=True)
class HttpRequest:
    method: str
    path: str
    query_string: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    #: Names (lower-case) of the headers that were sent more than once; their
    #: values are folded in `headers` (`fold_headers`).
    repeated: frozenset[str] = frozenset()

    def query_items(self) -> list[tuple[str, str]]:
        return parse_qsl(self.query_string, keep_blank_values=True)


@dataclass(slots=True)
class HttpResponse:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    content_type: str | None = "application/json"

    def header_list(self) -> list[tuple[str, str]]:
        out = list(self.headers)
        if self.content_type is not None and self.status != 204:
            out.append(("content-type", self.content_type))
        out.append(("content-length", str(len(self.body))))
        return out


def fold_headers(pairs: Iterable[tuple[str, str]]) -> tuple[dict[str, str], frozenset[str]]:
    """`(headers, repeated)` for `HttpRequest` from raw (name, value) pairs:
    names lower-cased, the values of a repeated name joined with ", " in the
    order sent, and the set of repeated names."""
    headers: dict[str, str] = {}
    copies: dict[str, list[str]] = {}  # the values of repeated names, joined once at the end
    for raw_name, value in pairs:
        name = raw_name.lower()
        if name in headers:
            copies.setdefault(name, [headers[name]]).append(value)
        else:
            headers[name] = value
    for name, values in copies.items():
        headers[name] = ", ".join(values)
    return headers, frozenset(copies)


# -- strict JSON ------------------------------------------------------------------------------
#: Deepest nesting of arrays/objects a request's JSON may have. Real requests
#: need a handful of levels (order -> items -> product -> metadata -> ...);
#: without a bound a deep body exhausts the JSON decoder's recursion (a 500)
#: or, a little shallower, is applied and then cannot be serialised back.
MAX_JSON_DEPTH = 64


class JsonError(ValueError):
    """JSON the HTTP face refuses; the message says why. The caller picks the
    key: `invalid_payload` for a body, `invalid_query_params` for a query value."""


def decode_json(data: bytes | str) -> Any:
    """Parse request JSON as RFC 8259 defines it, or raise `JsonError`.

    Beyond `json.loads`, refused: bytes that are not UTF-8 (a UTF-16 or
    UTF-32 body included: `json.loads` would guess the encoding, but JSON
    between systems is UTF-8) and a byte order mark (which RFC 8259 section
    8.1 forbids senders to add); NaN and Infinity; a number too large for a
    double (`1e400`, which Python reads as infinity) or with more digits than
    Python converts; a key repeated in one object (RFC 8259 leaves the
    meaning open and Python keeps the last silently, so `{"voucher": "A",
    "voucher": "B"}` would act on B while a log or proxy reads A); nesting
    deeper than `MAX_JSON_DEPTH`; and lone UTF-16 surrogates in strings or
    keys (not Unicode text: they cannot be journaled or dumped).
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonError(
                f"the body is not UTF-8 (invalid byte at offset {exc.start}); JSON is exchanged in UTF-8 (RFC 8259)"
            ) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        raise JsonError("the text starts with a byte order mark (U+FEFF); send UTF-8 without one (RFC 8259)")
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys
        )
    except RecursionError:
        raise JsonError(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except JsonError:
        raise
    except ValueError as exc:  # JSONDecodeError, a 5000-digit integer
        raise JsonError("a number has too many digits" if "integer string conversion" in str(exc) else str(exc)) from None
    # Cheap bounds first (C-speed scans of the text): nesting cannot exceed
    # the number of brackets, and in text decoded from UTF-8 a lone surrogate
    # needs a \u escape (raw surrogate bytes are not UTF-8: refused above).
    # Only JSON that could hold either is walked.
    surrogates = not isinstance(data, bytes) or "\\u" in text
    if surrogates or text.count("{") + text.count("[") > MAX_JSON_DEPTH:
        _check_json(value, surrogates=surrogates)
    return value


def _refuse_constant(name: str) -> Any:
    # Python's decoder accepts NaN/Infinity; JSON (RFC 8259) does not, and a
    # NaN stored in the state makes the state dump invalid JSON.
    raise JsonError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent, refused when it overflows
    a double: Python reads `1e400` as infinity, which is not a JSON value
    and would be stored and dumped as one."""
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise JsonError(f"the number {shown} is too large (beyond the range of a double)")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = key if len(key) <= 40 else key[:37] + "..."
                raise JsonError(f"the key {shown!r} appears more than once in an object")
            seen.add(key)
    return obj


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check_json(data: Any, *, surrogates: bool = True) -> None:
    """Refuse what JSON parses but the simulator cannot keep: nesting past
    MAX_JSON_DEPTH, and (with `surrogates`) strings, values or keys, with
    lone surrogates (`"\\ud800"`), which are not Unicode text and cannot be
    written to the journal or the state dump. Iterative, so no recursion
    limit is hit."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if surrogates and _has_surrogate(value):
                raise JsonError("a string holds a lone UTF-16 surrogate (not valid Unicode text)")
        elif isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise JsonError(f"nested deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(value, dict):
                for key, item in value.items():
                    if surrogates and _has_surrogate(key):
                        raise JsonError("a key holds a lone UTF-16 surrogate (not valid Unicode text)")
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)
