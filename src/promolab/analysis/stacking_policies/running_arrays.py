"""One policy's stack over a chunk of orders, in numpy: `evaluate_stack` column-wise.

The engine tries the redeemables of one order one after the other
(`engine.stacking.evaluation`); here each step runs for every order of the
chunk at once, in the same application order (the policy's, order-
independent), with the running order held as arrays: the order-level
discount and the running total per order, and each line's cumulative item
discount. Per redeemable, in that order, exactly the engine's steps:

1. under ALL, the orders where an earlier one was INAPPLICABLE skip it;
2. INAPPLICABLE when refused or out of its campaign's dates (every order),
   or where its rules fail on the running order (masks, with `order.amount`
   read as the running total and everything else as sent; the first failing
   rule's message is the engine's, asked once per rule);
3. SKIPPED for a common one where an exclusive one applied;
4. SKIPPED where a limit is reached (counts per order, per category);
5. its step: an order-level discount of the running total (or of the amount
   as sent under INITIAL_AMOUNT), gift credits, or item discounts per line
   (`DiscountKernel.line_values` on the lines' running subtotals, lines an
   earlier discount reached left out under ONCE, a FIXED price ending the
   line at it), each line held within its subtotal and the step within the
   running total, trimmed from the last lines as `trim_from_last` does;
   SKIPPED `no_effect` where it takes nothing and the policy says skip;
   a UNIT discount's free units (`unit_arrays`: the lines as sent raised,
   one appended line per target), after which rules read those lines
   (`UnitArrays.lines_chunk`) and item discounts the raised quantities;
6. applied elsewhere.

Integer cents throughout; per-order sums go through `Chunk.segment_sum`,
exact under the chunk guards the caller checks.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...engine import RuleFailure
from ..sweep.batch import Chunk
from ..sweep.unit_arrays import UnitArrays, UnitTaken, UnitTargets
from .reason_table import ReasonTable
from .stack_outputs import INAPPLICABLE, SKIPPED, StackOutputs
from .stack_plan import EntryTables, PlannedEntry, PolicyPlan, StackPlan

__all__ = ["RuleProbe", "run_policy"]

@dataclass(frozen=True)
class ProbeAt:
    """The order a rule failed on in numpy, as the redeemable's rules read it."""

    #: chunk position
    i: int
    #: the running total there
    total: int
    #: the chunk with the lines UNIT discounts changed (None: the lines as sent)
    lines: Chunk | None
    #: what `order.total_amount` reads (None: the rules do not read it)
    after: int | None


#: (entry's tables, failing-rule code, where) -> the engine's failure.
RuleProbe = Callable[[EntryTables, int, ProbeAt], RuleFailure]


