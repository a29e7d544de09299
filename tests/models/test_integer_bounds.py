"""Every integer bound a wire model declares is the one it enforces.

`Int64`, `NonNegativeInt64` and `Money` carry their own bounds (checked
natively by pydantic-core). A `Field(ge=...)` stacked on such a type is
silently overridden by the type's bound, so a field needing other bounds
declares its own `Annotated` type; this test finds every bounded integer
field of every model and checks that the tightest bound it declares is the
one a value is refused at.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from promolab import models
from promolab.models.common import INT64_MAX, INT64_MIN, Int64, Money, NonNegativeInt64


def _bounded_int_fields() -> Iterator[tuple[type[BaseModel], str, int, int]]:
    for name in sorted(dir(models)):
        model = getattr(models, name)
        if not (inspect.isclass(model) and issubclass(model, BaseModel)):
            continue
        for field_name, field in model.model_fields.items():
            if field.annotation is not int:
                continue
            lows = [m.ge for m in field.metadata if getattr(m, "ge", None) is not None]
            highs = [m.le for m in field.metadata if getattr(m, "le", None) is not None]
            if lows or highs:
                yield model, field_name, max(lows, default=INT64_MIN), min(highs, default=INT64_MAX)


def _field_errors(model: type[BaseModel], name: str, value: int) -> list[str]:
    """Error types the model reports at `name` for `value` (other fields absent)."""
    try:
        model.model_validate({name: value})
    except ValidationError as exc:
        return [e["type"] for e in exc.errors() if e["loc"] == (name,)]
    return []


FIELDS = list(_bounded_int_fields())


def test_the_table_covers_the_tightened_fields() -> None:
    found = {(m.__name__, f): (lo, hi) for m, f, lo, hi in FIELDS}
    assert found[("ErrorBody", "code")] == (100, 599)
    assert found[("ProportionalEvery", "every")] == (1, INT64_MAX)
    assert found[("Incentive", "stock")] == (0, 2**31 - 1)
    assert len(FIELDS) > 20


@pytest.mark.parametrize(("model", "name", "low", "high"), FIELDS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_bounds_are_enforced_where_declared(model: type[BaseModel], name: str, low: int, high: int) -> None:
    assert _field_errors(model, name, low) == []
    assert _field_errors(model, name, high) == []
    assert _field_errors(model, name, low - 1) == ["greater_than_equal"]
    assert _field_errors(model, name, high + 1) == ["less_than_equal"]


@pytest.mark.parametrize(
    ("kind", "low", "high"),
    [(Int64, INT64_MIN, INT64_MAX), (NonNegativeInt64, 0, INT64_MAX), (Money, 0, INT64_MAX)],
    ids=["Int64", "NonNegativeInt64", "Money"],
)
def test_shared_integer_types_publish_their_bounds(kind: Any, low: int, high: int) -> None:
    adapter = TypeAdapter(kind)
    schema = adapter.json_schema()
    assert (schema["minimum"], schema["maximum"]) == (low, high)
    assert "ge" not in schema and "le" not in schema
    for bad, error in [(True, "int_type"), (1.0, "int_type"), ("1", "int_type"), (low - 1, "greater_than_equal")]:
        with pytest.raises(ValidationError) as caught:
            adapter.validate_python(bad)
        assert caught.value.errors()[0]["type"] == error
