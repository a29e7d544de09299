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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from ...engine import (
    CompiledTier,
    CustomerContext,
    PricingContext,
    StackedRedeemable,
    UsageLedger,
    evaluate_stack,
    normalize_order,
    price_normalized,
)
from ...models import RedeemableInput, StackingRules
from ...sim import (
    QUANTITY_EXCEEDED,
    Held,
    ResolvedRedeemable,
    SimError,
    check_redeemables,
    credits_of,
    held,
    redeemed_as,
    refuse_the_same_code_twice,
    resolve_redeemables,
    stacking_rules_in_force,
    taken,
)
from ..orders import LineColumns, utc_datetime
from ..sweep import OrderBatch
from .fixed_set import HELD_POOL, FixedCampaign, FixedSet
from .publications import Publications
from .spending import Spending, WalkPlan, readers_of, verdicts_of

if TYPE_CHECKING:
    from ...sim import PricingView, Simulator

__all__ = ["walk_stacked"]


@dataclass
class _Entries:
    """Resolved redeemables per distinct set of tiers (positions in request
    order), and a fixed set's codes resolved at each order's instant. None
    stands for a request the redemption operation refuses as a whole (400,
    nothing redeemed): more redeemables than the project's
    `redeemables_limit`, or one code sent twice."""

    sim: Simulator
    view: PricingView
    tiers: Sequence[CompiledTier]
    rules: StackingRules
    cache: dict[tuple[int, ...], list[ResolvedRedeemable] | None] = field(default_factory=dict)
    #: what the walk has redeemed of each code (uses, gift credits)
    spent: Held = field(default_factory=Held)

    def of(self, positions: tuple[int, ...]) -> list[ResolvedRedeemable] | None:
        if positions not in self.cache:
            sent = [RedeemableInput(object="promotion_tier", id=self.tiers[p].id) for p in positions]
            self.cache[positions] = self._checked(sent, lambda: resolve_redeemables(self.sim, self.view, sent,
                                                                                     held(self.sim)))
        return self.cache[positions]

    def at(self, sent: list[RedeemableInput], instant: datetime) -> list[ResolvedRedeemable] | None:
        """A fixed set with codes, at an order's instant: the sessions open
        then and the walk's own redemptions hold their uses and credits."""
        def resolve() -> list[ResolvedRedeemable]:
            holds = held(self.sim, at=instant)
            holds.uses.update(self.spent.uses)
            holds.credits.update(self.spent.credits)
            return resolve_redeemables(self.sim, self.view, sent, holds, at=instant)

        return self._checked(sent, resolve)

    def _checked(self, sent: list[RedeemableInput],
                 resolve: Callable[[], list[ResolvedRedeemable]]) -> list[ResolvedRedeemable] | None:
        """The request-level refusals of the redemption operation, in its order."""
        try:
            check_redeemables(sent, self.rules)
            resolved = resolve()
            refuse_the_same_code_twice(resolved)
        except SimError:
            return None
        return resolved

    def spend(self, resolved: ResolvedRedeemable, stacked: StackedRedeemable) -> None:
        """What a redemption takes from a code (`stack_spending.taken`)."""
        uses, credits = taken(resolved.voucher, credits_of(stacked))
        if resolved.voucher is not None:
            self.spent.uses[resolved.voucher.id] += uses
            self.spent.credits[resolved.voucher.id] += credits


@dataclass(frozen=True, slots=True)
class _Now:
    """One order of the walk as the promotion validation sees it."""

    view: PricingView
    cols: LineColumns
    index: int
    customer: CustomerContext | None
    instant: datetime


def _still_giving(valid: list[int], budgeted: set[int], tiers: Sequence[CompiledTier], now: _Now,
                  ledger: UsageLedger) -> list[int]:
    """`valid` less the tiers with unit budgets that give nothing now: the
    checkout sends the tiers the promotion validation gives a discount, and
    a unit budget's discount depends on the units the walk spent so far, which
    the sweep before the walk cannot know (priced by the engine, order by order)."""
    catalogue, context = now.view.catalogue, now.customer
    normalized = normalize_order(catalogue, {"items": now.cols.items(now.index)}, context.id if context else None)
    ctx = PricingContext(now.instant, now.cols.metadata_of(now.index), usage=ledger)
    return [p for p in valid if p not in budgeted
            or (price_normalized(catalogue, tiers[p], normalized, context, ctx).discount_amount or 0) > 0]


