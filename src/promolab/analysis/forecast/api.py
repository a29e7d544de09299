"""`forecast`: dated orders walked in time order, each redeeming what the policy says.

The policy "best": each order redeems the candidate tier that gives it the
largest discount at its `placed_at` (ties: the earlier candidate, i.e. the
response order), among the tiers whose budgets and limits still allow it.
"stack": every tier it qualifies for, sent together under the project's
stacking rules; a list of tier ids: that set with every order. Each is what
the redemption operation answers to the same orders sent one by one (tested
order for order, `one_by_one`), without sending them: `candidates` sweeps,
`spending` (best) or `stacked` (the others) walks.

Free-item (UNIT) tiers are left out: the redemption operation does not
apply them in a stack (docs/decisions.md); `ForecastResult.excluded` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...engine import CompiledTier
from ...sim.promotions import pricing_view
from ...sim.usage import usage_of
from ..orders import line_columns
from ..sweep.batch import build_batch
from ..sweep.customers import customer_table
from ..sweep.progress import progress_bar
from .budget_leaves import budgeted
from .candidates import candidate_tiers, candidates
from .checks import known_customers
from .costs import CostModel
from .facts import OrderFacts
from .result import ForecastResult
from .spending import WatchedTier, walk
from .stacked import walk_stacked

if TYPE_CHECKING:
    from ...sim.simulator import Simulator

__all__ = ["POLICIES", "forecast"]

#: "best": the one tier giving the most; "stack": every tier the order qualifies for, stacked.
#: A list of tier ids is a third kind: that set, sent with every order.
POLICIES = ("best", "stack")


def _watched(tiers: list[CompiledTier]) -> list[WatchedTier]:
    """The tiers whose redemptions some budget counts, or that have budgets:
    a budget of a campaign counts every tier of it."""
    split = [budgeted(t) for t in tiers]
    counted_campaigns = {
        t.spec.campaign.id for t, b in zip(tiers, split, strict=True)
        if b is not None and any(leaf.query.scope == "campaign" for leaf in b.leaves)
    }
    return [
        WatchedTier(p, t.id, t.spec.campaign.id, b) for p, (t, b) in enumerate(zip(tiers, split, strict=True))
        if b is not None or t.spec.campaign.id in counted_campaigns
    ]


def _fixed_positions(chosen: list[CompiledTier], excluded: dict[str, str], ids: list[str]) -> list[int]:
    """The candidate positions of a fixed set of tier ids (request order); refuses
    an empty set, a repeated id, a tier left out or not a candidate."""
    if not ids or not all(isinstance(i, str) for i in ids):
        raise ValueError("a fixed policy is a non-empty list of promotion tier ids")
    if len(set(ids)) != len(ids):
        raise ValueError(f"a fixed policy names a tier twice: {ids}")
    position = {t.id: p for p, t in enumerate(chosen)}
    for tier_id in ids:
        if tier_id in excluded:
            raise ValueError(f"tier {tier_id} cannot be in a fixed policy: {excluded[tier_id]}")
        if tier_id not in position:
            raise ValueError(f"tier {tier_id} is not a candidate; candidates: {', '.join(position)}")
    return [position[t] for t in ids]


def forecast(
    sim: Simulator,
    orders: pd.DataFrame,
    *,
    tiers: Any = None,
    policy: str | Sequence[str] = "best",
    costs: CostModel | None = None,
    customers: Any = None,
    progress: bool = True,
    on_chunk: Callable[[int], None] | None = None,
) -> ForecastResult:
    """Walk dated orders in time order and redeem, spending budgets and limits.

    `orders`: a line-items frame with `placed_at` (see `analysis.orders`),
    optionally `channel`, `metadata.<key>`, and per-order columns kept as they
    are (`segment`, ...). `tiers`: the candidates (ids, TierSpec, CompiledTier;
    default every active tier). `costs`: redemption rates, cost of goods,
    shipping (`CostModel`; default every qualifying order redeems).
    `customers`: as for `sweep`, or a DataFrame of known customers (a
    `source_id` column): then an order whose `customer_source_id` is not in it
    is refused; without one, an unknown source_id is a new customer, as the
    service treats it. The simulator is read, never changed.

    Bad input raises ValueError naming the row (index label) and column before
    anything is computed: a missing or naive `placed_at`, a quantity below 1, a
    product or SKU neither in the catalogue nor priced, an unknown customer (above),
    a cohort column the orders lack: a forecast stopped half way would be a
    total that looks right and is not.
    """
    if not isinstance(policy, str | list | tuple):
        raise TypeError(f"policy must be one of {', '.join(POLICIES)} or a list of tier ids; got {policy!r}")
    fixed_ids = None if isinstance(policy, str) else list(policy)
    if fixed_ids is None and policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)} or a list of tier ids; got {policy!r}")
    if not isinstance(orders, pd.DataFrame):
        raise TypeError(f"orders must be a line-items DataFrame, got {type(orders).__name__}")
    costs = costs or CostModel()
    view = pricing_view(sim)
    chosen, excluded = candidate_tiers(view, tiers)
    fixed = _fixed_positions(chosen, excluded, fixed_ids) if fixed_ids is not None else None
    cols = line_columns(orders)
    if cols.placed_at is None:
        raise ValueError("a forecast needs a 'placed_at' column: when each order was placed")
    customers = known_customers(orders, customers)
    table = customer_table(sim, view, customers)
    codes, contexts, labels = table.resolve(cols.order_ids, cols.customer, cols.customer_names)
    batch = build_batch(cols, view.catalogue, codes, contexts, labels)
    facts = OrderFacts.of(orders, cols, batch, sim.state.project.timezone, sim.state.project.week_start)
    costs.check(facts)
    goods = costs.goods(batch)  # refused (a product without a cost) before the sweep, not after
    watched = _watched(chosen)
    with progress_bar(batch.n_orders, progress, "forecast") as bar:
        def advance(n: int) -> None:
            bar.update(n)
            if on_chunk is not None:
                on_chunk(n)

        found = candidates(view, batch, chosen, watched, sim.now, on_chunk=advance, keep_plain=policy == "stack" or fixed is not None)
    facts.amount = found.amount
    order = np.argsort(facts.placed_at, kind="stable")
    rates = costs.rates(chosen, facts)
    draws = costs.draws(cols.order_ids)
    # What is spent is let go as soon as it is: the lines, the batch and the
    # candidates would otherwise sit beside the walk and the result's frames
    # (a third of the peak memory of a large forecast).
    if policy == "stack" or fixed is not None:
        spent = walk_stacked(sim, view, chosen, order, found, watched, cols, batch, facts.counted_customer,
                             facts.periods, draws, rates, facts.ledger(usage_of(sim)), fixed=fixed)
        del batch, cols
    else:
        del batch, cols  # the walk reads neither
        spent = walk(order, found.plain_tier, found.plain_discount, watched, found.watched_discount,
                     found.watched_bits, facts.counted_customer, found.amount, facts.periods, draws, rates,
                     facts.ledger(usage_of(sim)), facts.customer_ids)
    del found, draws, rates
    return ForecastResult.build(sim, chosen, watched, excluded, facts, spent, order, goods)
