"""Evaluating bound tiers over a range of orders, chunk by chunk, into output arrays.

Outputs are flat arrays of N x T rows, order-major (row = order * T + tier),
so a chunk's rows are one contiguous block seen as an (orders x tiers)
matrix, written in place: no concatenation, no pandas object in the loop.
Flags go straight into the tier's column; discounts into a contiguous
(tiers x orders) scratch copied into the block once per chunk, and the
totals (mostly `amount - discount`) in one pass over the block. The same
function serves the pandas engine (one thread) and the dask engine (one call
per partition, on a thread or a worker).

Per chunk, one pass over the lines sums the order amounts, quantities and the
per-line columns of every summable tier at once (`TierColumns`, `padded`);
each tier then costs a few operations per order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .batch import Chunk, base_table
from .fallback import EngineOrders, EnginePricing, engine_path
from .lineset import LineSet
from .plan import BoundTier
from .vectorized import DiscountKernel, Overflow

if TYPE_CHECKING:
    from .bound import BoundSweep  # which imports this module's evaluate_range

__all__ = ["DEFAULT_CHUNK", "Outputs", "TierColumns", "evaluate_range"]

#: Orders per chunk: big enough that each numpy call runs long with the GIL
#: released (fewer handoffs between dask threads: at 8,192 the threads wait
#: for the GIL about twice as long), small enough that the sums (done 8,192
#: orders at a time) and a tier's temporaries stay in a core's L2 cache; the
#: output block is written in a few whole passes, so its size matters less.
DEFAULT_CHUNK = 16_384
#: A tier whose campaign runs for fewer than 1/_FEW of a chunk's orders (a dated
#: sweep: a two-hour daily window) is evaluated on those orders alone. Gathering
#: them (lines, grid, sums) costs about what a cheap tier costs on the whole
#: chunk: at a quarter of the orders a one-unit kernel was slower that way.
_FEW = 8


@dataclass
class Outputs:
    """The sweep's output columns, zeroed at allocation (tiers write only what differs).

    `order_code` / `tier_code` (the frame's categorical codes: order position,
    tier position) are optional: when allocated, the chunks fill them as they
    go (in parallel under dask), else `build_frame` makes them.
    """

    n_orders: int
    n_tiers: int
    valid: np.ndarray
    discount: np.ndarray
    na: np.ndarray
    total: np.ndarray
    reason: np.ndarray
    order_code: np.ndarray | None = None
    tier_code: np.ndarray | None = None

    @classmethod
    def allocate(cls, n_orders: int, n_tiers: int, *, codes: bool = False) -> Outputs:
        rows = n_orders * n_tiers
        return cls(
            n_orders, n_tiers,
            valid=np.zeros(rows, dtype=bool),
            discount=np.zeros(rows, dtype=np.int64),
            na=np.zeros(rows, dtype=bool),
            total=np.zeros(rows, dtype=np.int64),
            reason=np.zeros(rows, dtype=np.int8),
            order_code=np.empty(rows, dtype=order_code_dtype(n_orders)) if codes else None,
            tier_code=np.empty(rows, dtype=tier_code_dtype(n_tiers)) if codes else None,
        )

    def block(self, a: int, b: int) -> Outputs:
        """Orders a..b-1 as (orders x tiers) matrix views."""
        rows = slice(a * self.n_tiers, b * self.n_tiers)
        shape = (b - a, self.n_tiers)
        return Outputs(
            b - a, self.n_tiers,
            valid=self.valid[rows].reshape(shape),
            discount=self.discount[rows].reshape(shape),
            na=self.na[rows].reshape(shape),
            total=self.total[rows].reshape(shape),
            reason=self.reason[rows].reshape(shape),
            order_code=self.order_code[rows].reshape(shape) if self.order_code is not None else None,
            tier_code=self.tier_code[rows].reshape(shape) if self.tier_code is not None else None,
        )

    def fill_codes(self, first: int, pattern: CodePattern) -> None:
        """A block's categorical codes: order positions from `first`, tier positions."""
        if self.order_code is not None and self.tier_code is not None:
            size = self.n_orders * self.n_tiers
            np.add(pattern.order[:size], first, out=self.order_code.reshape(-1))
            self.tier_code.reshape(-1)[...] = pattern.tier[:size]


class CodePattern:
    """Codes of a chunk's block from position 0, made once: a chunk's codes are then
    one contiguous add and one copy (broadcasting rows is several times slower)."""

    def __init__(self, out: Outputs, chunk_size: int) -> None:
        size = min(chunk_size, out.n_orders)
        if out.order_code is None or out.tier_code is None:
            self.order = self.tier = np.zeros(0, dtype=np.int8)
            return
        self.order = np.repeat(np.arange(size, dtype=out.order_code.dtype), out.n_tiers)
        self.tier = np.tile(np.arange(out.n_tiers, dtype=out.tier_code.dtype), size)


