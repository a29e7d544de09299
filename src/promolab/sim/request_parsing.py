"""Parsing operation inputs into request models, with the service's 400.

Operations receive JSON-shaped data (from HTTP, the journal or a notebook)
and parse it here, so that a bad body becomes `invalid_payload` naming the
field, in the wording of the real service ("Property .customer.id ...").

The request model is the one definition of a valid body: there is no
hand-written check beside it. `parse` calls the model's core validator
directly (`fast_validate.validated`), which is the validation
`model_validate` runs, without its Python wrapper.

**A body is checked before its operation runs.** An operation bound to an
endpoint with a request model is entered through `enter_body` (see
`operation.bind`): its body is parsed first, so nothing of the operation
(a lookup by an id in the body, a 404 for a path id, a counter) can see a
body its model refuses; a bad body is always 400 `invalid_payload`, on
every route. The operation then reads the parsed model with the same
`parse(Model, request)` call as before: that call is answered from the
check just made (same model, same object), so a body is validated once.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from .fast_validate import validated
from .refusals import BadRequest, InvalidPayload

__all__ = ["describe_validation_error", "enter_body", "leave_body", "parse"]

M = TypeVar("M", bound=BaseModel)


#: pydantic's error types for a body that is not a JSON object.
_NOT_AN_OBJECT = frozenset({"model_type", "model_attributes_type", "dict_type"})


def describe_validation_error(exc: ValidationError, root: str = "") -> str:
    first = exc.errors(include_url=False)[0]
    if not first["loc"] and not root and first["type"] in _NOT_AN_OBJECT:
        return "Payload should be an object"
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
    if first["type"] == "missing":
        parent = path.rsplit(".", 1)[0] if "." in path[1:] else ""
        name = str(first["loc"][-1])
        where = f"Property {root}{parent}" if (root or parent) else "Payload"
        return f"{where} should have required property '{name}'"
    if first["type"] == "extra_forbidden":
        return f"Property {root}{path} is not allowed"
    return f"Property {root}{path or '.'}: {first['msg']}"


#: A body checked for the running operation: (model, the data object, the parsed model).
_Entry = tuple[type[BaseModel], object, BaseModel]


class _Checked(threading.local):
    """The body checked for the operation running on this thread: (model,
    the data object, the parsed model). Per thread, because operations of
    other threads run between (reads do not take the write path), and saved
    and put back around each operation, because an operation may run
    another one (a webhook receiver writing from inside a write)."""

    entry: _Entry | None = None


_checked = _Checked()


def parse(model: type[M], data: Any, *, root: str = "") -> M:
    """`model` validated from `data`, or 400 `invalid_payload` naming the first bad field."""
    entry = _checked.entry
    if entry is not None and entry[0] is model and entry[1] is data and not root:
        return cast(M, entry[2])
    try:
        return validated(model, data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        refusal = (first.get("ctx") or {}).get("refusal")
        if refusal is not None:  # a rule the service answers with its own key (`models._base.refuse`)
            raise BadRequest(first["msg"], key=first["type"], message=str(refusal)) from None
        raise InvalidPayload(describe_validation_error(exc, root)) from None


def enter_body(model: type[BaseModel], data: Any) -> _Entry | None:
    """Check `data` against `model` now (400 `invalid_payload` if it fails),
    and let the operation's own `parse(model, data)` reuse the result until
    `leave_body(<what this returned>)`. A pair of calls, not a context
    manager: it runs around every operation with a body, and `contextlib`'s
    generator costs a few microseconds of a 20 µs validation."""
    body = parse(model, data)
    saved = _checked.entry
    _checked.entry = (model, data, body)
    return saved


def leave_body(saved: _Entry | None) -> None:
    """End the check `enter_body` began (put back the one it replaced)."""
    _checked.entry = saved