def walk_stacked(
    sim: Simulator,
    view: PricingView,
    tiers: Sequence[CompiledTier],
    plan: WalkPlan,
    cols: LineColumns,
    batch: OrderBatch,
    fixed: FixedSet | None = None,
    published: Publications | None = None,
) -> Spending:
    """Walk the orders in `plan.order` (time order), redeeming their stacks
    (`fixed`: a set sent with every order instead of the tiers each order
    qualifies for; `published`: the codes its campaigns handed each order's
    customer): `tier` is the first tier applied, `applied` all of them
    (bits). `plan.customers`: the key budgets count a customer by (-1: not
    counted); `cols` and `batch`: the orders' lines, which a stack is priced from."""
    # Locals, not attribute reads, in the loop below (it runs once per busy order).
    order, found, watched, customers = plan.order, plan.found, plan.watched, plan.customers
    periods, draws, rates, ledger = plan.periods, plan.draws, plan.rates, plan.ledger
    n = batch.n_orders
    assert found.plain_gives is not None and found.plain_positions is not None
    rules = stacking_rules_in_force(sim)
    entries = _Entries(sim, view, tiers, rules)
    sent_with_every = fixed.positions if fixed is not None else None
    coded = fixed if fixed is not None and (fixed.codes or fixed.campaigns) else None  # resolved order by order
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
    every = [w.every for w in watched]
    unlimited = [w.unlimited for w in watched]
    if fixed is None:
        busy = order[found.plain_gives[order].any(axis=1) | (found.watched_bits[order] != 0).any(axis=1)]
    else:
        busy = order  # a fixed set is sent with every order
    days, weeks, months = periods
    #: tiers with unit budgets: what they give shrinks with the walk's spending
    budgeted = {p for p, t in enumerate(tiers) if t.scope.budgeted}
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
        instant = utc_datetime(int(cols.placed_at[i])) if cols.placed_at is not None else sim.now
        if sent_with_every is not None:
            valid = list(sent_with_every)  # sent as given, whatever the validation says
        elif budgeted and budgeted.intersection(valid):
            valid = _still_giving(valid, budgeted, tiers, _Now(view, cols, i, context, instant), ledger)
        if not valid:
            continue
        positions = tuple(sorted(valid)) if sent_with_every is None else sent_with_every
        first[i] = positions[0]
        resolved: list[ResolvedRedeemable] | None = None
        if coded is not None:
            # what holds an order back is known before its draw, as a tier's budget verdicts are
            if published is not None and held_tier[i] < 0:
                held_tier[i], held_leaf[i] = _pool_empty(published, coded.campaigns, i)
            codes = [c[i] for c in published.codes] if published is not None else []
            if None in codes:  # a campaign of the set handed this order no code: nothing is sent
                continue
            resolved = entries.at(coded.with_codes(codes), instant)
            if resolved is not None and held_tier[i] < 0:  # a code that ran out, even if a PARTIAL stack applies
                held_tier[i] = _out_of_stock(resolved, positions)
        if not draws[i] < float(rates.chance(np.full(len(positions), i), np.array(positions)).max()):
            continue
        if coded is None:
            resolved = entries.of(positions)
        if resolved is None:  # refused as a whole: nothing redeemed
            continue
        normalized = normalize_order(view.catalogue, {"items": cols.items(i)}, context.id if context else None)
        ctx = PricingContext(instant, cols.metadata_of(i), usage=ledger)
        result = evaluate_stack([r.entry for r in resolved], normalized, context, ctx, rules, catalogue=view.catalogue)
        applied = [result.redeemables[p] for p in result.tried if result.redeemables[p].status == "APPLICABLE"]
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
            if stacked.step is not None and stacked.step.spent_units:  # unit budgets, as `sim.usage` counts them
                ledger.record_units(redeemed_id, campaign_id or redeemed_id, customer, stacked.step.spent_units)
            entries.spend(resolved[stacked.entry.position], stacked)
        tier[i] = positions[applied[0].entry.position]
        discount[i] = result.discount
        redeemed[i] = True
    kids = (np.array(children[0], dtype=np.int64), np.array(children[1], dtype=np.int32),
            np.array(children[2], dtype=np.int64))
    return Spending(tier, discount, redeemed, held_tier, held_leaf, ledger, qualified=first, applied=applied_mask,
                    children=kids, code_uses=dict(entries.spent.uses))


def _pool_empty(published: Publications, campaigns: Sequence[FixedCampaign], i: int) -> tuple[int, int]:
    """The campaign of the set whose pool had no code left for order i (and
    the reason, `HELD_POOL`), or (-1, -1)."""
    for campaign, empty in zip(campaigns, published.pool_empty, strict=True):
        if empty[i]:
            return campaign.position, HELD_POOL
    return -1, -1


def _out_of_stock(resolved: Sequence[ResolvedRedeemable], positions: tuple[int, ...]) -> int:
    """The position of the first code (request order) whose uses have run
    out, -1 if none: its dates refusing it is not running out."""
    for p, item in enumerate(resolved):
        if item.error is not None and item.error.key == QUANTITY_EXCEEDED:
            return positions[p]
    return -1
