"""Scalar types and small shapes used across the resource families.

Money and points are integers in the smallest unit everywhere (docs/interface.md), so
the integer types here are *strict*: a float such as ``10.5`` or even ``10.0`` is a caller
bug (a price in major units), not something to round silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from numbers import Integral
from typing import Annotated, Any, Generic, Literal, Self, TypeVar

from pydantic import BeforeValidator, Field, GetCoreSchemaHandler, PlainSerializer, Strict
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from ._base import WireModel

__all__ = [
    "INT32_MAX",
    "INT64_MAX",
    "INT64_MIN",
    "INTEGER_ONLY",
    "IdRef",
    "Int64",
    "IsoDate",
    "ListEnvelope",
    "Metadata",
    "Money",
    "NonNegativeInt64",
    "Timestamp",
    "format_timestamp",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class _IntegerOnly:
    """The check of a JSON integer before the strict, bounded int.

    From Python objects (request bodies, scenario files, the sweeps' numpy
    integers) a Python check runs first: it names the mistake (a boolean, a
    float such as a price in major units) and takes numpy integers. From
    JSON text (`model_validate_json`, how the client reads every answer)
    there is no numpy integer, and the strict int refuses `true` and `10.5`
    by itself, so the check is left out: it was a Python call per amount,
    about a third of parsing an answer (benchmarks/bench_stacking.py)."""

    what: str

    def check(self, value: Any) -> Any:
        # bool is an int subclass and 1.0 == 1; both are wrong types on the wire.
        if isinstance(value, bool):
            raise PydanticCustomError("int_type", "Input should be an integer, not a boolean")
        if isinstance(value, float):
            raise PydanticCustomError(
                "int_type", f"non-integer {self.what}: {{value}}", {"value": value}
            )
        if not isinstance(value, int) and isinstance(value, Integral):
            # numpy integers from the vectorised sweeps are integers too.
            return int(value)
        return value

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        strict = handler(source)
        return core_schema.json_or_python_schema(
            json_schema=strict,
            python_schema=core_schema.no_info_before_validator_function(self.check, strict),
        )


def _integer_only(what: str) -> Any:
    return _IntegerOnly(what)


#: The check of a JSON integer, for integer types with other bounds than the
#: ones below (`Annotated[int, Strict(), Field(ge=1, le=...), INTEGER_ONLY]`).
INTEGER_ONLY = _integer_only("number")

# The bounds come before the check in each `Annotated` so that pydantic-core
# applies them inside its native strict-int validator (and writes them into
# the JSON schema as `minimum`/`maximum`). Bounds written after a Python
# validator, including a `Field(ge=...)` on a field of one of these types,
# become Python calls per value: the same errors at twice the cost of every
# amount in every response. A field needing other bounds declares its own
# `Annotated` type in this order.
#: A JSON integer that fits a signed 64-bit integer.
Int64 = Annotated[int, Strict(), Field(ge=INT64_MIN, le=INT64_MAX), INTEGER_ONLY]
#: A 64-bit count (quantities, stock, limits) that cannot be negative.
NonNegativeInt64 = Annotated[int, Strict(), Field(ge=0, le=INT64_MAX), INTEGER_ONLY]
#: An amount of money in the smallest currency unit (cents): non-negative 64-bit integer.
Money = Annotated[int, Strict(), Field(ge=0, le=INT64_MAX), _integer_only("amount")]


def _parse_timestamp(value: Any) -> Any:
    # Only ISO 8601 text (or a datetime from Python code): pydantic's lax parser would also
    # take unix numbers, which the service never sends.
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise PydanticCustomError("datetime_type", "Input should be an ISO 8601 date-time string")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise PydanticCustomError(
            "datetime_parsing",
            "Input should be an ISO 8601 date-time, got '{value}'",
            {"value": value},
        ) from None


def _to_utc_millis(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise PydanticCustomError(
            "timezone_aware", "Timestamp needs a UTC offset (for example Z or +02:00)"
        )
    # The wire carries milliseconds; truncating here keeps parse(dump(x)) == x.
    utc = value.astimezone(UTC)
    return utc.replace(microsecond=utc.microsecond // 1000 * 1000)


def format_timestamp(value: datetime) -> str:
    """Render like the service: ``2026-01-01T00:00:00.000Z`` (UTC, milliseconds, Z)."""
    v = value.astimezone(UTC)
    return (
        f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f".{v.microsecond // 1000:03d}Z"
    )


def _timestamp(value: Any) -> Any:
    """Parse and normalise in one Python call (every response carries several
    timestamps); an instant already in UTC at whole milliseconds, which is
    what the simulator hands over, is taken as it is."""
    if type(value) is datetime and value.tzinfo is UTC and not value.microsecond % 1000:
        return value
    return _to_utc_millis(_parse_timestamp(value))


#: An aware instant; parsed from any ISO 8601 form with an offset, sent as UTC millis + Z.
Timestamp = Annotated[
    datetime,
    BeforeValidator(_timestamp),
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
]


def _parse_date(value: Any) -> Any:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise PydanticCustomError("date_type", "Input should be an ISO 8601 date string")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise PydanticCustomError(
            "date_parsing", "Input should be an ISO 8601 date, got '{value}'", {"value": value}
        ) from None


#: A calendar date (``2026-01-31``), as used by card transaction points.
IsoDate = Annotated[date, BeforeValidator(_parse_date)]

#: Free-form key/value attributes; the service defines no inner shape.
Metadata = dict[str, Any]


class IdRef(WireModel):
    """A bare ``{id}`` reference to a product, SKU or collection."""

    id: str = Field(min_length=1)


ItemT = TypeVar("ItemT")


class ListEnvelope(WireModel, Generic[ItemT]):
    """The service's list wrapper ``{data, total, data_ref: "data", object: "list"}``."""

    data: list[ItemT]
    total: NonNegativeInt64
    data_ref: Literal["data"] = "data"
    object: Literal["list"] = "list"

    @classmethod
    def of(cls, items: list[ItemT]) -> Self:
        """Build a complete (unpaged) list, where ``total`` is the number of items."""
        return cls(data=list(items), total=len(items))
