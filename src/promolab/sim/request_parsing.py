"""Parsing operation inputs into request models, with the service's 400.

Operations receive JSON-shaped data (from HTTP, the journal or a notebook)
and parse it here, so that a bad body becomes `invalid_payload` naming the
field, in the wording of the real service ("Property .customer.id ...").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..models import INT64_MAX
from .refusals import InvalidPayload

__all__ = [
    "CUSTOMER_CHECKS",
    "code",
    "describe_validation_error",
    "fields_ok",
    "json_object",
    "money",
    "parse",
    "readable",
    "text",
]

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


# -- cheap checks of the usual bodies ---------------------------------------------------------------
# The hot operations (custom events, validation, publish, purchases, gift
# top-ups) recognise their usual bodies with hand-written checks instead of
# their request model: each check answers "would the model accept this
# value?" with True only when it certainly would (exact JSON types, known
# keys); False means "ask the model", which gives the exact 400. Plain type
# tests: this runs on every request, and costs a fraction of a validation
# only when written this way.
Check = Callable[[Any], bool]


def text(value: Any) -> bool:
    """What a `str | None` field takes as it is."""
    return value is None or type(value) is str


def code(value: Any) -> bool:
    """What a `str | None` field with `min_length=1` (ids, codes) takes as it is."""
    return value is None or (type(value) is str and value != "" and readable(value))


def money(value: Any) -> bool:
    """What an optional `Money` field takes as it is."""
    return value is None or (type(value) is int and 0 <= value <= INT64_MAX)


def json_object(value: Any) -> bool:
    """What an optional `dict[str, Any]` field (metadata, address) takes as it is."""
    return value is None or (type(value) is dict and all(type(key) is str for key in value))


def fields_ok(value: Any, checks: Mapping[str, Check]) -> bool:
    """`value` is a dict whose every key is in `checks` and passes its check."""
    if type(value) is not dict:
        return False
    for key, field in value.items():
        check = checks.get(key)
        if check is None or not check(field):
            return False
    return True


#: `models.CustomerInput`'s fields (a request's customer), each optional.
CUSTOMER_CHECKS: dict[str, Check] = {
    "id": code, "source_id": code, "metadata": json_object, "address": json_object,
    **dict.fromkeys(("name", "email", "phone", "birthday", "birthdate", "description"), text),
}  # fmt: skip
