"""Per-order fields of a line-items frame: when (`placed_at`) and the request metadata.

Split from `orders` (which groups the lines): parsing timestamps strictly
(aware only, one instant per order) and folding per-order metadata into codes
is its own job. Errors name the frame's row by its index label and the column.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["EARLIEST", "LATEST", "PLACED_AT_COLUMN", "iso_instant", "line_instants", "metadata_codes", "plain", "row_of", "utc_datetime"]

PLACED_AT_COLUMN = "placed_at"


def plain(value: Any) -> Hashable:
    """A numpy scalar as the Python value (ids, labels and values in messages and dicts)."""
    key: Hashable = value.item() if isinstance(value, np.generic) else value
    return key


def row_of(series: pd.Series, mask: np.ndarray) -> tuple[Any, Any]:
    """(index label, value) of the first row where `mask` holds."""
    pos = int(np.flatnonzero(mask)[0])
    return plain(series.index[pos]), plain(series.iloc[pos])


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: An ISO time of day followed by a UTC offset (`Z`, `+01`, `+0100`, `+01:00`):
#: what makes a timestamp string aware. pandas would read a string without one
#: as UTC when asked for UTC, so the offset is checked on the text itself.
_OFFSET = re.compile(r"[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$")


def utc_datetime(ns: int) -> datetime:
    """UTC nanoseconds as the UTC `datetime` the simulator's clock would show
    (datetimes stop at microseconds: the nanoseconds below are dropped)."""
    return _EPOCH + timedelta(microseconds=int(ns) // 1000)


def iso_instant(ns: int) -> str:
    return str(pd.Timestamp(int(ns), tz="UTC").isoformat())


#: The instants an order may be placed at: whole years inside what pandas'
#: nanosecond timestamps hold (1677-09-21 to 2262-04-11), which every reader
#: of dated orders computes in (periods, windows, budgets per day). Whole
#: years, so that the end of an order's day, week or month is inside too.
#: Outside it, a reader refuses the row: `9999-12-31T00:00:00Z` (a common
#: "no date") was cast to nanoseconds and came back as 1816-03-29.
EARLIEST = datetime(1678, 1, 1, tzinfo=UTC)
LATEST = datetime(2262, 1, 1, tzinfo=UTC)  # excluded
_LOW_NS = (EARLIEST - _EPOCH) // timedelta(microseconds=1) * 1000
_HIGH_NS = (LATEST - _EPOCH) // timedelta(microseconds=1) * 1000
_NS_PER = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def _to_ns(naive_utc: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A naive (UTC) datetime64 series of any unit as int64 nanoseconds, and
    where the value is inside `EARLIEST`..`LATEST` (outside it, the value is 0).
    The range is checked in the series' own unit, before any conversion: a
    cast to nanoseconds of a value it cannot hold wraps or raises."""
    values = naive_utc.to_numpy()
    unit = np.datetime_data(values.dtype)[0]
    per = _NS_PER.get(unit)
    if per is None:  # a unit coarser than seconds: convert to seconds first (never out of range for them)
        values, per = values.astype("datetime64[s]"), _NS_PER["s"]
    ticks = values.view(np.int64)
    inside = (ticks >= -(-_LOW_NS // per)) & (ticks < -(-_HIGH_NS // per))
    out: np.ndarray = np.where(inside, ticks, 0) * per
    return out, inside


_MISSING, _UNPARSEABLE, _NAIVE, _OUT_OF_RANGE = 1, 2, 3, 4


def _out_of_range(row: Any, column: str, value: Any) -> ValueError:
    return ValueError(f"row {row!r}, column {column!r}: {str(value)!r} is outside the instants an order may be "
                      f"placed at ({EARLIEST:%Y-%m-%d} to {LATEST - timedelta(microseconds=1):%Y-%m-%d}, UTC)")


def line_instants(series: pd.Series) -> np.ndarray:
    """The `placed_at` column as int64 UTC nanoseconds per line; raises ValueError
    naming the first row (index label) that is missing, unparseable or naive.

    A tz-aware datetime64 column converts without Python per row; an object or
    string column is parsed once per distinct value (pandas' ISO 8601 parser).
    """
    column = PLACED_AT_COLUMN
    dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        missing = series.isna().to_numpy(dtype=bool)
        if missing.any():
            row, _ = row_of(series, missing)
            raise ValueError(f"row {row!r}, column {column!r}: missing timestamp")
        ns, inside = _to_ns(series.dt.tz_convert(None))
        if not inside.all():
            row, value = row_of(series, ~inside)
            raise _out_of_range(row, column, value)
        return ns
    if dtype.kind == "M":
        present = series.notna().to_numpy(dtype=bool)
        row, value = row_of(series, present if present.any() else np.ones(len(series), dtype=bool))
        raise ValueError(f"row {row!r}, column {column!r}: {str(value)!r} has no timezone "
                         "(use a timezone-aware column or strings with an offset such as +01:00 or Z)")
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    values = np.zeros(len(uniques), dtype=np.int64)
    problem = np.zeros(len(uniques) + 1, dtype=np.int8)  # last entry: code -1 (missing)
    problem[-1] = _MISSING
    objects = np.asarray(uniques, dtype=object)
    texts = np.array([isinstance(v, str) for v in objects], dtype=bool)
    for k in np.flatnonzero(~texts):
        value = objects[k]
        if isinstance(value, datetime):  # pd.Timestamp included
            if value.tzinfo is None:
                problem[k] = _NAIVE
            elif EARLIEST <= value < LATEST:
                values[k] = pd.Timestamp(value).tz_convert("UTC").as_unit("ns").value
            else:
                problem[k] = _OUT_OF_RANGE
        else:
            problem[k] = _UNPARSEABLE
    if texts.any():
        text = pd.Series(objects[texts], dtype=object).str.strip()
        parsed = pd.to_datetime(text, format="ISO8601", utc=True, errors="coerce")
        unparsed = parsed.isna().to_numpy(dtype=bool)
        aware = text.str.contains(_OFFSET, regex=True).to_numpy(dtype=bool)
        where = np.flatnonzero(texts)
        problem[where[unparsed]] = _UNPARSEABLE
        problem[where[~unparsed & ~aware]] = _NAIVE
        ok = ~unparsed & aware
        ns, inside = _to_ns(parsed[ok].dt.tz_convert(None))
        values[where[ok]] = ns
        problem[where[ok][~inside]] = _OUT_OF_RANGE
    per_line = problem[codes]  # codes -1 read the last entry
    if per_line.any():
        bad = per_line != 0
        row, value = row_of(series, bad)
        kind = int(per_line[bad][0])
        if kind == _MISSING:
            raise ValueError(f"row {row!r}, column {column!r}: missing timestamp")
        if kind == _NAIVE:
            raise ValueError(f"row {row!r}, column {column!r}: {str(value)!r} has no timezone "
                             "(give an offset such as +01:00 or Z)")
        if kind == _OUT_OF_RANGE:
            raise _out_of_range(row, column, value)
        raise ValueError(f"row {row!r}, column {column!r}: not a timestamp: {value!r}")
    out: np.ndarray = values[codes]
    return out


def metadata_codes(
    columns: Mapping[str, np.ndarray], n: int
) -> tuple[np.ndarray | None, tuple[dict[str, Any], ...]]:
    """Per-order metadata values (key -> object array) as codes into distinct dicts.

    Orders share a handful of metadata combinations (a channel, a store), so
    rules reading them run once per combination, not once per order.
    """
    if not columns:
        return None, ()
    keys = list(columns)
    codes = np.empty((n, len(keys)), dtype=np.int64)
    uniques: list[list[Any]] = []
    for c, key in enumerate(keys):
        found, values = pd.factorize(pd.Series(columns[key], dtype=object), use_na_sentinel=True)
        codes[:, c] = found
        uniques.append([plain(v) for v in values])
    radix = [len(u) + 1 for u in uniques]
    if math.prod(radix) < 2**62:  # one number per combination, factorized by hash (no sort of the rows)
        combined = np.zeros(n, dtype=np.int64)
        for c, base in enumerate(radix):
            combined = combined * base + (codes[:, c] + 1)
        inverse, numbers = pd.factorize(combined)
        combos = np.empty((len(numbers), len(keys)), dtype=np.int64)
        rest = np.asarray(numbers, dtype=np.int64)
        for c in reversed(range(len(keys))):
            combos[:, c] = rest % radix[c] - 1
            rest = rest // radix[c]
    else:
        combos, inverse = np.unique(codes, axis=0, return_inverse=True)
    sets = tuple(
        {key: uniques[c][int(code)] for c, (key, code) in enumerate(zip(keys, row)) if code >= 0}
        for row in combos
    )
    return np.asarray(inverse).reshape(-1).astype(np.int32), sets
