"""Parsing operation inputs into request models, with the service's 400.

Operations receive JSON-shaped data (from HTTP, the journal or a notebook)
and parse it here, so that a bad body becomes `invalid_payload` naming the
field, in the wording of the real service ("Property .customer.id ...").

The request model is the one definition of a valid body: there is no
hand-written check beside it. `parse` calls the model's core validator
directly (`fast_validate.validated`), which is the validation
`model_validate` runs, without its Python wrapper; the operation then reads
the parsed model, so a body is validated once.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .fast_validate import validated
from .refusals import InvalidPayload

__all__ = ["describe_validation_error", "parse"]

M = TypeVar("M", bound=BaseModel)


def describe_validation_error(exc: ValidationError, root: str = "") -> str:
    first = exc.errors(include_url=False)[0]
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
    if first["type"] == "missing":
        parent = path.rsplit(".", 1)[0] if "." in path[1:] else ""
        name = str(first["loc"][-1])
        where = f"Property {root}{parent}" if (root or parent) else "Payload"
        return f"{where} should have required property '{name}'"
    if first["type"] == "extra_forbidden":
        return f"Property {root}{path} is not allowed"
    return f"Property {root}{path or '.'}: {first['msg']}"


def parse(model: type[M], data: Any, *, root: str = "") -> M:
    """`model` validated from `data`, or 400 `invalid_payload` naming the first bad field."""
    try:
        return validated(model, data)
    except ValidationError as exc:
        raise InvalidPayload(describe_validation_error(exc, root)) from None
