"""The error body every failing call answers with.

Only ``code``, ``key`` and ``message`` are always there; the rest is omitted when not
set, so the management 401 is exactly ``{"code":401,"key":"unauthorized",
"message":"Unauthorized"}`` plus whatever the caller adds (the simulator adds
``request_id`` to every error, docs/interface.md). ``resource_id`` and
``resource_type`` name the resource an error is about; the simulator sends them on
every error caused by one resource's state, ``resource_in_use`` included (docs/http.md,
"Errors"). The model does not require them: a real deployment's error may lack them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, Strict

from ._base import WireModel
from .common import INTEGER_ONLY, NonNegativeInt64

#: An HTTP status code (bounds checked natively: see `common.Int64`).
HttpStatus = Annotated[int, Strict(), Field(ge=100, le=599), INTEGER_ONLY]

__all__ = ["ErrorBody"]


class ErrorBody(WireModel):
    __omit_if_none__ = frozenset(
        {
            "details",
            "request_id",
            "resource_id",
            "resource_type",
            "related_object_ids",
            "related_object_type",
            "related_object_total",
        }
    )

    #: The HTTP status repeated in the body.
    code: HttpStatus
    key: str = Field(min_length=1)
    message: str
    details: str | None = None
    request_id: str | None = None
    resource_id: str | None = None
    resource_type: str | None = None
    #: Only on ``resource_in_use``: what still references the resource (which
    #: ``resource_id`` / ``resource_type`` name).
    related_object_ids: list[str] | None = None
    related_object_type: str | None = None
    related_object_total: NonNegativeInt64 | None = None
