"""Base classes shared by every wire model.

The service's JSON distinguishes three states of an optional field: present with a value,
present as ``null`` and absent. Pydantic only has ``None``, so each model declares which of
its ``None`` fields are *absent* on the wire (``__omit_if_none__``); every other ``None``
field is sent as ``null``. The policy lives here, once, so that ``model_dump(mode="json")``
and ``model_dump_json()`` produce the wire JSON without callers remembering
``exclude_none`` (which would also drop the nulls the interface requires).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NoReturn, TypeVar

from pydantic import BaseModel, ConfigDict, GetJsonSchemaHandler, ValidationError, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, InitErrorDetails, PydanticCustomError

__all__ = ["RequestModel", "WireModel", "checked_after", "fail", "require_exactly_one_of", "require_one_of"]

Loc = str | int | tuple[str | int, ...]


class WireModel(BaseModel):
    """A resource or response body as the service sends it.

    Extra fields are kept, not rejected: a real deployment returns more than the interface
    shows (customer summaries, formulas, ...), and the typed client must not break on
    them; keeping them also makes documented examples round-trip byte for byte.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    #: Fields that are *absent* from the wire JSON when their value is None. Any other
    #: field whose value is None is serialised as ``null``.
    __omit_if_none__: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        # A typo in __omit_if_none__ would silently turn an "absent" field into a null:
        # catch it when the class is defined, not in a client's parser.
        unknown = cls.__omit_if_none__ - cls.model_fields.keys()
        if unknown:
            raise TypeError(
                f"{cls.__name__}.__omit_if_none__ names unknown fields: {sorted(unknown)}"
            )
        # The policy is carried out by pydantic-core itself (`exclude_if` per field),
        # not by a model-level serializer hook: a wrap serializer makes pydantic build
        # Python dicts for every nested model, which cost ~5x on every response.
        changed = False
        for name in cls.__omit_if_none__:
            field = cls.model_fields[name]
            if field.exclude_if is None:
                field.exclude_if = _is_none
                changed = True
        if changed:
            cls.model_rebuild(force=True)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """The schema of what is sent, in serialization mode: pydantic alone
        would mark every defaulted field optional and every omitted field
        nullable, so `/openapi.json` would allow `null` where promolab leaves
        the key out and absence where it always sends one (found by
        tests/http/test_openapi_agreement.py). Here a field of
        `__omit_if_none__` is optional and never null; every other field is
        required (it is always sent, as `null` when it has no value)."""
        schema = super().__get_pydantic_json_schema__(core_schema, handler)
        if handler.mode != "serialization":
            return schema
        target = handler.resolve_ref_schema(schema)
        properties = target.get("properties", {})
        required = []
        for name, field in cls.model_fields.items():
            if name not in properties or field.exclude:
                continue
            if name in cls.__omit_if_none__:
                properties[name] = _never_null(properties[name])
            else:
                required.append(name)
        if required:
            target["required"] = required
        return schema


def _never_null(prop: JsonSchemaValue) -> JsonSchemaValue:
    """`prop` without its `null` alternative and its `default: null`."""
    prop = {key: value for key, value in prop.items() if not (key == "default" and value is None)}
    variants = prop.get("anyOf")
    if isinstance(variants, list):
        kept = [v for v in variants if v != {"type": "null"}]
        del prop["anyOf"]
        if len(kept) == 1:
            return {**kept[0], **prop}
        prop["anyOf"] = kept
    elif isinstance(prop.get("type"), list):
        prop["type"] = [t for t in prop["type"] if t != "null"]
    return prop


def _is_none(value: Any) -> bool:
    return value is None


class RequestModel(WireModel):
    """A request body the service accepts.

    Unknown fields are rejected: a misspelt field in a request (``sourceid``) must fail
    loudly as ``invalid_payload`` instead of being silently ignored by the simulator.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def fail(loc: Loc, message: str, value: Any = None, *, kind: str = "value_error") -> NoReturn:
    """Raise a ValidationError located at ``loc`` (relative to the model being validated).

    A plain ``ValueError`` raised in a model validator reports the model itself as the
    location; cross-field rules ("``points`` is required when type is POINTS") must name
    the field instead, so the HTTP layer can say which field is wrong. Pydantic re-roots
    the location when the model is nested.
    """
    path = loc if isinstance(loc, tuple) else (loc,)
    raise ValidationError.from_exception_data(
        "WireModel",
        [InitErrorDetails(type=PydanticCustomError(kind, message), loc=path, input=value)],
    )


def refuse(key: str, message: str, details: str, loc: Loc = ()) -> NoReturn:
    """Raise a ValidationError the service answers with a key of its own
    rather than ``invalid_payload`` (a publish body naming neither a voucher
    nor a campaign is ``missing_vouchers``). The key is the error's type and
    the service's ``message`` rides in its context (``refusal``), where the
    simulator's request parsing reads them: the rule stays in the model, which
    is the one check of a body."""
    raise ValidationError.from_exception_data(
        "WireModel",
        [InitErrorDetails(type=PydanticCustomError(key, details, {"refusal": message}),
                          loc=loc if isinstance(loc, tuple) else (loc,), input=None)],
    )


_M = TypeVar("_M", bound=BaseModel)


def checked_after(check: Callable[[Any], None]) -> Any:
    """A model validator (mode ``after``) that runs ``check(model)``.

    Models that share a cross-field rule but not their fields (wire field order differs,
    so no common base class) declare it in one line, ``_rule = checked_after(_check_rule)``,
    instead of each repeating a decorated method that calls the check and returns the
    model. ``check`` raises (usually through `fail`) with its own message and location.
    """

    def validate(model: _M) -> _M:
        check(model)
        return model

    validate.__name__ = validate.__qualname__ = check.__name__
    return model_validator(mode="after")(validate)


def _present(model: BaseModel, names: Sequence[str]) -> list[str]:
    return [name for name in names if getattr(model, name) is not None]


def require_one_of(model: BaseModel, *names: str) -> None:
    """At least one of ``names`` must be set (the error is located at the first name).

    A plain loop that stops at the first set field: this runs on every request
    body that names a customer or a campaign."""
    for name in names:
        if getattr(model, name) is not None:
            return
    fail(names[0], f"at least one of {', '.join(names)} is required", kind="missing_one_of")


def require_exactly_one_of(model: BaseModel, *names: str) -> None:
    """Exactly one of ``names`` must be set (located at the first offending name)."""
    present = _present(model, names)
    if len(present) == 1:
        return
    if not present:
        fail(names[0], f"exactly one of {', '.join(names)} is required", kind="exactly_one_of")
    fail(
        present[1],
        f"exactly one of {', '.join(names)} may be set, got {', '.join(present)}",
        getattr(model, present[1]),
        kind="exactly_one_of",
    )