def order_code_dtype(n_orders: int) -> type[np.signedinteger]:
    return np.int32 if n_orders < 2**31 else np.int64


def tier_code_dtype(n_tiers: int) -> type[np.signedinteger]:
    return np.int8 if n_tiers < 127 else np.int32


class TierColumns:
    """The stacked per-subject table of a chunk: [amount, quantity, *each summable tier's columns].

    Built once per set of line subjects (per evaluation for a batch's distinct
    lines, per chunk for a chunk's own lines). A tier whose columns overflow
    int64 on these subjects is left out: it follows its lines (`discount`),
    which sends the chunks concerned to the engine.
    """

    def __init__(self, tiers: Sequence[BoundTier]) -> None:
        self.kernels = {
            t: bt.kernel for t, bt in enumerate(tiers)
            if not bt.campaign_code and isinstance(bt.kernel, DiscountKernel)
            and bt.kernel.summable and not bt.kernel.order_level
        }

    def _built(self, lines: LineSet) -> tuple[np.ndarray, dict[int, slice]]:
        found = lines.memo.get(id(self))
        if found is None:
            columns: list[np.ndarray] = []
            rows: dict[int, slice] = {}
            for t, kernel in self.kernels.items():
                try:
                    made = kernel.columns(lines)
                except Overflow:
                    continue
                rows[t] = slice(len(columns), len(columns) + len(made))
                columns.extend(made)
            table = base_table(lines) if not columns else np.zeros((lines.size + 1, 2 + len(columns)), np.int64)
            if columns:
                table[:-1, 0] = lines.amount
                table[:-1, 1] = lines.quantity
                for i, column in enumerate(columns):
                    table[:-1, 2 + i] = column
            found = lines.memo[id(self)] = (table, rows)
        return found

    def table(self, lines: LineSet) -> np.ndarray:
        return self._built(lines)[0]

    def sums(self, chunk: Chunk, t: int) -> np.ndarray | None:
        """Tier t's column sums for the chunk (rows), None when it has none."""
        rows = self._built(chunk.lines)[1].get(t)
        return chunk.column_sums[rows] if rows is not None else None


def _engine(bt: BoundTier, pricing: EnginePricing, candidates: Sequence[int] | range, out: Outputs, t: int,
            discount: np.ndarray) -> np.ndarray:
    """The per-request engine on `candidates` (chunk positions); the rest stay invalid.
    Returns the tier's totals."""
    chunk = pricing.orders.chunk
    n = chunk.n
    valid = np.zeros(n, dtype=bool)
    na = np.zeros(n, dtype=bool)
    total = chunk.amount.copy()
    reason = out.reason[:, t].copy()
    discount.fill(0)
    engine_path(bt.tier, pricing, candidates, valid, discount, na, total, reason)
    out.valid[:, t] = valid
    out.na[:, t] = na
    out.reason[:, t] = reason
    return total


def _kernel(bt: BoundTier, chunk: Chunk, sums: np.ndarray | None, ok: np.ndarray | None
            ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None] | None:
    """The tier's vectorized discount over the chunk: (discount, totals, not
    monetary), the last two None for AMOUNT / PERCENT / FIXED; None when the
    tier has no kernel or its arithmetic could leave int64 (the engine decides)."""
    kernel = bt.kernel
    if kernel is None:
        return None
    try:
        if isinstance(kernel, DiscountKernel):
            if kernel.order_level or sums is not None:
                return kernel.from_sums(sums, chunk.amount), None, None
            return kernel.discount(chunk, ok if ok is not None else np.ones(chunk.n, dtype=bool)), None, None
        return kernel.evaluate(chunk, ok if ok is not None else np.ones(chunk.n, dtype=bool))
    except Overflow:
        return None


def _evaluate_live(bt: BoundTier, t: int, chunk: Chunk, live: np.ndarray, sums: np.ndarray | None, out: Outputs,
                   discount: np.ndarray) -> tuple[bool, np.ndarray | None]:
    """A dated sweep's tier whose campaign runs for few of the chunk's orders:
    its rules and kernel on those orders alone (`Chunk.subset`); the others
    keep the campaign's reason and nothing else. (done, totals): not done
    when the subset cannot be made or the arithmetic needs the engine."""
    at = np.flatnonzero(live)
    sub = chunk.subset(at)
    if sub is None:
        return False, None
    ok: np.ndarray | None = None
    if bt.rules is not None and bt.rules.program.tree is not None:
        ok, reason = bt.rules.evaluate(sub)
        out.reason[at, t] = reason
    found = _kernel(bt, sub, sums.take(at, axis=1) if sums is not None else None, ok)
    if found is None:
        return False, None
    raw, total, na = found
    passes = ok if ok is not None else np.ones(at.size, dtype=bool)
    out.valid[at, t] = passes
    discount.fill(0)
    discount[at] = raw * passes
    if total is None or na is None:  # AMOUNT / PERCENT / FIXED
        return True, None
    out.na[at, t] = na & passes
    totals = chunk.amount.copy()
    totals[at] = np.where(passes, total, sub.amount)
    return True, totals


