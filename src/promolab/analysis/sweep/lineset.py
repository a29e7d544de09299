"""Line subjects: what the per-line arithmetic of a sweep is evaluated on.

Everything a kernel or a rule computes for one line (eligibility, units kept
by a quantity limit, the capped value, a condition on the price...) depends
only on the line's (key, quantity, given price). A million orders usually
hold a few hundred distinct such triples, so `distinct_lines` numbers them
once per batch (at `prepare_orders`), the per-line arithmetic runs once per
distinct line per sweep, and a chunk only gathers the results through its
line codes (`padded.PaddedCodes`). When the lines are mostly distinct (many
own prices) the subjects of a chunk are its own lines (`chunk_lines`): same
code path, more arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MAX_DISTINCT", "LineSet", "chunk_lines", "distinct_lines"]

#: Above this many distinct lines the per-line tables (one int64 column per
#: tier) stop fitting in cache and stop saving work: chunks use their own lines.
#: (Up to it, codes and the "no line" code fit int16: 2 bytes a line.)
MAX_DISTINCT = (1 << 15) - 1
#: Line amounts (price x quantity) and their per-order sums stay far below this.
_SAFE = 1 << 62
#: Values in a range this small are numbered by table lookup rather than hashing.
_DENSE = 1 << 22


@dataclass
class LineSet:
    """Line subjects as columns; index `size` (one past the end) is "no line".

    `memo` holds tables derived from these subjects for the life of one
    evaluation (kernel columns, rule masks), keyed by the object that made them.
    """

    key: np.ndarray
    quantity: np.ndarray
    #: Resolved unit price (the line's own, else the catalogue's), -1 when none.
    price: np.ndarray
    has_price: np.ndarray
    #: price x quantity, 0 without a price.
    amount: np.ndarray
    #: Some amount may not fit int64: chunks holding such lines take the engine path.
    overflow: bool = False
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def size(self) -> int:
        return int(self.key.size)

    def fresh(self) -> LineSet:
        """The same subjects with an empty memo (one per evaluation: tables depend on the tiers)."""
        return LineSet(self.key, self.quantity, self.price, self.has_price, self.amount, self.overflow)

    def table(self, values: np.ndarray, dtype: Any = np.int64) -> np.ndarray:
        """`values` (one per subject) with the zero row of "no line" appended."""
        out = np.zeros(self.size + 1, dtype=dtype)
        out[: self.size] = values
        return out


def _subjects(key: np.ndarray, quantity: np.ndarray, given: np.ndarray | None, keyprice: np.ndarray) -> LineSet:
    price = keyprice.take(key) if given is None else np.where(given >= 0, given, keyprice.take(key))
    has_price = price >= 0
    overflow = bool(price.size) and (int(price.max()) + 1) * (int(quantity.max()) + 1) >= _SAFE
    amount = price * quantity
    amount[~has_price] = 0
    return LineSet(key, quantity, price, has_price, amount, overflow)


def chunk_lines(key: np.ndarray, quantity: np.ndarray, given: np.ndarray | None, keyprice: np.ndarray) -> LineSet:
    """A chunk's own lines as subjects (code = line position)."""
    return _subjects(key.astype(np.intp, copy=False), quantity, given, keyprice)


def _number(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(code per value, the distinct values) for values in [0, size): a table lookup
    when the range is small (no hashing), else `pd.factorize`."""
    if size <= _DENSE:
        present = np.zeros(size, dtype=bool)
        present[values] = True
        uniques = np.flatnonzero(present)
        remap = np.cumsum(present, dtype=np.int64) - 1
        return remap.take(values), uniques
    codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)


def distinct_lines(
    key: np.ndarray, quantity: np.ndarray, given: np.ndarray | None, keyprice: np.ndarray
) -> tuple[np.ndarray, LineSet] | None:
    """(code per line, int16, the distinct lines), or None when they are too many to pay off."""
    n = key.size
    if not n:
        return None
    key64 = key.astype(np.int64)
    span = int(quantity.max()) + 1
    quantities: np.ndarray | None = None
    if (int(np.max(key64)) + 1) * span >= _SAFE:  # absurd quantities: number them first
        qcodes, quantities = _number(quantity, _SAFE)
        span = len(quantities)
        packed = key64 * span + qcodes
    else:
        packed = key64 * span + quantity
    codes, pairs = _number(packed, (int(np.max(key64)) + 1) * span)
    if len(pairs) > MAX_DISTINCT:
        return None
    prices: np.ndarray | None = None
    if given is not None and (given >= 0).any():
        gcodes, prices = _number(given + 1, int(given.max()) + 2)  # -1 (none) -> 0
        if len(prices) > MAX_DISTINCT:
            return None
        codes, triples = _number(codes * len(prices) + gcodes, len(pairs) * len(prices))
        if len(triples) > MAX_DISTINCT:
            return None
        pair_of, price_of = np.divmod(triples, len(prices))
        pairs, given_u = pairs[pair_of], prices[price_of] - 1
    else:
        given_u = None
    key_u, quantity_u = np.divmod(pairs, span)
    if quantities is not None:
        quantity_u = quantities[quantity_u]
    lines = _subjects(key_u.astype(np.intp), quantity_u, given_u, keyprice)
    if lines.overflow:
        return None
    return codes.astype(np.int16), lines
