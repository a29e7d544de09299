"""`ApiError`: a non-2xx answer, with the parsed error body."""

from __future__ import annotations

from ..models import ErrorBody

__all__ = ["ApiError"]


class ApiError(Exception):
    """Raised for every non-2xx answer.

    `.status` is the HTTP status and `.error` the parsed error body (an
    `ErrorBody`; for a body that is not in the error shape, one is made up
    from the status and the raw text, so callers can always read `.error.key`).
    """

    def __init__(self, status: int, error: ErrorBody, *, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.error = error
        self.headers = headers or {}
        super().__init__(f"{status} {error.key}: {error.details or error.message}")

    @property
    def key(self) -> str:
        return self.error.key
