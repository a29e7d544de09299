"""An endpoint's wire contract: the `Endpoint` and `Param` every operation is declared with.

The catalogue of operations (`models.endpoints`) and the read endpoints of a
pull (`models.read_endpoints` and the families beside it) declare their
operations with these; the client, the simulator and the HTTP face read
them. They live apart from the catalogue so that a family's module can
declare its endpoints without importing the whole catalogue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

__all__ = ["Auth", "Endpoint", "Param", "ParamType"]

R = TypeVar("R")

#: Which credentials a call needs: app keys (`/client`, `/v1`), app keys and
#: a Bearer token (`/v2/loyalties`), management keys (`/management`, `/_sim`).
Auth = Literal["app", "loyalty", "management", "none"]
#: `array`: a list of strings, sent as the parameter repeated (`ids=a&ids=b`, the SDK's `multi`).
ParamType = Literal["string", "boolean", "object", "integer", "array"]

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Param:
    """A path or query parameter: its wire `name` and the operation's `arg`."""

    name: str
    arg: str
    type: ParamType = "string"
    description: str = ""
    #: A regular expression every value must match (path parameters).
    pattern: str | None = None
    #: The bounds of an integer (a list's `limit` and `page`), inclusive.
    minimum: int | None = None
    maximum: int | None = None
    #: The values a string may take (a list's `order`).
    enum: tuple[str, ...] | None = None
    #: `date-time`: an instant with its offset (a list's `start_date`).
    format: Literal["date-time"] | None = None
    #: What an absent value means (a list's `limit` 10, `order` -created_at).
    default: int | str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Endpoint(Generic[R]):
    """One operation's wire contract; `R` is what a successful call returns."""

    name: str
    method: str
    path: str
    auth: Auth
    operation_id: str
    summary: str
    #: The model of a success's body (None: no body, or a plain JSON object).
    response: type[R] | None = None
    request: type[BaseModel] | None = None
    #: The body may be left out: sent without one (or with JSON `null`), it is
    #: read as `{}` (validation and rollback, whose every field is optional).
    #: Any other operation refuses a missing body (400 `invalid_payload`).
    optional_body: bool = False
    status: int = 200
    error_statuses: tuple[int, ...] = (400, 401, 404)
    path_params: tuple[Param, ...] = ()
    query: tuple[Param, ...] = ()
    tags: tuple[str, ...] = ()
    #: Part of the simulator's `/_sim/` control API, not of the interface.
    control: bool = False
    #: Safe to send again after a timeout (the service may have done it).
    idempotent: bool = False
    #: What a success's body is: JSON, or text of this media type (an
    #: export's CSV, `text/csv`: the response type is then `str`).
    media_type: str = "application/json"

    def __post_init__(self) -> None:
        placeholders = _PLACEHOLDER.findall(self.path)
        if placeholders != [p.name for p in self.path_params]:
            raise ValueError(f"{self.name}: path parameters {placeholders} are not declared in order")

    def url_path(self, **args: str) -> str:
        """The path with each parameter filled from its argument, escaped."""
        path = self.path
        for param in self.path_params:
            path = path.replace("{" + param.name + "}", quote(args[param.arg], safe=""), 1)
        return path

    def query_name(self, arg: str) -> str:
        """The wire name of the query parameter that carries `arg`."""
        for param in self.query:
            if param.arg == arg:
                return param.name
        raise KeyError(f"{self.name} has no query parameter for {arg!r}")

    @property
    def body_arg(self) -> str | None:
        """The operation's argument that carries the body (`request`), if any."""
        return "request" if self.request is not None else None
