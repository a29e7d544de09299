"""UNIT (free item) discounts, column-wise: `engine.stacking.running_units` over a chunk.

Used by a stack's running arrays (`stacking_policies.running_arrays`) and, for
one ADD_MANY_ITEMS tier alone, by the sweep (`unitkernel.ManyUnitKernel`: a
stack of one on the order as sent).

The engine's rules (`unit_discounts.apply_units` then `running_units.unit_step`),
in array form, per UNIT target (the product or SKU a unit adds) and order:

- the line a unit reaches is the order's first line of the target as sent
  (a SKU unit: a line of that SKU; a product unit: a line of that product
  without a SKU), else the line an earlier UNIT discount of the stack
  appended (held in one pre-allocated column per target: quantity, amount,
  discount so far), else a new one, priced from the catalogue (SKU price
  first);
- per unit, in the tier's order: ADD_NEW_ITEMS adds N, ADD_MISSING_ITEMS
  tops up to N; N units are discounted (at most the line's quantity); the
  line's discount is `min(price x discounted units, amount)`, at most its
  running subtotal;
- products mode ONCE: a line already in the order that an earlier redeemable
  discounted is out of reach (the units aimed at it are dropped);
- the added priced units raise the order's amount: the running total moves by
  what they add less what the step takes.

Which line is "of the target" is `unit_lines` (the engine's match in array
form, shared with the single-unit kernel). Rules tried after a UNIT
discount read the lines it left (`lines_chunk`: the orders rebuilt with the
raised quantities and the appended lines, whose keys `with_target_keys` adds
to the batch's before rules bind).

Not held here, and so sent back to the engine by the caller, order by order:
a step whose discounts pass the running total (the engine then trims from the
last lines, which can leave an appended line partly discounted). Otherwise an
appended line always ends fully discounted (its subtotal 0), so later item
discounts take nothing of it and it needs no key of its own. The
differential tests (tests/analysis/test_stacking_policies.py) check every
cell against `evaluate_stack`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...engine import Catalogue, CompiledTier
from .batch import Chunk, KeyTable, OrderBatch, resolve_keys
from .vectorized import Overflow

__all__ = ["UnitArrays", "UnitPlan", "UnitTaken", "UnitTargets", "unit_lines"]

#: Products of prices and unit counts stay exact in int64 below this.
_SAFE = 1 << 62


def unit_lines(unit_type: str, keys: KeyTable, catalogue: Catalogue) -> tuple[np.ndarray, int]:
    """(per key: a line of the unit's product or SKU, as `apply_units` matches
    it; the unit price of a new line, -1 when none): what every column-wise
    UNIT discount reads (`unitkernel`, `UnitTargets`)."""
    product, sku = catalogue.unit_target(unit_type)
    price = sku.price if sku is not None and sku.price is not None else product.price
    hit = np.array([
        (line.sku_id == sku.id) if sku is not None
        else (line.product_id == product.id and line.sku_id is None)
        for line in keys.lines
    ], dtype=bool)
    return hit, -1 if price is None else int(price)


@dataclass(frozen=True)
class UnitTarget:
    """A product or SKU a UNIT discount of the stack adds."""

    #: Per key of the batch: a line of the target.
    hit: np.ndarray
    #: The catalogue price of a new line (-1: none, the unit has no amount).
    price: int


class UnitTargets:
    """The stack's UNIT targets, one index each (shared by its UNIT discounts)."""

    def __init__(self, keys: KeyTable, catalogue: Catalogue) -> None:
        self.keys, self.catalogue = keys, catalogue
        self.targets: list[UnitTarget] = []
        self._index: dict[tuple[str, str | None], int] = {}
        #: Per target, the key of the line it appends (`with_target_keys`).
        self.key_of: list[int] = []
        self.all_keys = keys

    def with_target_keys(self) -> KeyTable:
        """The batch's keys and, after them, a key per target no line of the
        batch has: what rules and kernels bind to, so that they read an
        appended line as the engine's `running_units._new_line` makes it."""
        keys = self.keys
        have = {pair: k for k, pair in enumerate(zip(keys.product_ids, keys.sku_ids))}
        extra: list[tuple[str | None, str | None]] = []
        self.key_of = []
        for product_id, sku_id in self._index:
            pair = (product_id or None, sku_id)
            if pair not in have:
                have[pair] = len(keys) + len(extra)
                extra.append(pair)
            self.key_of.append(have[pair])
        if extra:
            more = resolve_keys(self.catalogue, [p for p, _ in extra], [s for _, s in extra])
            keys = KeyTable(keys.product_ids + more.product_ids, keys.sku_ids + more.sku_ids, keys.lines + more.lines,
                            np.concatenate([keys.price, more.price]), np.concatenate([keys.known, more.known]))
        self.all_keys = keys
        return keys

    def index(self, unit_type: str) -> int:
        product, sku = self.catalogue.unit_target(unit_type)
        name = (product.id, sku.id if sku is not None else None)
        found = self._index.get(name)
        if found is None:
            found = self._index[name] = len(self.targets)
            self.targets.append(UnitTarget(*unit_lines(unit_type, self.keys, self.catalogue)))
        return found


