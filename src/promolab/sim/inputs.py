"""Parsing operation inputs into request models, with the service's 400.

Operations receive JSON-shaped data (from HTTP, the journal or a notebook)
and parse it here, so that a bad body becomes `invalid_payload` naming the
field, in the wording of the real service ("Property .customer.id ...").
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import InvalidPayload

__all__ = ["describe_validation_error", "parse", "readable"]

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


def readable(value: str) -> bool:
    """Whether pydantic can measure `value`: a str holding a lone surrogate
    fails every length constraint (`string_unicode`), however long it is, so
    the hand-written request checks of the hot operations send such a body
    to the model for its 400."""
    if value.isascii():
        return True
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


def parse(model: type[M], data: Any, *, root: str = "") -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidPayload(describe_validation_error(exc, root)) from None
