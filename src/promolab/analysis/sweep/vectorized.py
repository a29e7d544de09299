"""numpy kernels for AMOUNT / PERCENT / FIXED discounts over many orders at once.

The arithmetic is `engine/amount_discounts.py` + `money.py`, column-wise, in
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

Only the order's total discount is reported, and for most tiers it is a
function of per-order SUMS of per-line values (`columns` / `from_sums`, the
fast path: the per-line arithmetic runs once per distinct line, see
`lineset`, and a chunk only sums): a greedy budget gives away
`min(B, sum of the wishes)`, entry budgets then the discount's budget give
`min(A, sum_e min(B_e, S_e) + S_rest)`, and a proportional split gives away
`min(amount_off, sum of the caps of the lines with a weight > 0)` (see
`from_sums`). Two cases follow the lines in order (`discount`): quantity
budgets (the units left feed the per-line arithmetic), and a proportional
split under entry amount budgets (each line's share is clipped).

Scope (`applicable_to`) is settled per key (product/SKU) with the engine's
`Scope.eligible`. A line matched by two entries that BOTH carry an aggregated
limit of the same kind shares two budgets at once; that case raises
`NotVectorizable` (the tier then takes the engine path).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...engine import EFFECTS, CompiledTier
from .batch import Chunk, KeyTable
from .lineset import LineSet
from .rulemasks import NotVectorizable

__all__ = ["VECTORIZED_EFFECTS", "DiscountKernel", "Overflow", "budget_pass", "split_groups"]

_BIG = np.iinfo(np.int64).max
_SAFE = 2**62

#: Every effect of the monetary discount types is vectorized (UNIT is not).
VECTORIZED_EFFECTS = {kind: EFFECTS[kind] for kind in ("AMOUNT", "PERCENT", "FIXED")}


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


def _entry_passes(x: np.ndarray, entry: np.ndarray, entries: list[int], budgets: list[int | None],
                  el: np.ndarray | None, order: np.ndarray) -> None:
    """In place: each `applicable_to` entry's aggregated budget drawn by its
    lines (`entry`: the entry index per line, -1 none; `el`: None, every line)."""
    for e in entries:
        mine = entry == e
        budget_pass(x, mine if el is None else mine & el, order, int(budgets[e] or 0))


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
        if tier.scope.budgeted:
            raise NotVectorizable("unit budgets (product_*_quantity_limit) depend on the units redeemed before")
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
        self.proportional = self.effect in ("APPLY_TO_ITEMS_PROPORTIONALLY", "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY")
        self.agga: np.ndarray | None = None
        self.aggq: np.ndarray | None = None
        self.agga_entries: list[int] = []
        self.aggq_entries: list[int] = []
        if not self.order_level:
            self._bind_scope(tier, keys)
        #: The discount is a function of per-order sums of per-line values (see `from_sums`);
        #: else `discount` follows the lines in order (quantity budgets feed the line
        #: arithmetic; a split under entry budgets needs each line's share).
        self.summable = self.order_level or (self.aggq is None and not (self.proportional and self.agga is not None))

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
        self.agga_entries = np.unique(agga[agga >= 0]).tolist()
        self.aggq_entries = np.unique(aggq[aggq >= 0]).tolist()
        self.qbudgets = [e.aggregated_quantity_limit for e in scope.included]
        self.abudgets = [e.aggregated_amount_limit for e in scope.included]

    # -- order level ------------------------------------------------------------------------
    def order_values(self, base: np.ndarray) -> np.ndarray:
        """An APPLY_TO_ORDER discount of each order amount in `base` (a new array)."""
        return self._order(base)

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

    # -- item level, summed per order (the common case) -----------------------------------
    def columns(self, lines: LineSet) -> list[np.ndarray]:
        """Per-subject columns whose per-order sums `from_sums` turns into the discount.

        Only for `summable` kernels: an order's discount is then a function of
        sums over its lines (see the module docstring), so the per-line
        arithmetic runs once per distinct line. Raises `Overflow`.
        """
        assert self.summable and not self.order_level
        n_cols = 1 + len(self.agga_entries)
        if not lines.size:
            return [np.zeros(0, dtype=np.int64)] * n_cols
        key = lines.key
        el = self.eligible.take(key)
        units, base, cap = self._units_base_cap(key, lines.quantity, lines.price, lines.has_price, lines.amount)
        if self.proportional:
            weights = base if self.effect == "APPLY_TO_ITEMS_PROPORTIONALLY" else units
            value = np.where(el & (weights > 0), cap, 0)
        else:
            value = self._capped(key, lines.price, lines.has_price, units, base, cap)
            np.multiply(value, el, out=value)
        if self.agga is None:
            return [value]
        agga = self.agga.take(key)
        return [np.where(agga < 0, value, 0)] + [np.where(agga == e, value, 0) for e in self.agga_entries]

    def from_sums(self, sums: np.ndarray | None, amount: np.ndarray) -> np.ndarray:
        """Discount per order from the per-order sums of `columns` (rows) and the order amounts.

        Exact: a budget consumed greedily in line order gives away
        `min(budget, sum of the wishes)`, and a proportional split gives away
        `min(amount_off, sum of the caps of the lines with a weight)`. An
        order-level kernel reads the amounts only (its `sums` may be None).
        """
        if self.order_level:
            return self._order(amount)
        if sums is None:
            raise ValueError("an item-level kernel needs the per-order sums of its columns")
        total = sums[0]
        for row, entry in enumerate(self.agga_entries, start=1):
            total = total + np.minimum(sums[row], int(self.abudgets[entry] or 0))
        if self.proportional:
            assert self.amount_off is not None
            total = np.minimum(total, self.amount_off)
        if self.aggregated is not None:
            total = np.minimum(total, self.aggregated)
        return total

    # -- item level, line by line in order (quantity budgets; splits under entry budgets) ---
    def discount(self, chunk: Chunk, valid: np.ndarray) -> np.ndarray:
        """Total discount per order of the chunk (meaningful where `valid`)."""
        if self.order_level:
            return self._order(chunk.amount)
        if not chunk.exact:
            raise Overflow("order amounts beyond 2**52")
        # Every eligible line is priced, valid order or not: orders never share
        # lines or budgets, and the caller keeps the valid ones. Only the
        # eligible lines are followed (a line out of scope takes nothing and
        # draws from no budget): the arithmetic runs on a fraction of the lines.
        at = np.flatnonzero(self.eligible.take(chunk.key))
        if not at.size:
            return np.zeros(chunk.n, dtype=np.int64)
        price, has_price, amount = chunk.lines_at(at)
        order = chunk.order.take(at)
        values = self.line_values(chunk.key.take(at), chunk.quantity.take(at), price, has_price, amount, order)
        return chunk.segment_sum(values, order)

    def line_values(self, key: np.ndarray, quantity: np.ndarray, price: np.ndarray, has_price: np.ndarray,
                    amount: np.ndarray, order: np.ndarray, el: np.ndarray | None = None) -> np.ndarray:
        """Each line's discount (0 outside `el`), lines of one order contiguous
        and in order (`order`: a non-decreasing order index per line).

        `el` may be narrower than the scope (stacking: lines an earlier
        discount took under the products mode ONCE) and `amount` other than
        price x quantity (stacking: a line's amount less earlier discounts);
        None: every line given is eligible (the caller kept only those).
        """
        units, base, cap = self._units_base_cap(key, quantity, price, has_price, amount, order, el)
        if self.proportional:
            assert self.amount_off is not None
            weights = base if self.effect == "APPLY_TO_ITEMS_PROPORTIONALLY" else units
            if el is None:
                value = split_groups(self.amount_off, weights, cap, order) if key.size else np.zeros(0, np.int64)
            else:
                idx = np.flatnonzero(el)
                value = np.zeros(key.size, dtype=np.int64)
                if idx.size:
                    value[idx] = split_groups(self.amount_off, weights[idx], cap[idx], order[idx])
        else:
            value = self._capped(key, price, has_price, units, base, cap)
        if el is not None:
            np.multiply(value, el, out=value)
        if self.agga is not None:
            _entry_passes(value, self.agga.take(key), self.agga_entries, self.abudgets, el, order)
        if self.aggregated is not None:
            budget_pass(value, el if el is not None else np.ones(key.size, dtype=bool), order, self.aggregated)
        return value

    # -- per-line arithmetic, shared by both ------------------------------------------------
    def _units_base_cap(
        self, key: np.ndarray, qty: np.ndarray, price: np.ndarray, has_price: np.ndarray, amount: np.ndarray,
        order: np.ndarray | None = None, el: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Units kept by quantity limits (and, given `order`, quantity budgets in line
        order), the amount they are worth (`base`) and its cap per line."""
        units = qty if self.qlimit is None else np.minimum(qty, self.qlimit.take(key))
        if self.aggq is not None:
            assert order is not None
            units = units.copy()
            _entry_passes(units, self.aggq.take(key), self.aggq_entries, self.qbudgets, el, order)
        if units is qty:
            base = amount
        else:
            partial = np.minimum(price * units, amount)
            base = np.where(units == qty, amount, np.where(has_price, partial, 0))
        cap = base if self.alimit is None else np.minimum(base, self.alimit.take(key))
        return units, base, cap

    def _capped(self, key: np.ndarray, price: np.ndarray, has_price: np.ndarray, units: np.ndarray,
                base: np.ndarray, cap: np.ndarray) -> np.ndarray:
        """Each line's discount before budgets (every effect but the proportional ones); a new array."""
        effect = self.effect
        if self.kind == "AMOUNT":
            off = self.amount_off
            assert off is not None
            if effect == "APPLY_TO_ITEMS":
                return np.minimum(cap, off)
            _guard(int(units.max()) + 1, off + 1)  # APPLY_TO_ITEMS_BY_QUANTITY
            return np.minimum(cap, units * off)
        if self.kind == "PERCENT":
            raw = _half_up(base, self.p, self.q)
            if self.amount_limit is not None:
                np.minimum(raw, self.amount_limit, out=raw)
            return np.minimum(raw, cap)
        new_price = self.new_price.take(key)
        priced = has_price & (new_price >= 0)
        raw = np.maximum(price - new_price, 0)
        if raw.size:
            _guard(int(raw.max()) + 1, int(units.max()) + 1)
        raw = np.where(priced, raw * units, 0)
        return np.minimum(raw, cap)