def _evaluate_tier(bt: BoundTier, t: int, chunk: Chunk, sums: np.ndarray | None, pricing: EnginePricing,
                   out: Outputs, discount: np.ndarray) -> np.ndarray | None:
    """Tier t over the chunk: flags into column t of `out` (a zeroed block), the
    discounts into `discount` (the tier's row of the chunk's scratch, every
    entry written); returns the totals when they are not `amount - discount`
    (UNIT lines, the engine)."""
    if bt.campaign_code:
        out.reason[:, t] = bt.campaign_code
        discount.fill(0)
        return None
    # A dated sweep whose campaign verdict varies: orders outside the campaign
    # fail with its reason before any rule (the engine's order of checks).
    assert not chunk.is_subset  # a subset's a..b are its parent's
    blocked = bt.campaign_codes[chunk.a:chunk.b] if bt.campaign_codes is not None else None
    live = None
    if blocked is not None and blocked.any():
        live = blocked == 0
        out.reason[:, t] = blocked
    if chunk.overflow:  # amounts that may leave int64: the engine decides everything
        everyone = range(chunk.n) if live is None else np.flatnonzero(live).tolist()
        return _engine(bt, pricing, everyone, out, t, discount)
    if live is not None and bt.kernel is not None and _FEW * int(np.count_nonzero(live)) < chunk.n:
        done, totals = _evaluate_live(bt, t, chunk, live, sums, out, discount)
        if done:
            return totals
    ok: np.ndarray | None = None  # None: every order passes (no rules)
    if bt.rules is not None and bt.rules.program.tree is not None:
        ok, reason = bt.rules.evaluate(chunk)
        out.reason[:, t] = reason if live is None else np.where(live, reason, blocked)
    if live is not None:
        ok = live if ok is None else ok & live  # a new array: rule masks are shared
    found = _kernel(bt, chunk, sums, ok)
    if found is not None:
        raw, total, na = found
        if ok is None:
            out.valid[:, t] = True
            discount[...] = raw
        else:
            out.valid[:, t] = ok
            np.multiply(raw, ok, out=discount)
        if total is None or na is None:  # AMOUNT / PERCENT / FIXED
            return None
        out.na[:, t] = na if ok is None else na & ok
        return total if ok is None else np.where(ok, total, chunk.amount)
    # engine path: every order (fallback, or no rules) or the ones passing the masks (hybrid)
    candidates = np.flatnonzero(ok).tolist() if ok is not None else range(chunk.n)
    return _engine(bt, pricing, candidates, out, t, discount)


def evaluate_range(
    bound: BoundSweep,
    a: int,
    b: int,
    out: Outputs,
    *,
    offset: int = 0,
    chunk_size: int = DEFAULT_CHUNK,
    on_chunk: Callable[[int], None] | None = None,
    width: int | None = None,
) -> None:
    """Orders a..b-1 of `bound.batch` into `out` rows (a - offset)..(b - offset), which must be zeroed.

    A tier's discounts go to a contiguous row of a (tiers x orders) scratch,
    copied into the order-major block once per chunk: writing int64 columns
    straight into the block costs more as soon as the block outgrows the L2
    cache. `width`: the padded grid's width (tests force long orders past it).
    On the engine path each order is priced with its own context (`bound.clock`:
    a dated batch, per-order metadata).
    """
    tiers, batch, catalogue, clock = bound.tiers, bound.batch, bound.catalogue, bound.clock
    distinct = batch.distinct.fresh() if batch.distinct is not None else None
    columns = TierColumns(tiers)
    pattern = CodePattern(out, chunk_size)
    scratch = np.empty((len(tiers), min(chunk_size, max(b - a, 0))), dtype=np.int64)
    for c0 in range(a, b, chunk_size):
        c1 = min(b, c0 + chunk_size)
        n = c1 - c0
        chunk = Chunk(batch, c0, c1, distinct, stack=columns.table, width=width)
        pricing = EnginePricing(EngineOrders(chunk), catalogue, clock)
        block = out.block(c0 - offset, c1 - offset)
        block.fill_codes(c0 - offset, pattern)
        totals = {}
        for t, bt in enumerate(tiers):
            total = _evaluate_tier(bt, t, chunk, columns.sums(chunk, t), pricing, block, scratch[t, :n])
            if total is not None:
                totals[t] = total
        block.discount[...] = scratch[:, :n].T
        # Most totals are amount - discount (0 when invalid): one pass over the block.
        np.subtract(chunk.amount[:, None], block.discount, out=block.total)
        for t, total in totals.items():
            block.total[:, t] = total
        if on_chunk is not None:
            on_chunk(n)
