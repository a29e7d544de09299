"""Framework-free request and response values.

The core of the HTTP face speaks only these two types; the httpx transports,
the ASGI app and the tests adapt to them. Header names are lower-case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl

__all__ = ["HttpRequest", "HttpResponse"]


@dataclass(slots=True)
class HttpRequest:
    method: str
    path: str
    query_string: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

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
