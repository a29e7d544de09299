"""The typed httpx client of the service (sync and async)."""

from ._clients import DEFAULT_RETRIES, DEFAULT_TIMEOUT, AsyncClient, Client
from .errors import ApiError

__all__ = ["DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "ApiError", "AsyncClient", "Client"]
