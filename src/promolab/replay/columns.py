"""Typed pandas columns built from what a replay records, quickly.

A replay keeps its rows as plain tuples and turns each column into a typed
array once, at the end. pandas' own conversions infer and check value by
value; these build the same arrays from codes (`category`), through
pyarrow (`nullable_ints`, `strings`) or numpy (`ints`), and fall back to
pandas' conversion (and its error) for any value they do not expect.
tests/replay/test_replay_fast_paths.py and test_replay_machinery_paths.py
hold each against the pandas call it stands for.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

__all__ = ["category", "ints", "nullable_ints", "strings", "times"]


def category(values: Sequence[Any], categories: list[str]) -> Any:
    """`pd.Categorical(values, categories=categories)` (a value outside the
    categories, None included, is NA), built from codes: a dict lookup per
    row instead of pandas' factorizing of an object array (4x quicker on a
    long replay; tests/replay/test_replay_fast_paths.py compares the two)."""
    import numpy as np
    import pandas as pd

    index = _Codes((category, code) for code, category in enumerate(categories))
    codes = np.fromiter(map(index.__getitem__, values), dtype=np.int32, count=len(values))
    return pd.Categorical.from_codes(codes, categories=categories)


class _Codes(dict[Any, int]):
    """category -> code; -1 (NA) for anything else. `map(codes.__getitem__,
    values)` then runs without a Python frame per value (a miss calls
    `__missing__`)."""

    def __missing__(self, key: Any) -> int:
        return -1


def nullable_ints(values: Sequence[Any]) -> Any:
    """`pd.array(values, dtype="Int64")`; when every value is an `int` or
    None (what a replay records), built by pyarrow (its loop is in C++) into
    a value array and a mask, three times as quick as pandas' inference on a
    mostly-empty column. Anything else (a float, a bool, an int past 64
    bits) gets pandas' own conversion, and its error."""
    import pandas as pd

    if set(map(type, values)) <= _INT_OR_NONE:
        import pyarrow as pa

        try:
            array = pa.array(values, type=pa.int64())
        except (pa.ArrowInvalid, OverflowError):  # past 64 bits: pandas says why
            pass
        else:
            mask = array.is_null().to_numpy(zero_copy_only=False)
            return pd.arrays.IntegerArray(array.fill_null(0).to_numpy(), mask)
    return pd.array(list(values), dtype="Int64")


_INT_OR_NONE = frozenset({int, type(None)})


def ints(values: Sequence[Any]) -> Any:
    """`pd.array(values, dtype="int64")`: a numpy array straight from the
    values when they are all `int`s (line numbers, counts), a third of the
    time of pandas' conversion; anything else gets pandas' conversion, and
    its error."""
    import numpy as np
    import pandas as pd

    if set(map(type, values)) <= _INT:
        try:
            return np.fromiter(values, dtype=np.int64, count=len(values))
        except OverflowError:  # past 64 bits: pandas' conversion decides (it wraps)
            pass
    return pd.array(list(values), dtype="int64")


_INT = frozenset({int})


def strings(values: Sequence[Any]) -> Any:
    """`pd.array(values, dtype="string")`. With pyarrow storage (pandas'
    default when pyarrow is installed), pyarrow reads the values itself (its
    loop is in C++, pandas' goes value by value); anything but `str` and
    None (pandas converts it) or a string pyarrow cannot encode (pandas says
    why) gets pandas' conversion."""
    import pandas as pd

    dtype = pd.StringDtype()
    if dtype.storage == "pyarrow":
        import pyarrow as pa

        try:
            return pd.arrays.ArrowStringArray(pa.array(values, type=pa.large_string()), dtype=dtype)
        except Exception:  # noqa: BLE001 - see above: pandas' conversion decides
            return pd.array(list(values), dtype="string")
    return pd.array(list(values), dtype="string")


def times(values: Sequence[datetime]) -> Any:
    """`datetime64[us, UTC]` values. `cache=False`: pandas' cache converts the
    distinct values once and maps them back, which costs three times the
    conversion itself on the balance rows (a line moving two cards repeats
    its time) and gains nothing on the timeline (every line has its own)."""
    import pandas as pd

    if not values:
        return _empty_times()
    return pd.Series(pd.to_datetime(list(values), utc=True, cache=False)).astype("datetime64[us, UTC]").array


def _empty_times() -> Any:
    import pandas as pd

    return pd.Series([], dtype="datetime64[us, UTC]")
