from __future__ import annotations

from typing import Any

from ..clock import format_instant

__all__ = ["iso"]


def iso(value: Any) -> str | None:
    """Wire timestamp of an optional instant."""
    return None if value is None else format_instant(value)
