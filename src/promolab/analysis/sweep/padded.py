"""Line codes as a (width x orders) grid: per-order sums without segment reductions.

Row j of the grid holds, for every order, the code of its j-th line (or the
"no line" code, whose table row is zero). A per-order sum of a per-subject
table is then `width` contiguous gathers and adds: no segment reduction
(`np.add.reduceat`, `np.bincount`), which cost 3-10x more per line, and every
call works on whole rows, so numpy releases the GIL for long stretches (the
dask threaded engine runs two chunks at once). Orders longer than `width`
(chosen so the grid stays within about twice the lines) add their remaining
lines with `np.add.at`.

A batch with distinct-line codes keeps its grid in a compact dtype
(`pad_codes(..., compact=True)`, made once by `prepare_orders`); a chunk takes
a window of it (`window`). Chunks of their own lines build theirs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PaddedCodes", "pad_codes"]

#: Orders padded at a time when building a batch's grid (bounds the intp scratch).
_BUILD_STEP = 1 << 16
#: Orders summed at a time: (8,192 x 10 columns) int64 accumulators fit in L2.
_SUM_STEP = 1 << 13


class PaddedCodes:
    """Line codes of n orders on a grid, plus the lines past its width."""

    __slots__ = ("extra_code", "extra_order", "grid", "n", "width")

    def __init__(self, grid: np.ndarray, extra_order: np.ndarray | None = None,
                 extra_code: np.ndarray | None = None) -> None:
        self.width, self.n = grid.shape
        self.grid = grid
        #: Lines past the grid's width: their order (ascending) and code; None when none.
        self.extra_order = extra_order if extra_order is not None and extra_order.size else None
        self.extra_code = extra_code if self.extra_order is not None else None

    def window(self, a: int, b: int, longest: int | None = None, *, working: bool = True) -> PaddedCodes:
        """Orders a..b-1: `working`, as intp rows ready for `take`, cut to `longest`
        (the window's longest order); else a slice in the stored dtype."""
        width = self.width if longest is None else min(self.width, longest)
        grid = self.grid[:width, a:b]
        if working:
            grid = grid.astype(np.intp)
        if self.extra_order is None:
            return PaddedCodes(grid)
        assert self.extra_code is not None
        lo, hi = np.searchsorted(self.extra_order, [a, b])
        code = self.extra_code[lo:hi]
        return PaddedCodes(grid, self.extra_order[lo:hi] - a, code.astype(np.intp) if working else code)

    def sums(self, table: np.ndarray) -> np.ndarray:
        """Per-order sums of `table[code]`: (n,) for a 1-D table, (n, C) for an (U + 1, C) one.

        `table[none]` must be zero; the sums keep the table's dtype. Orders are
        summed `_SUM_STEP` at a time so the accumulator stays in cache.
        """
        shape = (self.n,) + table.shape[1:]
        acc = np.zeros(shape, dtype=table.dtype) if not self.width else np.empty(shape, dtype=table.dtype)
        if self.width:
            buf = np.empty((min(self.n, _SUM_STEP),) + table.shape[1:], dtype=table.dtype)
            for a in range(0, self.n, _SUM_STEP):
                b = min(self.n, a + _SUM_STEP)
                part, extra = acc[a:b], buf[: b - a]
                table.take(self.grid[0, a:b], axis=0, out=part, mode="clip")
                for j in range(1, self.width):
                    table.take(self.grid[j, a:b], axis=0, out=extra, mode="clip")
                    part += extra
        if self.extra_order is not None:
            assert self.extra_code is not None
            np.add.at(acc, self.extra_order, table.take(self.extra_code, axis=0))
        return acc


def _compact_dtype(none: int) -> type[np.signedinteger]:
    return np.int16 if none <= np.iinfo(np.int16).max else np.int32 if none <= np.iinfo(np.int32).max else np.int64


def pad_codes(code: np.ndarray, starts: np.ndarray, none: int, width: int | None = None, *,
              compact: bool = False) -> PaddedCodes:
    """`starts[i]:starts[i+1]` are order i's lines in `code`; `none`: the "no line" code.

    `width` defaults to twice the average lines per order plus 8, never more
    than the longest order. `compact`: the smallest int dtype holding `none`
    (a batch's stored grid) instead of intp (a chunk's working grid).
    """
    n = starts.size - 1
    m = code.size
    counts = np.diff(starts)
    longest = int(counts.max()) if n else 0
    if width is None:
        width = 2 * m // max(n, 1) + 8
    width = max(0, min(longest, width))
    ext = np.empty(m + 1, dtype=np.intp)
    ext[:m] = code
    ext[m] = none
    first = starts[:-1]
    grid = np.empty((width, n), dtype=_compact_dtype(none) if compact else np.intp)
    step = _BUILD_STEP if compact else max(n, 1)
    for a in range(0, n, step):
        b = min(n, a + step)
        for j in range(width):
            index = np.where(counts[a:b] > j, first[a:b] + j, m)
            if compact:
                grid[j, a:b] = ext.take(index)
            else:
                ext.take(index, out=grid[j], mode="clip")
    extra_order = extra_code = None
    if longest > width:
        long = np.flatnonzero(counts > width)
        reps = counts[long] - width
        lead = np.cumsum(reps) - reps
        offsets = np.arange(int(reps.sum())) - np.repeat(lead, reps)
        extra_order = np.repeat(long, reps)
        extra_code = ext.take(np.repeat(first[long] + width, reps) + offsets)
    return PaddedCodes(grid, extra_order, extra_code)
