"""The typed httpx client of the service (sync and async)."""

from ._clients import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    AsyncClient,
    AsyncClientOptions,
    Client,
    ClientKeys,
    ClientOptions,
)
from .errors import ApiError

__all__ = ["DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "ApiError", "AsyncClient", "AsyncClientOptions", "Client",
           "ClientKeys", "ClientOptions"]
