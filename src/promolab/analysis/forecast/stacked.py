"""The "stack" policy: each order redeems every tier it qualifies for, stacked
(or a fixed set of tiers and codes, sent with every order: `fixed_set`).

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

Codes in a fixed set are resolved at each order's instant by the same
function, with what the walk has spent so far added to what sessions hold
(`Held`): a use per code redeemed, a gift card's credits, as the redemption
operation takes them (`stack_spending.spend`). So a code's stock and a gift
card's balance run out in the forecast where they would in the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from ...engine import (
    CompiledTier,
    PricingContext,
    StackResult,
    UsageLedger,
    evaluate_stack,
    normalize_order,
)
from ...models import RedeemableInput
from ...sim.operations.stacking_rules import stacking_rules_in_force
from ...sim.sessions import Held, held
from ...sim.stack_redeemables import ResolvedRedeemable, redeemed_as, resolve_redeemables
from ..orders import LineColumns, utc_datetime
from ..sweep import OrderBatch
from .candidates import Candidates
from .fixed_set import HELD_POOL, FixedCampaign, FixedSet
from .publications import Publications
from .spending import Rates, Spending, WatchedTier, readers_of, verdicts_of

if TYPE_CHECKING:
    from ...sim.promotions import PricingView
    from ...sim.simulator import Simulator

__all__ = ["walk_stacked"]


@dataclass
class _Entries:
    """Resolved redeemables per distinct set of tiers (positions in request
    order), and a fixed set's codes resolved at each order's instant."""

    sim: Simulator
    view: PricingView
    tiers: Sequence[CompiledTier]
    cache: dict[tuple[int, ...], list[ResolvedRedeemable]]
    #: what the walk has redeemed of each code (uses, gift credits)
    spent: Held

    def of(self, positions: tuple[int, ...]) -> list[ResolvedRedeemable]:
        found = self.cache.get(positions)
        if found is None:
            sent = [RedeemableInput(object="promotion_tier", id=self.tiers[p].id) for p in positions]
            found = self.cache[positions] = resolve_redeemables(self.sim, self.view, sent, held(self.sim))
        return found

    def at(self, sent: list[RedeemableInput], instant: datetime) -> list[ResolvedRedeemable]:
        """A fixed set with codes, at an order's instant: the sessions open
        then and the walk's own redemptions hold their uses and credits."""
        holds = held(self.sim, at=instant)
        holds.uses.update(self.spent.uses)
        holds.credits.update(self.spent.credits)
        return resolve_redeemables(self.sim, self.view, sent, holds, at=instant)

    def spend(self, resolved: ResolvedRedeemable, credits: int) -> None:
        """What a redemption takes from a code: a use, and a gift card's credits."""
        if resolved.voucher is not None:
            self.spent.uses[resolved.voucher.id] += 1
            if resolved.entry.gift_credits is not None:
                self.spent.credits[resolved.voucher.id] += credits


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
    fixed: FixedSet | None = None,
    published: Publications | None = None,
) -> Spending:
    """Walk the orders in `order` (time order), redeeming their stacks
    (`fixed`: a set sent with every order instead of the tiers each order
    qualifies for; `published`: the codes its campaigns handed each order's
    customer): `tier` is the first tier applied, `applied` all of them
    (bits). `customers`: the key budgets count a customer by (-1: not counted)."""
    n = batch.n_orders
    assert found.plain_gives is not None and found.plain_positions is not None
    rules = stacking_rules_in_force(sim)
    entries = _Entries(sim, view, tiers, {}, Held())
    sent_with_every = fixed.positions if fixed is not None else None
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
                    sent = sent_with_every is None or position in sent_with_every  # a fixed set: only its own tiers
                    if sent and bits >> unlimited[w] & 1 and (held_tier[i] < 0 or position < held_tier[i]):
                        held_tier[i], held_leaf[i] = position, failed
                    continue
            valid.append(watched_positions[w])
        if sent_with_every is not None:
            valid = list(sent_with_every)  # sent as given, whatever the validation says
        if not valid:
            continue
        positions = tuple(sorted(valid)) if sent_with_every is None else sent_with_every
        first[i] = positions[0]
        if fixed is not None and published is not None and held_tier[i] < 0:
            held_tier[i], held_leaf[i] = _pool_empty(published, fixed.campaigns, i)
        if not draws[i] < max(float(rates.tier[p]) for p in positions) * float(rates.order[i]):
            continue
        normalized = normalize_order(view.catalogue, {"items": cols.items(i)}, context.id if context else None)
        instant = utc_datetime(int(cols.placed_at[i])) if cols.placed_at is not None else sim.now
        ctx = PricingContext(instant, cols.metadata_of(i), usage=ledger)
        if fixed is not None and (fixed.codes or fixed.campaigns):
            codes = [c[i] for c in published.codes] if published is not None else []
            if None in codes:  # a campaign of the set handed this order no code: nothing is sent
                continue
            resolved = entries.at(fixed.with_codes(codes), instant)
        else:
            resolved = entries.of(positions)
        result = evaluate_stack([r.entry for r in resolved], normalized, context, ctx, rules)
        applied = [result.redeemables[p] for p in result.tried if result.redeemables[p].status == "APPLICABLE"]
        if held_tier[i] < 0:  # a code that ran out is held back, even when the rest of a PARTIAL stack applies
            held_tier[i] = _out_of_stock(result, resolved, positions)
        if not result.valid or not applied:
            continue
        order_id = str(cols.order_ids[i])
        for stacked in applied:
            position = positions[stacked.entry.position]
            applied_mask[i] |= 1 << position
            children[0].append(i)
            children[1].append(position)
            children[2].append(stacked.applied)
            _, redeemed_id, campaign_id = redeemed_as(resolved[stacked.entry.position])
            ledger.record(redeemed_id, campaign_id, customer, keys, stacked.applied, result.running.order.amount,
                          order_id)
            assert stacked.step is not None
            entries.spend(resolved[stacked.entry.position], stacked.step.order_discount)
        tier[i] = positions[applied[0].entry.position]
        discount[i] = result.discount
        redeemed[i] = True
    kids = (np.array(children[0], dtype=np.int64), np.array(children[1], dtype=np.int32),
            np.array(children[2], dtype=np.int64))
    return Spending(tier, discount, redeemed, held_tier, held_leaf, ledger, qualified=first, applied=applied_mask,
                    children=kids, code_uses=dict(entries.spent.uses))


#: A code's refusal that means it has run out (its stock), not its dates. (A
#: gift card asked for no set credits gives what its balance holds, down to 0.)
_RAN_OUT = ("quantity_exceeded",)


def _pool_empty(published: Publications, campaigns: Sequence[FixedCampaign], i: int) -> tuple[int, int]:
    """The campaign of the set whose pool had no code left for order i (and
    the reason, `HELD_POOL`), or (-1, -1)."""
    for campaign, empty in zip(campaigns, published.pool_empty, strict=True):
        if empty[i]:
            return campaign.position, HELD_POOL
    return -1, -1


def _out_of_stock(result: StackResult, resolved: Sequence[ResolvedRedeemable], positions: tuple[int, ...]) -> int:
    """The position of the code whose stock refused the stack (the first
    tried), -1 if none did: what the result reports as held back by it."""
    for p in result.tried:
        error = resolved[p].error
        if result.redeemables[p].status == "INAPPLICABLE" and error is not None and error.key in _RAN_OUT:
            return positions[p]
    return -1

