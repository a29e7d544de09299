"""Failures of simulator operations, each carrying its wire status and key.

The simulator raises these; the HTTP layer turns them into the interface's
error body without knowing any business rule. Keys and statuses follow
the real service's error table (docs/interface.md).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BadRequest",
    "InvalidPayload",
    "InvalidQueryParams",
    "JournalUnavailable",
    "Locked",
    "NotFound",
    "NotImplementedOperation",
    "ResourceInUse",
    "SimError",
    "Unauthorized",
]


class SimError(Exception):
    """An operation refused; nothing in the simulator has changed."""

    status: int = 400
    key: str = "bad_request"
    message: str = "Bad request"

    def __init__(
        self,
        details: str,
        *,
        key: str | None = None,
        message: str | None = None,
        status: int | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(details)
        self.details = details
        if key is not None:
            self.key = key
        if message is not None:
            self.message = message
        if status is not None:
            self.status = status
        self.extra = {k: v for k, v in extra.items() if v is not None}

    def body(self) -> dict[str, Any]:
        """Error-body fields (without request_id, which the HTTP layer adds)."""
        return {
            "code": self.status,
            "key": self.key,
            "message": self.message,
            "details": self.details,
            **self.extra,
        }


class InvalidPayload(SimError):
    key = "invalid_payload"
    message = "Invalid payload"


class InvalidQueryParams(SimError):
    key = "invalid_query_params"
    message = "Invalid query params"


class BadRequest(SimError):
    """A 400 whose key is given by the raiser (e.g. `duplicate_source_id`)."""


class NotFound(SimError):
    status = 404
    key = "not_found"
    message = "Resource not found"

    def __init__(self, resource_type: str, resource_id: str) -> None:
        super().__init__(
            f"Cannot find {resource_type} with id {resource_id}",
            resource_id=resource_id,
            resource_type=resource_type,
        )


class ResourceInUse(SimError):
    key = "resource_in_use"
    message = "Resource in use"

    def __init__(self, resource_type: str, resource_id: str, related_type: str, related_ids: list[str]) -> None:
        plural = related_type + "s"
        super().__init__(
            f"Resource {resource_type} with id {resource_id} is in use by {plural} with ids "
            f"[{', '.join(related_ids)}]",
            # the resource at fault, as every error about one resource names it
            resource_id=resource_id,
            resource_type=resource_type,
            related_object_ids=list(related_ids),
            related_object_type=related_type,
            related_object_total=len(related_ids),
        )


class Locked(SimError):
    """423: the loyalty v2 refusals (balance, stock, program or member state)."""

    status = 423


class Unauthorized(SimError):
    status = 401
    key = "unauthorized"
    message = "Unauthorized"


class NotImplementedOperation(SimError):
    status = 501
    key = "not_implemented"
    message = "Not implemented"


class JournalUnavailable(SimError):
    """503: the journal could not be written, so writes are not acknowledged."""

    status = 503
    key = "journal_unavailable"
    message = "Service unavailable"
