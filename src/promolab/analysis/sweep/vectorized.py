"""numpy kernels for AMOUNT / PERCENT / FIXED discounts over many orders at once.

The arithmetic is `sim/pricing/discounts.py` + `money.py`, column-wise, in
int64 cents (no float ever touches an amount):

- percent: `pct/100 = p/q` (an exact fraction), `round_half_up(x * p/q)` is
  `(2*x*p + q) // (2*q)`;
- a per-line cap then a shared budget consumed in line order (an entry's
  `aggregated_quantity_limit` / `aggregated_amount_limit`, the discount's
  `aggregated_amount_limit`) is a grouped cumulative sum:
  `taken_i = min(B, P_i) - min(B, P_{i-1})` with `P` the running total of the
  lines' wishes inside the order (exact: a greedy budget gives
  `sum_{j<=i} taken_j = min(B, P_i)`). Entry budgets run before the discount's
  budget, as in the engine; once the discount's budget clips a line it is
  empty, so applying the two passes in sequence is exact;
- the proportional split is `money.split_proportionally` per order: water
  filling iterations run for all orders at once, shares round half up, and the
  remainder goes to the order's largest open line (first on ties); the rare
  order whose remainder does not fit in that line runs the engine's own loop.

Scope (`applicable_to`) is settled per key (product/SKU) with the engine's
`Scope.eligible`. A line matched by two entries that BOTH carry an aggregated
limit of the same kind shares two budgets at once; that case raises
`NotVectorizable` (the tier then takes the engine path).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...sim.pricing import CompiledTier
from .batch import Chunk, KeyTable
from .rulemasks import NotVectorizable

__all__ = ["DiscountKernel", "Overflow", "VECTORIZED_EFFECTS", "budget_pass", "split_groups"]

_BIG = np.iinfo(np.int64).max
_SAFE = 2**62

VECTORIZED_EFFECTS = {
    "AMOUNT": (
        "APPLY_TO_ORDER",
        "APPLY_TO_ITEMS",
        "APPLY_TO_ITEMS_BY_QUANTITY",
        "APPLY_TO_ITEMS_PROPORTIONALLY",
        "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY",
    ),
    "PERCENT": ("APPLY_TO_ORDER", "APPLY_TO_ITEMS"),
    "FIXED": ("APPLY_TO_ORDER", "APPLY_TO_ITEMS"),
}


class Overflow(ArithmeticError):
    """Products of amounts that could leave int64 (the chunk takes the engine path)."""


def _guard(*factors: int) -> None:
    product = 1
    for f in factors:
        product *= max(int(f), 1)
    if product >= _SAFE:
        raise Overflow(product)


def _half_up(x: np.ndarray, p: int, q: int) -> np.ndarray:
    """round_half_up(x * p / q) for x >= 0."""
    if x.size:
        _guard(2, int(x.max()) + 1, p + q)
    return (2 * p * x + q) // (2 * q)


def budget_pass(x: np.ndarray, mask: np.ndarray, order: np.ndarray, budget: int) -> None:
    """In place: lines in `mask` draw from a per-order budget, in line order."""
    idx = np.flatnonzero(mask)
    if not idx.size:
        return
    xs = x[idx]
    g = order[idx]
    cs = np.cumsum(xs)
    first = np.empty(g.size, dtype=bool)
    first[0] = True
    np.not_equal(g[1:], g[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    before = (cs - xs)[starts]
    running = cs - np.repeat(before, np.diff(np.append(starts, g.size)))
    x[idx] = np.minimum(running, budget) - np.minimum(running - xs, budget)


def _distribute(shares: np.ndarray, caps: np.ndarray, lines: np.ndarray, diff: int) -> None:
    """The engine's remainder loop (money.split_proportionally) on one order's open lines."""
    order = sorted(lines.tolist(), key=lambda i: (-int(caps[i]), i))
    for i in order:
        if diff == 0:
            break
        if diff > 0:
            step = min(int(caps[i] - shares[i]), diff)
        else:
            step = -min(int(shares[i]), -diff)
        shares[i] += step
        diff -= step


def split_groups(total: int, weights: np.ndarray, caps: np.ndarray, group: np.ndarray) -> np.ndarray:
    """`split_proportionally(total, weights, caps)` for every group at once.

    `group` is non-decreasing (an order index per line); each group is one
    order's eligible lines in line order.
    """
    n = group.size
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(group[1:], group[:-1], out=first[1:])
    gstarts = np.flatnonzero(first)
    gid = np.cumsum(first) - 1
    capsum = np.add.reduceat(caps, gstarts)
    _guard(int(capsum.max()) + 1, int(weights.max()) + 1, 2)
    _guard(int(caps.max()) + 1, int(np.add.reduceat(weights, gstarts).max()) + 1, 2)
    tot = np.minimum(total, capsum)
    shares = np.zeros(n, dtype=np.int64)
    open_ = (weights > 0) & (caps > 0) & (tot[gid] > 0)
    rem = tot.copy()
    zero = np.zeros(n, dtype=np.int64)
    while True:
        wsum = np.add.reduceat(np.where(open_, weights, zero), gstarts)
        capped = open_ & (rem[gid] * weights >= caps * wsum[gid])
        if not capped.any():
            break
        shares[capped] = caps[capped]
        rem = rem - np.add.reduceat(np.where(capped, caps, zero), gstarts)
        open_ &= ~capped
    if not open_.any():
        return shares
    wsum = np.add.reduceat(np.where(open_, weights, zero), gstarts)
    wl = np.maximum(wsum[gid], 1)
    raw = (2 * rem[gid] * weights + wl) // (2 * wl)
    shares[open_] = raw[open_]
    has_open = np.logical_or.reduceat(open_, gstarts)
    diff = rem - np.add.reduceat(np.where(open_, shares, zero), gstarts)
    todo = has_open & (rem > 0) & (diff != 0)
    if not todo.any():
        return shares
    capm = np.maximum.reduceat(np.where(open_, caps, -1), gstarts)
    top = np.flatnonzero(open_ & (caps == capm[gid]))
    tg = gid[top]
    keep = np.empty(top.size, dtype=bool)
    keep[0] = True
    np.not_equal(tg[1:], tg[:-1], out=keep[1:])
    top, tg = top[keep], tg[keep]
    d = diff[tg]
    selected = todo[tg]
    room = np.where(d > 0, caps[top] - shares[top], shares[top])
    fits = selected & (np.abs(d) <= room)
    shares[top[fits]] += d[fits]
    for g in tg[selected & ~fits].tolist():
        lines = np.flatnonzero((gid == g) & open_)
        _distribute(shares, caps, lines, int(diff[g]))
    return shares


class DiscountKernel:
    """A tier's AMOUNT/PERCENT/FIXED discount, bound to a batch's key table."""

    def __init__(self, tier: CompiledTier, keys: KeyTable) -> None:
        d = tier.amount_discount
        if d is None:
            raise NotVectorizable(f"{tier.kind} {tier.effect}: UNIT effects add lines")
        if tier.effect not in VECTORIZED_EFFECTS.get(tier.kind, ()):
            raise NotVectorizable(f"{tier.kind} {tier.effect} has no vectorized kernel")
        self.kind, self.effect = tier.kind, tier.effect
        self.order_level = d.order_level
        self.amount_off = d.amount_off
        self.fixed_amount = d.fixed_amount
        self.amount_limit = d.amount_limit
        self.aggregated = d.aggregated_amount_limit
        self.p = self.q = 0
        if d.percent is not None:
            frac = Fraction(d.percent) / 100
            self.p, self.q = frac.numerator, frac.denominator
        if not self.order_level:
            self._bind_scope(tier, keys)

    def _bind_scope(self, tier: CompiledTier, keys: KeyTable) -> None:
        scope = tier.scope
        n = len(keys)
        self.eligible = np.zeros(n, dtype=bool)
        qlimit = np.full(n, _BIG, dtype=np.int64)
        alimit = np.full(n, _BIG, dtype=np.int64)
        new_price = np.full(n, -1, dtype=np.int64)
        aggq = np.full(n, -1, dtype=np.int64)
        agga = np.full(n, -1, dtype=np.int64)
        index = {id(e): i for i, e in enumerate(scope.included)}
        for k, line in enumerate(keys.lines):
            found = scope.eligible([line])
            if not found:
                continue
            entries = found[0][1]
            self.eligible[k] = True
            q = [e.quantity_limit for e in entries if e.quantity_limit is not None]
            a = [e.amount_limit for e in entries if e.amount_limit is not None]
            if q:
                qlimit[k] = min(q)
            if a:
                alimit[k] = min(a)
            prices = [e.price for e in entries if e.price is not None]
            price = max(prices) if prices else self.fixed_amount
            if price is not None:
                new_price[k] = price
            for arr, attr in ((aggq, "aggregated_quantity_limit"), (agga, "aggregated_amount_limit")):
                shared = [index[id(e)] for e in entries if getattr(e, attr) is not None]
                if len(shared) > 1:
                    raise NotVectorizable(
                        f"a line matches {len(shared)} applicable_to entries with {attr} (shared budgets)"
                    )
                if shared:
                    arr[k] = shared[0]
        self.qlimit = qlimit if (qlimit < _BIG).any() else None
        self.alimit = alimit if (alimit < _BIG).any() else None
        self.new_price = new_price
        self.aggq = aggq if (aggq >= 0).any() else None
        self.agga = agga if (agga >= 0).any() else None
        self.qbudgets = [e.aggregated_quantity_limit for e in scope.included]
        self.abudgets = [e.aggregated_amount_limit for e in scope.included]

    # -- order level ------------------------------------------------------------------------
    def _order(self, amount: np.ndarray) -> np.ndarray:
        if self.kind == "AMOUNT":
            assert self.amount_off is not None
            return np.minimum(amount, self.amount_off)
        if self.kind == "PERCENT":
            value = _half_up(amount, self.p, self.q)
            if self.amount_limit is not None:
                np.minimum(value, self.amount_limit, out=value)
            return np.minimum(value, amount)
        assert self.fixed_amount is not None
        return np.maximum(amount - self.fixed_amount, 0)

    def evaluate(self, chunk: Chunk, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:
        """(discount, total, None) per order; meaningful where `valid`."""
        discount = self.discount(chunk, valid)
        return discount, chunk.amount - discount, None

    # -- item level -------------------------------------------------------------------------
    def discount(self, chunk: Chunk, valid: np.ndarray) -> np.ndarray:
        """Total discount per order of the chunk (meaningful where `valid`)."""
        if self.order_level:
            return self._order(chunk.amount)
        if not chunk.exact:
            raise Overflow("order amounts beyond 2**52")
        # Every eligible line is priced, valid order or not: orders never share
        # lines or budgets, and the caller keeps the valid ones.
        key = chunk.key
        el = self.eligible[key]
        if not el.any():
            return np.zeros(chunk.n, dtype=np.int64)
        qty, amount = chunk.quantity, chunk.line_amount
        units = qty if self.qlimit is None else np.minimum(qty, self.qlimit[key])
        if self.aggq is not None:
            units = units.copy()
            aggq = self.aggq[key]
            for e in np.unique(aggq[el & (aggq >= 0)]).tolist():
                budget_pass(units, el & (aggq == e), chunk.order, int(self.qbudgets[e]))  # type: ignore[arg-type]
        if units is qty:
            base = amount
        else:
            partial = np.minimum(chunk.price * units, amount)
            base = np.where(units == qty, amount, np.where(chunk.has_price, partial, 0))
        cap = base if self.alimit is None else np.minimum(base, self.alimit[key])
        value = self._lines(chunk, el, units, base, cap)
        np.multiply(value, el, out=value)
        if self.agga is not None:
            agga = self.agga[key]
            for e in np.unique(agga[el & (agga >= 0)]).tolist():
                budget_pass(value, el & (agga == e), chunk.order, int(self.abudgets[e]))  # type: ignore[arg-type]
        if self.aggregated is not None:
            budget_pass(value, el, chunk.order, self.aggregated)
        return chunk.segment_sum(value)

    def _lines(self, chunk: Chunk, el: np.ndarray, units: np.ndarray, base: np.ndarray,
               cap: np.ndarray) -> np.ndarray:
        effect = self.effect
        if self.kind == "AMOUNT":
            off = self.amount_off
            assert off is not None
            if effect == "APPLY_TO_ITEMS":
                return np.minimum(cap, off)
            if effect == "APPLY_TO_ITEMS_BY_QUANTITY":
                _guard(int(units.max()) + 1, off + 1)
                return np.minimum(cap, units * off)
            weights = base if effect == "APPLY_TO_ITEMS_PROPORTIONALLY" else units
            idx = np.flatnonzero(el)
            value = np.zeros(chunk.key.size, dtype=np.int64)
            g = chunk.order[idx]
            value[idx] = split_groups(off, weights[idx], cap[idx], g)
            return value
        if self.kind == "PERCENT":
            raw = _half_up(base, self.p, self.q)
            if self.amount_limit is not None:
                np.minimum(raw, self.amount_limit, out=raw)
            return np.minimum(raw, cap)
        new_price = self.new_price[chunk.key]
        priced = chunk.has_price & (new_price >= 0)
        raw = np.maximum(chunk.price - new_price, 0)
        if raw.size:
            _guard(int(raw.max()) + 1, int(units.max()) + 1)
        raw = np.where(priced, raw * units, 0)
        return np.minimum(raw, cap)
