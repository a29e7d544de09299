"""Which fields of an answer are money, read from the operation's response model.

The wire models type every amount of money `Money` (integer minor units);
points, counts and quantities are plain integers. A difference at a money
field is shown with its currency and the amount between the two sides; any
other integer difference with the two numbers and the amount between them.
Derived from the catalogue's response models, so a new operation's amounts
are recognised without a table here.
"""

from __future__ import annotations

import types
import typing
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from ..models.common import Money
from ..models.endpoints import Endpoint
from .field_paths import child, item, shape

__all__ = ["money_paths"]


def money_paths(endpoint: Endpoint[Any] | None) -> frozenset[str]:
    """The shapes (`field_paths.shape`) of the paths of the money fields of a
    successful answer of `endpoint` (empty without a response model)."""
    response = endpoint.response if endpoint is not None else None
    if not (isinstance(response, type) and issubclass(response, BaseModel)):
        return frozenset()
    return _model_money(response)


@lru_cache(maxsize=64)
def _model_money(model: type[BaseModel]) -> frozenset[str]:
    found: set[str] = set()
    _walk_model(model, "", found, frozenset())
    return frozenset(shape(p) for p in found)


def _walk_model(model: type[BaseModel], path: str, found: set[str], seen: frozenset[type[Any]]) -> None:
    if model in seen:  # a recursive model: its money was found at its first level
        return
    for name, field in model.model_fields.items():
        key = field.serialization_alias or field.alias or name
        _walk_type(field.annotation, child(path, key), found, seen | {model})


def _walk_type(annotation: Any, path: str, found: set[str], seen: frozenset[type[Any]]) -> None:
    if annotation == Money:
        found.add(path)
        return
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        _walk_type(typing.get_args(annotation)[0], path, found, seen)
    elif origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            _walk_type(arg, path, found, seen)
    elif origin in (list, tuple, set, frozenset):
        for arg in typing.get_args(annotation):
            if arg is not Ellipsis:
                _walk_type(arg, item(path, "0"), found, seen)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        _walk_model(annotation, path, found, seen)
