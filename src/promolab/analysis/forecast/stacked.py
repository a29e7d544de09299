"""The "stack" policy: each order redeems every tier it qualifies for, stacked
(or a fixed set of tiers, sent with every order).

What a checkout that applies all the promotions it is offered does: the
tiers the promotion validation finds valid for the order (at its instant,
under the budgets spent so far) are sent together to the redemption
operation, which applies them under the project's stacking rules (limits,
application order, ALL / PARTIAL, the running order's amount). The walk
visits every order that qualifies for something, in time order, and prices
the stack with the engine's `evaluate_stack`, given the redeemables as the
simulator resolves them (once per distinct set) and a `PricingContext` at the
order's instant whose `usage` is the walk's ledger: the very function and
inputs the redemption operation uses, hence equal to it. Slower than "best"
(one engine call per qualifying order) and exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...engine import (
    CompiledTier,
    PricingContext,
    StackEntry,
    UsageLedger,
    evaluate_stack,
    normalize_order,
)
from ...models import RedeemableInput
from ...sim.operations.stacking_rules import stacking_rules_in_force
from ...sim.sessions import held
from ...sim.stack_redeemables import resolve_redeemables
from ..orders import LineColumns, utc_datetime
from ..sweep import OrderBatch
from .candidates import Candidates
from .spending import Rates, Spending, WatchedTier, readers_of, verdicts_of

if TYPE_CHECKING:
    from ...sim.promotions import PricingView
    from ...sim.simulator import Simulator

__all__ = ["walk_stacked"]


@dataclass
class _Entries:
    """Resolved redeemables per distinct set of tiers (positions in request order)."""

    sim: Simulator
    view: PricingView
    tiers: Sequence[CompiledTier]
    cache: dict[tuple[int, ...], list[StackEntry]]

    def of(self, positions: tuple[int, ...]) -> list[StackEntry]:
        found = self.cache.get(positions)
        if found is None:
            sent = [RedeemableInput(object="promotion_tier", id=self.tiers[p].id) for p in positions]
            found = self.cache[positions] = [r.entry for r in resolve_redeemables(self.sim, self.view, sent, held(self.sim))]
        return found


def walk_stacked(
    sim: Simulator,
    view: PricingView,
    tiers: Sequence[CompiledTier],
    order: np.ndarray,
    found: Candidates,
    watched: Sequence[WatchedTier],
    cols: LineColumns,
    batch: OrderBatch,
    customers: np.ndarray,
    periods: tuple[np.ndarray, np.ndarray, np.ndarray],
    draws: np.ndarray,
    rates: Rates,
    ledger: UsageLedger,
    fixed: Sequence[int] | None = None,
) -> Spending:
    """Walk the orders in `order` (time order), redeeming their stacks
    (`fixed`: the candidate positions of a set sent with every order, in
    request order, instead of the tiers each order qualifies for):
    `tier` is the first tier applied, `applied` all of them (bits).
    `customers`: the key budgets count a customer by (-1: not counted)."""
    n = batch.n_orders
    assert found.plain_gives is not None and found.plain_positions is not None
    rules = stacking_rules_in_force(sim)
    entries = _Entries(sim, view, tiers, {})
    readers = readers_of(watched, ledger)
    tier = np.full(n, -1, dtype=np.int32)
    first = np.full(n, -1, dtype=np.int32)
    discount = np.zeros(n, dtype=np.int64)
    redeemed = np.zeros(n, dtype=bool)
    held_tier = np.full(n, -1, dtype=np.int32)
    held_leaf = np.full(n, -1, dtype=np.int8)
    applied_mask = np.zeros(n, dtype=np.int64)
    children: tuple[list[int], list[int], list[int]] = ([], [], [])
    plain_positions = found.plain_positions.tolist()
    watched_positions = [w.position for w in watched]
    every = [(1 << (1 << len(w.budget.leaves))) - 1 if w.budget else 1 for w in watched]
    unlimited = [(1 << len(w.budget.leaves)) - 1 if w.budget else 0 for w in watched]
    if fixed is None:
        busy = order[found.plain_gives[order].any(axis=1) | (found.watched_bits[order] != 0).any(axis=1)]
    else:
        busy = order  # a fixed set is sent with every order
    days, weeks, months = periods
    for i in busy.tolist():
        code = int(batch.customer[i]) if batch.customer is not None else -1
        context = batch.customers[code] if code >= 0 else None
        # the customer as budgets count it: the id evaluate_stack's own budget rules read too
        customer = context.id if context is not None and customers[i] >= 0 else None
        keys = (int(days[i]), int(weeks[i]), int(months[i]))
        valid = [p for p, ok in zip(plain_positions, found.plain_gives[i].tolist(), strict=True) if ok]
        for w, bits in enumerate(found.watched_bits[i].tolist()):
            if not bits:
                continue
            if bits != every[w]:
                verdicts, failed = verdicts_of(readers[w], customer, keys)
                if not bits >> verdicts & 1:
                    position = watched_positions[w]
                    sent = fixed is None or position in fixed  # a fixed set: only its own tiers are held back
                    if sent and bits >> unlimited[w] & 1 and (held_tier[i] < 0 or position < held_tier[i]):
                        held_tier[i], held_leaf[i] = position, failed
                    continue
            valid.append(watched_positions[w])
        if fixed is not None:
            valid = list(fixed)  # sent as given, whatever the validation says
        if not valid:
            continue
        positions = tuple(sorted(valid)) if fixed is None else tuple(fixed)
        first[i] = positions[0]
        if not draws[i] < max(float(rates.tier[p]) for p in positions) * float(rates.order[i]):
            continue
        normalized = normalize_order(view.catalogue, {"items": cols.items(i)}, context.id if context else None)
        ctx = PricingContext(utc_datetime(int(cols.placed_at[i])) if cols.placed_at is not None else sim.now,
                             cols.metadata_of(i), usage=ledger)
        result = evaluate_stack(entries.of(positions), normalized, context, ctx, rules)
        if not result.valid:
            continue
        applied = [result.redeemables[p] for p in result.tried if result.redeemables[p].status == "APPLICABLE"]
        if not applied:
            continue
        order_id = str(cols.order_ids[i])
        for stacked in applied:
            position = positions[stacked.entry.position]
            applied_mask[i] |= 1 << position
            children[0].append(i)
            children[1].append(position)
            children[2].append(stacked.applied)
            ledger.record(tiers[position].id, tiers[position].spec.campaign.id, customer, keys, stacked.applied,
                          result.running.order.amount, order_id)
        tier[i] = positions[applied[0].entry.position]
        discount[i] = result.discount
        redeemed[i] = True
    kids = (np.array(children[0], dtype=np.int64), np.array(children[1], dtype=np.int32),
            np.array(children[2], dtype=np.int64))
    return Spending(tier, discount, redeemed, held_tier, held_leaf, ledger, qualified=first, applied=applied_mask,
                    children=kids)