class RunningArrays:
    """The chunk's orders as the redeemables applied so far left them."""

    def __init__(self, chunk: Chunk, amount_leaves: frozenset[str], targets: UnitTargets | None = None) -> None:
        self.chunk = chunk
        self.amount_leaves = amount_leaves
        self.done = np.zeros(chunk.key.size, dtype=np.int64)
        self.total = chunk.amount.copy()
        self.touched = False
        #: the lines as UNIT discounts left them (None: the stack has none)
        self.units = UnitArrays(chunk, targets) if targets is not None else None
        #: cents the priced units added to each order's amount
        self.grown = np.zeros(chunk.n, dtype=np.int64)
        #: orders the arrays do not hold (the engine prices them)
        self.hard = np.zeros(chunk.n, dtype=bool)
        self._unit_step: UnitTaken | None = None

    def _lines(self) -> Chunk:
        """The chunk with the lines as UNIT discounts left them (the chunk
        itself until one changes a line)."""
        units = self.units
        return units.lines_chunk() if units is not None and units.changed.any() else self.chunk

    def rules_view(self, after: np.ndarray | None = None) -> Chunk:
        """The chunk as rules read it (`RunningOrder.rules_view`): `amount` is
        the running total, the lines as UNIT discounts left them, the initial
        amount as sent, `order.total_amount` the total `after` the redeemable's
        own step; masks of `order.amount` / `order.total_amount` rules computed
        on another total are not reused."""
        lines = self._lines()
        if not self.touched and after is None:
            return lines
        view = copy.copy(lines)
        view.amount = self.total
        view.initial_amount = self.chunk.initial_amount
        view.total_amount = after
        view.masks = {k: v for k, v in lines.masks.items() if k not in self.amount_leaves}
        return view

    def keep_masks(self, view: Chunk) -> None:
        """Masks a view computed that do not depend on the running total serve later steps."""
        lines = self._lines()
        if view is not lines:
            for k, v in view.masks.items():
                if k not in self.amount_leaves:
                    lines.masks.setdefault(k, v)

    def step(self, planned: PlannedEntry, once: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """(cents off per order, cents off per line or None for an order-level step)."""
        tables, chunk = planned.tables, self.chunk
        if tables.tier is None:  # gift credits
            return np.minimum(tables.entry.gift_credits or 0, self.total), None
        if tables.units is not None:
            assert self.units is not None
            self._unit_step = self.units.step(tables.units, self.done, self.total, once)
            return self._unit_step.taken, None
        kernel = tables.kernel
        assert kernel is not None
        if kernel.order_level:
            base = chunk.amount if planned.initial else self.total
            return np.minimum(kernel.order_values(base), self.total), None
        done = self.done
        el = kernel.eligible.take(chunk.key)
        if once:
            el &= done == 0
        fixed = kernel.kind == "FIXED" and not planned.initial
        # the lines as UNIT discounts left them (their appended lines end fully
        # discounted: no item discount reaches them, `unit_arrays`)
        quantity, line_amount = ((self.units.quantity, self.units.line_amount) if self.units is not None
                                 else (chunk.quantity, chunk.line_amount))
        amount = line_amount if planned.initial or fixed else line_amount - done
        values = kernel.line_values(chunk.key, quantity, chunk.price, chunk.has_price, amount, chunk.order, el)
        if fixed:  # the price set, less what earlier discounts already took
            values = np.maximum(values - done, 0)
        np.minimum(values, line_amount - done, out=values)
        sums = chunk.segment_sum(values)
        excess = sums - self.total
        if (excess > 0).any():
            _trim_from_last(values, sums, np.maximum(excess, 0), chunk)
            sums = chunk.segment_sum(values)
        return sums, values

    def has_effect(self, taken: np.ndarray) -> np.ndarray:
        """Per order, whether the last step changes the order (`Step.has_effect`:
        it takes something off, or a UNIT discount adds units)."""
        unit = self._unit_step
        return taken > 0 if unit is None else (taken > 0) | (unit.added_units > 0)

    def apply(self, applied: np.ndarray, taken: np.ndarray, lines: np.ndarray | None) -> None:
        """The orders in `applied` take their step (`taken` per order, `lines` per line)."""
        unit, self._unit_step = self._unit_step, None
        if unit is not None:
            assert self.units is not None
            self.hard |= applied & unit.hard
            self.units.apply(unit, applied, self.done)
            self.grown += unit.added * applied
            self.total += unit.added * applied
        if lines is not None:
            self.done += lines * applied.take(self.chunk.order)
        self.total -= taken * applied
        self.touched = True


def _trim_from_last(values: np.ndarray, sums: np.ndarray, excess: np.ndarray, chunk: Chunk) -> None:
    """`trim_from_last` per order, in place: `excess` cents back from the last lines first."""
    order = chunk.order
    cumulative = np.cumsum(values)
    first = chunk.starts[:-1]
    before = np.zeros(chunk.n, dtype=np.int64)
    has = chunk.n_lines > 0
    before[has] = cumulative[first[has]] - values[first[has]]
    after = sums.take(order) - (cumulative - before.take(order))  # this order's lines after each line
    values -= np.clip(excess.take(order) - after, 0, values)


class _Limits:
    """Per order: how many applied, from exclusive categories, per category."""

    def __init__(self, n: int) -> None:
        self.count = np.zeros(n, dtype=np.int16)
        self.exclusive = np.zeros(n, dtype=np.int16)
        self.per_category: dict[str, np.ndarray] = {}

    def _of(self, category: str) -> np.ndarray:
        found = self.per_category.get(category)
        if found is None:
            found = self.per_category[category] = np.zeros(self.count.size, dtype=np.int16)
        return found

    def refusals(self, planned: PlannedEntry, plan: PolicyPlan, candidates: np.ndarray) -> list[tuple[str, np.ndarray]]:
        """(limit key, orders it refuses) in the engine's order of checks (`ApplicationLimits.refusal`)."""
        rules = plan.rules
        out = []
        left = candidates.copy()

        def refuse(key: str, mask: np.ndarray) -> None:
            hit = left & mask
            if hit.any():
                out.append((key, hit))
                left[hit] = False

        refuse("applicable_redeemables_limit_exceeded", self.count >= rules.applicable_redeemables_limit)
        if planned.kind == "EXCLUSIVE":
            refuse("applicable_exclusive_redeemables_limit_exceeded",
                   self.exclusive >= rules.applicable_exclusive_redeemables_limit)
        for limit in planned.category_limits:
            refuse(limit.failure.key, self._of(limit.category) >= limit.limit)
        return out

    def record(self, planned: PlannedEntry, applied: np.ndarray) -> None:
        self.count += applied
        if planned.kind == "EXCLUSIVE":
            self.exclusive += applied
        for category in planned.categories:
            self._of(category)[...] += applied


def _inapplicable(planned: PlannedEntry, live: np.ndarray, running: RunningArrays, probe: RuleProbe,
                  table: ReasonTable, out: tuple[np.ndarray, np.ndarray], after: np.ndarray | None) -> np.ndarray:
    """Step 2: the live orders where the redeemable is INAPPLICABLE, their
    reasons written in `out` (reason, seen); `after`: what its
    `order.total_amount` rules read (the running total less its own step)."""
    reason, seen = out
    tables = planned.tables
    chunk = running.chunk
    failures: list[tuple[RuleFailure, np.ndarray]] = []
    passing = live
    if tables.constant is not None:
        failures.append((tables.constant, live))
        passing = np.zeros_like(live)
    elif tables.rules is not None:
        view = running.rules_view(after)
        ok, codes = tables.rules.evaluate(view, by_rule=True)
        running.keep_masks(view)
        failing = live & ~ok
        for code in np.unique(codes[failing]).tolist():
            rows = failing & (codes == code)
            failure = tables.messages.get(code)
            if failure is None:
                i = int(np.argmax(rows))
                units = running.units
                lines = units.lines_chunk() if units is not None and units.changed[i] else None
                at = ProbeAt(i, int(running.total[i]), lines, int(after[i]) if after is not None else None)
                failure = tables.messages[code] = probe(tables, code, at)
            failures.append((failure, rows))
        passing = live & ok
    bad = np.asarray(live & ~passing, dtype=bool)
    for failure, rows in failures:
        reason[rows] = table.failure(failure, planned.before)
        if failure.key == "order_rules_violated":
            moved = rows & (running.total != chunk.amount)
            seen[moved] = running.total[moved]
    return bad


def run_policy(plan: PolicyPlan, p: int, chunk: Chunk, out: StackOutputs, table: ReasonTable,
               probe: RuleProbe, stack: StackPlan) -> np.ndarray:
    """Policy `p` over the chunk, into column `p` of `out` (the chunk's block);
    returns the orders the arrays do not hold (a UNIT step the engine trims:
    the caller prices them by the engine).

    Each redeemable's cells are written into contiguous rows of a scratch
    (redeemables x orders), copied into the order-major block once: masked
    writes straight into the block's strided columns cost several times more.
    """
    n, r_count = chunk.n, out.status.shape[2]
    scratch = StackOutputs.allocate(r_count, 1, n)  # (redeemables, 1, orders): rows contiguous
    running = RunningArrays(chunk, stack.amount_leaves, stack.unit_targets)
    limits = _Limits(n)
    failed = np.zeros(n, dtype=bool)
    exclusive_applied = np.zeros(n, dtype=bool)
    any_inapplicable = np.zeros(n, dtype=bool)
    for planned in plan.order:
        r = planned.tables.entry.position
        status, reason, applied, seen = (scratch.status[r, 0], scratch.reason[r, 0], scratch.applied[r, 0],
                                         scratch.seen[r, 0])
        if failed.any():
            status[failed] = SKIPPED
            reason[failed] = table.fixed("preceding_validation_failed")
        live = ~failed
        early = None  # a redeemable whose rules read the total after its own step takes it first
        if planned.tables.reads_total and planned.tables.constant is None:
            early = running.step(planned, plan.once)
        after = running.total - early[0] if early is not None else None
        bad = _inapplicable(planned, live, running, probe, table, (reason, seen), after)
        status[bad] = INAPPLICABLE
        any_inapplicable |= bad
        if plan.all_mode:
            failed |= bad
        candidates = live & ~bad
        if planned.kind == "COMMON":
            excluded = candidates & exclusive_applied
            if excluded.any():
                status[excluded] = SKIPPED
                reason[excluded] = table.fixed("exclusion_rules_not_met")
                candidates &= ~excluded
        for key, refused in limits.refusals(planned, plan, candidates):
            status[refused] = SKIPPED
            reason[refused] = table.fixed(key)
            candidates &= ~refused
        if not candidates.any():
            continue
        taken, lines = early if early is not None else running.step(planned, plan.once)
        if planned.skip_no_effect:
            nothing = candidates & ~running.has_effect(taken)
            if nothing.any():
                status[nothing] = SKIPPED
                reason[nothing] = table.fixed("no_effect")
                candidates &= ~nothing
        running.apply(candidates, taken, lines)
        np.multiply(taken, candidates, out=applied)
        limits.record(planned, candidates)
        if planned.kind == "EXCLUSIVE":
            exclusive_applied |= candidates
    for name in ("status", "reason", "applied", "seen"):
        getattr(out, name)[:, p, :] = getattr(scratch, name)[:, 0, :].T
    valid = limits.count > 0
    if plan.all_mode:
        valid &= ~any_inapplicable
    out.amount[:] = chunk.amount
    out.valid[:, p] = valid
    out.applicable[:, p] = limits.count
    # with free units the amount grows by what they add (`write_result`)
    out.discount[:, p] = np.where(valid, chunk.amount + running.grown - running.total, 0)
    out.total[:, p] = np.where(valid, running.total, chunk.amount)
    return running.hard
