"""Assertions on wire JSON shared by the test packages (importable because
pytest puts this folder, the one holding the root conftest.py, on sys.path)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
