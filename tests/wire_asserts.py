"""Assertions on wire JSON, and the 400s of request bodies, shared by the test
packages (importable because pytest puts this folder, the one holding the root
conftest.py, on sys.path)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from promolab.sim.refusals import InvalidPayload, SimError
from promolab.sim.request_parsing import describe_validation_error


def assert_same_json(actual: Any, expected: Any, path: str = "$") -> None:
    """Equal values AND the same key order (the wire bytes), with the path on failure."""
    if isinstance(expected, Mapping):
        assert isinstance(actual, Mapping), f"{path}: expected an object, got {actual!r}"
        assert list(actual) == list(expected), f"{path}: keys {list(actual)} != expected {list(expected)}"
        for key in expected:
            assert_same_json(actual[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{path}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), f"{path}: {len(actual)} items != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same_json(a, e, f"{path}[{i}]")
    else:
        assert actual == expected and type(actual) is type(expected), f"{path}: {actual!r} != expected {expected!r}"


def model_refusal(model: type[BaseModel], body: Any) -> str | None:
    """The 400 text of the public request model's first error for `body`
    (None: the model accepts it): what an operation must answer."""
    try:
        model.model_validate(copy.deepcopy(body))
    except ValidationError as exc:
        return describe_validation_error(exc)
    return None


def payload_refusal(call: Callable[[], Any]) -> str | None:
    """The text of the 400 `invalid_payload` `call` refuses with (None: it
    answers, or refuses otherwise, e.g. 404 for an unknown id)."""
    try:
        call()
    except InvalidPayload as exc:
        assert (exc.status, exc.key) == (400, "invalid_payload")
        return exc.details
    except SimError:
        pass
    return None
