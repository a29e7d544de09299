"""A stack over a batch of orders, chunk by chunk: numpy where exact, the engine where not.

Per chunk, every policy runs in numpy (`running_arrays`) when the stack is
vectorized and the chunk's amounts are safely inside int64; otherwise (a
stack planned for the engine, a chunk with huge amounts, a kernel that
reports `Overflow`) the engine's `evaluate_stack` prices each order of the
chunk under each policy, writing the same cells. The orders where a UNIT
discount's step passes the running total (the engine trims it from the last
lines, `unit_arrays`) are priced by the engine too, each under the policies
where that happened. The engine is also asked,
once per rule, for the message of a rule that failed in numpy (`probe`), so
the reasons read the engine's words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from ...engine import (
    BudgetScope,
    Catalogue,
    PricingContext,
    RuleFailure,
    StackResult,
    evaluate_stack,
)
from ..sweep.batch import Chunk, OrderBatch
from ..sweep.fallback import EngineOrders
from ..sweep.vectorized import Overflow
from .reason_table import Reason, ReasonTable
from .running_arrays import ProbeAt, RuleProbe, run_policy
from .stack_outputs import STATUSES, StackOutputs
from .stack_plan import EntryTables, StackPlan

__all__ = ["evaluate_stack_plan"]

#: Prefix sums over a chunk's lines stay exact in int64 below this.
_SAFE = 1 << 62
_STATUS = {name: code for code, name in enumerate(STATUSES)}


def _vectorizable(chunk: Chunk) -> bool:
    if chunk.overflow or not chunk.exact or not chunk.n:
        return False
    return int(chunk.amount.max()) * max(chunk.n, 1) < _SAFE


def _probe(chunk: Chunk, orders: EngineOrders, catalogue: Catalogue, ctx: PricingContext) -> RuleProbe:
    """The engine's failure for a rule that failed in numpy, on the order where it did."""
    batch = chunk.batch

    def probe(tables: EntryTables, code: int, at: ProbeAt) -> RuleFailure:
        tier = tables.tier
        rules = tier.rules if tier is not None else tables.entry.gift_rules
        assert rules is not None
        i, total = at.i, at.total
        order = orders.get(i, catalogue)
        if at.lines is not None:  # the lines as UNIT discounts left them, the initial amount as sent
            order = dataclasses.replace(EngineOrders(at.lines).get(i, catalogue), amount=total,
                                        initial_amount=order.initial_amount, memo={}, shared={})
        elif total != order.amount:  # the rules read the running total (`RunningOrder.rules_view`)
            order = dataclasses.replace(order, amount=total, memo={}, shared={})
        customer = batch.customer_context(chunk.a + i)
        subject = (tier.id, tier.spec.campaign.id) if tier is not None else None
        if at.after is not None:  # `order.total_amount` reads the total after its step (`evaluation._after`)
            after = at.after
            failure = rules.evaluate_after(
                lambda: after, order, customer, ctx.now, ctx.redemption_metadata, ctx.audience_only,
                BudgetScope(ctx.usage, subject, ctx.ignored_rules),
            )  # fmt: skip
        else:
            failure = rules.evaluate(
                order, customer, ctx.now, ctx.redemption_metadata, ctx.audience_only,
                usage=ctx.usage, subject=subject, ignored=ctx.ignored_rules,
            )  # fmt: skip
        if failure is None:
            raise AssertionError(f"{tables.entry.id}: rule code {code} failed in numpy but the engine passes the order")
        return failure

    return probe


def write_result(result: StackResult, amount: int, out: StackOutputs, i: int, p: int, table: ReasonTable) -> None:
    """The engine's answer for order i under policy p, into every cell of `out`."""
    out.amount[i] = amount
    out.valid[i, p] = result.valid
    out.applicable[i, p] = len(result.applicable)
    out.discount[i, p] = result.discount
    # the order's total_amount: with free units (UNIT) the amount grows by
    # what they add and the discount takes them off, so not amount - discount
    out.total[i, p] = result.running.total if result.valid else amount
    for answer in result.redeemables:
        r = answer.entry.position
        out.status[i, p, r] = _STATUS[answer.status]
        out.applied[i, p, r] = answer.applied
        out.seen[i, p, r] = -1
        if answer.reason_key is None:
            out.reason[i, p, r] = 0
        else:
            out.reason[i, p, r] = table.code(Reason(answer.reason_key, answer.reason or "", answer.why or ""))


@dataclasses.dataclass(frozen=True)
class _EngineRun:
    """What pricing a chunk's orders by the engine reads."""

    plan: StackPlan
    chunk: Chunk
    orders: EngineOrders
    catalogue: Catalogue
    ctx: PricingContext

    def price(self, i: int, policies: Sequence[int], out: StackOutputs, table: ReasonTable) -> None:
        """Order i of the chunk under the policies given, into every cell of `out`."""
        entries = [t.entry for t in self.plan.entries]
        order = self.orders.get(i, self.catalogue)
        customer = self.chunk.batch.customer_context(self.chunk.a + i)
        for p in policies:
            rules = self.plan.policies[p].rules
            result = evaluate_stack(entries, order, customer, self.ctx, rules, catalogue=self.catalogue)
            write_result(result, order.amount, out, i, p, table)


def evaluate_stack_plan(
    plan: StackPlan,
    batch: OrderBatch,
    catalogue: Catalogue,
    ctx: PricingContext,
    out: StackOutputs,
    table: ReasonTable,
    *,
    chunk_size: int,
    on_chunk: Callable[[int], None] | None = None,
) -> int:
    """Every order of `batch` under every policy of `plan`, into `out`; returns
    how many orders the engine priced."""
    distinct = batch.distinct.fresh() if batch.distinct is not None else None
    by_engine = 0
    for a in range(0, batch.n_orders, chunk_size):
        b = min(batch.n_orders, a + chunk_size)
        chunk = Chunk(batch, a, b, distinct)
        orders = EngineOrders(chunk)
        block = out.block(a, b)
        engine = _EngineRun(plan, chunk, orders, catalogue, ctx)
        done = False
        hard: np.ndarray | None = None
        if plan.path == "vectorized" and _vectorizable(chunk):
            probe = _probe(chunk, orders, catalogue, ctx)
            try:
                hard = np.stack([run_policy(policy, p, chunk, block, table, probe, plan)
                                 for p, policy in enumerate(plan.policies)]) if plan.policies else None
                done = True
            except Overflow:
                pass  # the engine rewrites every cell of the block
        if not done:
            every = range(len(plan.policies))
            for i in range(chunk.n):
                engine.price(i, every, block, table)
            by_engine += chunk.n
        elif hard is not None and hard.any():  # orders a UNIT step left to the engine (`unit_arrays`)
            for i in np.flatnonzero(hard.any(axis=0)).tolist():
                engine.price(i, np.flatnonzero(hard[:, i]).tolist(), block, table)
                by_engine += 1
        if on_chunk is not None:
            on_chunk(chunk.n)
    return by_engine
