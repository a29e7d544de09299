"""Error bodies: the interface's Error shape, with a unique request_id."""

from __future__ import annotations

import json
from typing import Any

from ..sim import SimError
from .messages import HttpResponse

__all__ = ["error_body", "error_response"]


def error_body(status: int, key: str, message: str, details: str | None, request_id: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"code": status, "key": key, "message": message}
    if details:  # an empty `details` is omitted, like a missing one
        body["details"] = details
    body["request_id"] = request_id
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def error_response(exc: SimError, request_id: str, headers: list[tuple[str, str]] | None = None) -> HttpResponse:
    body = exc.body()
    body["request_id"] = request_id
    ordered = error_body(
        body.pop("code"), body.pop("key"), body.pop("message"), body.pop("details", None), body.pop("request_id"), **body
    )
    return HttpResponse(exc.status, json.dumps(ordered, separators=(",", ":")).encode(), headers or [])