@dataclass(frozen=True)
class UnitPlan:
    """One UNIT discount: its units, in order, as (target, N, ADD_NEW_ITEMS)."""

    units: tuple[tuple[int, int, bool], ...]
    targets: UnitTargets

    @classmethod
    def of(cls, tier: CompiledTier, targets: UnitTargets) -> UnitPlan:
        return cls(tuple((targets.index(u.unit_type), u.unit_off, u.effect == "ADD_NEW_ITEMS") for u in tier.units),
                   targets)


@dataclass
class UnitTaken:
    """What one UNIT discount does per order, before the caller applies it."""

    taken: np.ndarray
    added: np.ndarray
    added_units: np.ndarray
    #: Orders the arrays do not hold (the engine prices them).
    hard: np.ndarray
    #: Per target it reaches: (whether a line as sent, its position or -1,
    #: units added, cents added, cents off), per order.
    per_target: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
    #: Per order: some unit with a price was discounted (`UnitResult.monetary`).
    monetary: np.ndarray


class UnitArrays:
    """The lines of a chunk's orders as UNIT discounts left them."""

    def __init__(self, chunk: Chunk, targets: UnitTargets) -> None:
        self.chunk = chunk
        self.targets = targets
        #: the lines as sent, with the units added to them
        self.quantity = chunk.quantity.astype(np.int64, copy=True)
        self.line_amount = chunk.line_amount.astype(np.int64, copy=True)
        n = chunk.n
        k = len(targets.targets)
        #: each target's appended line per order: quantity, amount, discount so far
        self.app_quantity = np.zeros((k, n), dtype=np.int64)
        self.app_amount = np.zeros((k, n), dtype=np.int64)
        self.app_done = np.zeros((k, n), dtype=np.int64)
        #: whether the order has the target's appended line (a line of 0 units too)
        self.app_exists = np.zeros((k, n), dtype=bool)
        #: orders whose lines a UNIT discount changed
        self.changed = np.zeros(n, dtype=bool)
        self._first: dict[int, np.ndarray] = {}
        self._lines: Chunk | None = None

    def first(self, t: int) -> np.ndarray:
        """Per order: the position of its first line (as sent) of target t, or -1."""
        found = self._first.get(t)
        if found is None:
            chunk = self.chunk
            found = np.full(chunk.n, -1, dtype=np.int64)
            pos = np.flatnonzero(self.targets.targets[t].hit.take(chunk.key))
            if pos.size:
                owner = chunk.order.take(pos)
                keep = np.ones(pos.size, dtype=bool)
                keep[1:] = owner[1:] != owner[:-1]
                found[owner[keep]] = pos[keep]
            self._first[t] = found
        return found

    def step(self, plan: UnitPlan, done: np.ndarray, total: np.ndarray, once: bool) -> UnitTaken:
        """`plan`'s units on every order (`done`: each line's item discount so
        far, `total`: the running total)."""
        chunk = self.chunk
        n = chunk.n
        state: dict[int, list[np.ndarray]] = {}
        for t, big, new in plan.units:
            if t not in state:
                first = self.first(t)
                sent = first >= 0
                at = np.where(sent, first, 0)
                target = self.targets.targets[t]
                if chunk.key.size:
                    price = np.where(sent, np.where(chunk.has_price.take(at), chunk.price.take(at), -1), target.price)
                    q0 = np.where(sent, self.quantity.take(at), self.app_quantity[t])
                    a0 = np.where(sent, self.line_amount.take(at), self.app_amount[t])
                    d0 = np.where(sent, done.take(at), self.app_done[t])
                else:
                    price = np.full(n, target.price, dtype=np.int64)
                    q0, a0, d0 = self.app_quantity[t].copy(), self.app_amount[t].copy(), self.app_done[t].copy()
                state[t] = [sent, first, price, q0, a0, d0, q0.copy(), a0.copy(), np.zeros(n, dtype=np.int64)]
            s = state[t]
            price, q, a, dq = s[2], s[6], s[7], s[8]
            add = np.full(n, big, dtype=np.int64) if new else np.maximum(big - q, 0)
            if int(price.max(initial=0)) * max(big, 1) >= _SAFE or int(q.max(initial=0)) + big >= _SAFE:
                raise Overflow(f"{big} units")
            q += add
            np.minimum(dq + big, q, out=dq)
            a += np.where(price >= 0, price * add, 0)
        taken = np.zeros(n, dtype=np.int64)
        added = np.zeros(n, dtype=np.int64)
        added_units = np.zeros(n, dtype=np.int64)
        per_target = {}
        monetary = np.zeros(n, dtype=bool)
        for t, (sent, first, price, q0, a0, d0, q, a, dq) in state.items():
            monetary |= (price >= 0) & (dq > 0)
            # ONCE: a line already in the order and discounted is out of reach (an
            # appended line has a discount only once it is in the order)
            kept = d0 == 0 if once else np.ones(n, dtype=bool)
            off = np.where(price >= 0, np.minimum(price * dq, a), 0)
            off = np.minimum(off, a - d0) * kept
            grown = (a - a0) * kept
            units = (q - q0) * kept
            taken += off
            added += grown
            added_units += units
            per_target[t] = (sent, first, units, grown, off)
        if int(np.abs(added).max(initial=0)) + int(np.abs(total).max(initial=0)) >= 1 << 52:
            raise Overflow("units past the exact range")
        hard = taken > total + added  # the engine trims them from the last lines
        return UnitTaken(taken, added, added_units, hard, per_target, monetary)

    def apply(self, step: UnitTaken, applied: np.ndarray, done: np.ndarray) -> None:
        """The orders in `applied` take the step: lines raised, appended lines written."""
        for t, (sent, first, units, grown, off) in step.per_target.items():
            on_line = applied & sent
            if on_line.any():
                at = first[on_line]
                self.quantity[at] += units[on_line]
                self.line_amount[at] += grown[on_line]
                done[at] += off[on_line]
            new = applied & ~sent
            self.app_quantity[t] += units * new
            self.app_amount[t] += grown * new
            self.app_done[t] += off * new
            self.app_exists[t] |= new
            self.changed |= applied
        self._lines = None

    def lines_chunk(self) -> Chunk:
        """The chunk's orders with the lines as UNIT discounts left them (the
        lines as sent, raised, then each appended line), for rules that read
        the lines (`RunningOrder.rules_view`); `amount` and `initial_amount`
        are the caller's to set."""
        if self._lines is not None:
            return self._lines
        chunk, targets = self.chunk, self.targets
        n = chunk.n
        counts = chunk.n_lines + self.app_exists.sum(axis=0)
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        key = np.empty(int(starts[-1]), dtype=chunk.key.dtype if chunk.key.size else np.int64)
        quantity = np.empty(key.size, dtype=np.int64)
        price = np.empty(key.size, dtype=np.int64)
        at = np.repeat(starts[:-1] - chunk.starts[:-1], chunk.n_lines) + np.arange(chunk.key.size)
        key[at] = chunk.key
        quantity[at] = self.quantity
        price[at] = np.where(chunk.has_price, chunk.price, -1) if chunk.key.size else 0
        slot = starts[:-1] + chunk.n_lines
        for t, target in enumerate(targets.targets):
            has = self.app_exists[t]
            if has.any():
                where = slot[has]
                key[where] = targets.key_of[t]
                quantity[where] = self.app_quantity[t][has]
                price[where] = target.price
                slot[has] += 1
        base = chunk.batch
        batch = OrderBatch(order_ids=pd.RangeIndex(n), starts=starts, key=key, quantity=quantity, price=price,
                           keys=targets.all_keys, customer=chunk.customer, customers=base.customers,
                           metadata_code=chunk.metadata_code, metadata_sets=base.metadata_sets)
        self._lines = Chunk(batch, 0, n)
        return self._lines
