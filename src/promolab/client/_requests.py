"""What each client method sends and how its answer is read.

Both `Client` and `AsyncClient` build their requests here and decode the
answers here; they differ only in how they wait. So a method cannot behave
differently in sync and async code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import httpx
from pydantic import BaseModel

from .. import models
from ..models.endpoints import Endpoint
from .errors import ApiError

__all__ = ["ApiKeys", "Prepared", "body_of", "decode", "flatten_filters"]

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class ApiKeys:
    """The keys a client sends, and the headers each auth scheme puts them in
    (the keys a project accepts are part of its state, `sim.records.Credentials`)."""

    app_id: str
    app_token: str
    access_token: str | None = None
    management_id: str | None = None
    management_token: str | None = None

    def headers(self, kind: str) -> dict[str, str]:
        if kind == "management":
            if not (self.management_id and self.management_token):
                raise ValueError("this client has no management credentials (management_id/management_token)")
            return {"X-Management-Id": self.management_id, "X-Management-Token": self.management_token}
        headers = {"X-App-Id": self.app_id, "X-App-Token": self.app_token}
        if kind == "loyalty":
            if not self.access_token:
                raise ValueError("loyalty v2 endpoints need an access_token (Bearer)")
            headers["Authorization"] = f"Bearer {self.access_token}"
        return headers


@dataclass(frozen=True, slots=True)
class Prepared(Generic[R]):
    """One call, ready to send: its endpoint, the filled path, body and query."""

    endpoint: Endpoint[R]
    path: str
    json: Any = None
    params: list[tuple[str, str]] = field(default_factory=list)
    #: Safe to send again after a timeout (the service may have done it).
    idempotent: bool = False


def body_of(request: Any, fields: Mapping[str, Any]) -> dict[str, Any]:
    """A request given as a model, a mapping, or keyword fields (None dropped)."""
    if request is not None:
        if isinstance(request, BaseModel):
            return request.model_dump(mode="json", exclude_unset=True, by_alias=True)
        return dict(request)
    return {k: (v.model_dump(mode="json", exclude_unset=True) if isinstance(v, BaseModel) else v)
            for k, v in fields.items() if v is not None}


def flatten_filters(filters: Mapping[str, Any], prefix: str = "filters") -> list[tuple[str, str]]:
    """`{"promotion_id": {"conditions": {"$is": "camp_1"}}}` ->
    `filters[promotion_id][conditions][$is]=camp_1`, as the real SDKs send it."""
    out: list[tuple[str, str]] = []
    for key, value in filters.items():
        name = f"{prefix}[{key}]"
        if isinstance(value, Mapping):
            out.extend(flatten_filters(value, name))
        elif isinstance(value, list | tuple):
            out.append((name, ",".join(str(v) for v in value)))
        else:
            out.append((name, str(value).lower() if isinstance(value, bool) else str(value)))
    return out


def decode(response: httpx.Response, prepared: Prepared[R]) -> R:
    """The answer as the endpoint declares it: its response model, the plain
    JSON of a control call, or None for an answer without content."""
    if response.status_code >= 400 or response.status_code < 200:
        raise _api_error(response)
    endpoint = prepared.endpoint
    if endpoint.control:
        return cast(R, response.json())
    if endpoint.media_type != "application/json":  # a text answer (an export's CSV)
        return cast(R, response.text)
    if endpoint.response is None or response.status_code == 204 or not response.content:
        return cast(R, None)
    model = cast(type[BaseModel], endpoint.response)
    return cast(R, model.model_validate_json(response.content))


def _api_error(response: httpx.Response) -> ApiError:
    status = response.status_code
    try:
        data = json.loads(response.content)
        error = models.ErrorBody.model_validate(
            {"code": status, "key": data.get("key") or f"http_{status}", "message": data.get("message") or response.reason_phrase, **{k: v for k, v in data.items() if k not in ("code", "key", "message")}}
        )
    except (ValueError, AttributeError):
        error = models.ErrorBody(code=status, key=f"http_{status}", message=response.reason_phrase or "error",
                                 details=response.text[:500] or None)
    return ApiError(status, error, headers=dict(response.headers))
