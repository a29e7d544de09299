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

__all__ = ["PLACED_AT_COLUMN", "iso_instant", "line_instants", "metadata_codes", "plain", "row_of", "utc_datetime"]

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


def _to_ns(naive_utc: pd.Series) -> np.ndarray:
    """A naive (UTC) datetime64 series of any unit as int64 nanoseconds."""
    out: np.ndarray = naive_utc.to_numpy().astype("datetime64[ns]").view(np.int64)
    return out


_MISSING, _UNPARSEABLE, _NAIVE = 1, 2, 3


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
        return _to_ns(series.dt.tz_convert(None))
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
            else:
                values[k] = pd.Timestamp(value).tz_convert("UTC").as_unit("ns").value
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
        values[where[ok]] = _to_ns(parsed[ok].dt.tz_convert(None))
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
