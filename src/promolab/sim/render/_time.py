from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..clock import format_instant

__all__ = ["iso"]

_ZERO = timedelta(0)


def iso(value: Any) -> str | None:
    """Wire timestamp of an optional instant: `format_instant(value)`.

    Every rendered resource carries a few timestamps, and `format_instant`
    (a UTC conversion and `strftime`) costs more than the rest of a field:
    an instant already in UTC (what the state holds) is written directly, in the same `YYYY-MM-DDTHH:MM:SS.mmmZ` form;
    anything else goes through `format_instant`
    (tests/sim/test_render_fast_paths.py checks the two agree)."""
    if value is None:
        return None
    if value.utcoffset() == _ZERO:
        # %-formatting: measurably the quickest way to write these seven fields
        return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (  # noqa: UP031
            value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond // 1000,
        )
    return format_instant(value)
