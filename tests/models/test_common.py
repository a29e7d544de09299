"""Scalar types (Int64, Money, Timestamp, IsoDate) and the base serialisation policy."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ValidationError

from promolab import models
from promolab.models import (
    INT64_MAX,
    INT64_MIN,
    Int64,
    IsoDate,
    ListEnvelope,
    Money,
    RequestModel,
    Timestamp,
    WireModel,
    format_timestamp,
)


class Ints(WireModel):
    value: Int64


class Cents(WireModel):
    value: Money


class When(WireModel):
    at: Timestamp


class Day(WireModel):
    on: IsoDate


@pytest.mark.parametrize("value", [0, 1, -1, INT64_MAX, INT64_MIN, 2**62])
def test_int64_accepts_64_bit_integers(value: int) -> None:
    assert Ints(value=value).value == value
    assert json.loads(Ints(value=value).model_dump_json()) == {"value": value}


@pytest.mark.parametrize(
    "value",
    [2**63, INT64_MIN - 1, 1.5, 1.0, True, False, "1", None, [1]],
    ids=["2^63", "-2^63-1", "1.5", "1.0", "true", "false", "str", "null", "list"],
)
def test_int64_rejects_non_integers_and_overflow(value: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        Ints.model_validate({"value": value})
    assert caught.value.errors()[0]["loc"] == ("value",)


def test_int64_accepts_numpy_integers_but_not_numpy_floats() -> None:
    numpy = pytest.importorskip("numpy")
    assert Ints(value=numpy.int64(7)).model_dump_json() == '{"value":7}'
    assert type(Ints(value=numpy.int32(-7)).value) is int
    with pytest.raises(ValidationError):
        Ints(value=numpy.float64(7.0))
    with pytest.raises(ValidationError):
        Ints(value=numpy.bool_(True))
    with pytest.raises(ValidationError):
        Cents(value=numpy.int64(-1))


def test_int64_rejects_json_floats_too() -> None:
    with pytest.raises(ValidationError):
        Ints.model_validate_json('{"value": 1.0}')


@pytest.mark.parametrize("value", [0, 1, INT64_MAX])
def test_money_accepts_non_negative_cents(value: int) -> None:
    assert Cents(value=value).value == value


@pytest.mark.parametrize("value", [-1, 2**63, 10.5, 10.0, True, "100"])
def test_money_rejects_negative_float_and_overflow(value: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        Cents.model_validate({"value": value})
    assert caught.value.errors()[0]["loc"] == ("value",)


def test_money_float_error_says_non_integer_amount() -> None:
    with pytest.raises(ValidationError) as caught:
        Cents.model_validate({"value": 10.5})
    assert "non-integer amount" in caught.value.errors()[0]["msg"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z"),
        ("2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"),
        ("2026-01-01T02:00:00+02:00", "2026-01-01T00:00:00.000Z"),
        ("2025-12-31T19:30:00.123-04:30", "2026-01-01T00:00:00.123Z"),
        ("2026-01-01T00:00:00.123456+00:00", "2026-01-01T00:00:00.123Z"),
        ("20260101T000000Z", "2026-01-01T00:00:00.000Z"),
    ],
)
def test_timestamp_parses_iso_with_offset_and_sends_utc_millis(text: str, expected: str) -> None:
    when = When.model_validate({"at": text})
    assert when.at.tzinfo is not None
    assert when.model_dump(mode="json") == {"at": expected}
    assert json.loads(when.model_dump_json()) == {"at": expected}


@pytest.mark.parametrize(
    "value",
    ["2026-01-01T00:00:00", "2026-01-01", "yesterday", 1767225600, 1767225600.0, None],
    ids=["naive", "date-only", "text", "unix-int", "unix-float", "null"],
)
def test_timestamp_rejects_naive_non_iso_and_numbers(value: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        When.model_validate({"at": value})
    assert caught.value.errors()[0]["loc"] == ("at",)


def test_timestamp_rejects_naive_python_datetime() -> None:
    with pytest.raises(ValidationError):
        When(at=datetime(2026, 1, 1))


def test_timestamp_python_dump_is_utc_datetime() -> None:
    local = datetime(2026, 1, 1, 1, 0, tzinfo=timezone(timedelta(hours=1)))
    assert When(at=local).model_dump() == {"at": datetime(2026, 1, 1, tzinfo=UTC)}
    assert format_timestamp(local) == "2026-01-01T00:00:00.000Z"


@pytest.mark.parametrize(
    ("value", "ok"), [("2026-05-30", True), ("2026-02-30", False), (20260530, False)]
)
def test_iso_date(value: Any, ok: bool) -> None:
    if ok:
        assert Day.model_validate({"on": value}).model_dump(mode="json") == {"on": value}
        assert Day.model_validate({"on": value}).on == date(2026, 5, 30)
    else:
        with pytest.raises(ValidationError):
            Day.model_validate({"on": value})


# --- the omit-vs-null policy of WireModel ----------------------------------------------------


class Sample(WireModel):
    __omit_if_none__: ClassVar[frozenset[str]] = frozenset({"absent_when_none"})

    absent_when_none: int | None = None
    null_when_none: int | None = None


def test_omitted_fields_vanish_and_nullable_fields_stay_null() -> None:
    assert Sample().model_dump(mode="json") == {"null_when_none": None}
    assert Sample().model_dump_json() == '{"null_when_none":null}'
    assert Sample(absent_when_none=1).model_dump(mode="json") == {
        "absent_when_none": 1,
        "null_when_none": None,
    }


def test_response_models_keep_unknown_fields_request_models_reject_them() -> None:
    assert Sample.model_validate({"extra": [1]}).model_dump(mode="json")["extra"] == [1]

    class Body(RequestModel):
        a: int

    with pytest.raises(ValidationError) as caught:
        Body.model_validate({"a": 1, "b": 2})
    assert caught.value.errors()[0]["loc"] == ("b",)


def test_a_typo_in_omit_if_none_fails_at_class_definition() -> None:
    with pytest.raises(TypeError, match="unknown fields"):

        class Broken(WireModel):
            __omit_if_none__ = frozenset({"nmae"})
            name: str | None = None


def _wire_models() -> list[type[BaseModel]]:
    exported = (getattr(models, name) for name in models.__all__)
    return [m for m in exported if isinstance(m, type) and issubclass(m, WireModel)]


@pytest.mark.parametrize("model", _wire_models(), ids=lambda m: m.__name__)
def test_every_omitted_field_is_optional(model: type[BaseModel]) -> None:
    # A required field can never be None-and-absent; listing one is a modelling mistake.
    for name in model.__omit_if_none__:  # type: ignore[attr-defined]
        assert not model.model_fields[name].is_required(), f"{model.__name__}.{name}"


@pytest.mark.parametrize("model", _wire_models(), ids=lambda m: m.__name__)
def test_serialisation_schema_keeps_the_fields(model: type[BaseModel]) -> None:
    # The shared wrap serializer must not hide the model's shape from the OpenAPI doc.
    schema = model.model_json_schema(mode="serialization")
    assert set(model.model_fields) <= set(schema.get("properties", {}))


def test_list_envelope_of_counts_items() -> None:
    envelope = ListEnvelope[int].of([1, 2])
    assert envelope.model_dump(mode="json") == {
        "data": [1, 2],
        "total": 2,
        "data_ref": "data",
        "object": "list",
    }


@pytest.mark.parametrize(
    ("field", "value"), [("data_ref", "items"), ("object", "page"), ("total", -1)]
)
def test_list_envelope_constants(field: str, value: Any) -> None:
    payload = {"data": [], "total": 0, "data_ref": "data", "object": "list", field: value}
    with pytest.raises(ValidationError) as caught:
        ListEnvelope[int].model_validate(payload)
    assert caught.value.errors()[0]["loc"] == (field,)
