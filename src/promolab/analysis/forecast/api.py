"""`forecast`: dated orders walked in time order, each redeeming what the policy says.

The policy "best": each order redeems the candidate tier that gives it the
largest discount at its `placed_at` (ties: the earlier candidate, i.e. the
response order), among the tiers whose budgets and limits still allow it.
"stack": every tier it qualifies for, sent together under the project's
stacking rules; a list of tier ids and codes: that set with every order
(`fixed_set`; a code's stock and a gift card's balance are spent). Each is what
the redemption operation answers to the same orders sent one by one (tested
order for order, `one_by_one`), without sending them: `candidates` sweeps,
`spending` (best) or `stacked` (the others) walks.

Free-item (UNIT) tiers are candidates like the others: the redemption
operation applies them alone and in a stack (docs/decisions.md), and the
walk redeems them as it does. Tiers with unit budgets are left out under
"best", which compares discounts swept before the walk (`ForecastResult.excluded`
says so); "stack" and fixed sets price each order with the engine and the
walk's ledger, which counts the units spent (exact).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd
from typing_extensions import Unpack

from ...engine import CompiledTier
from ...keywords import check_keywords
from ...sim import pricing_view, usage_of
from ..names import scenario_names
from ..orders import line_columns
from ..sweep.batch import build_batch
from ..sweep.customers import customer_table
from ..sweep.progress import progress_bar
from .bands import (
    MOST_DRAWS,
    MOST_SEED,
    BandFrames,
    ForecastBands,
    StackedDraws,
    all_draws,
    band_frames,
    band_plan,
)
from .budget_leaves import budgeted
from .candidates import candidate_tiers, candidates
from .checks import known_customers
from .costs import CostModel
from .facts import OrderFacts
from .fixed_set import fixed_set
from .publications import publish_codes
from .result import ForecastResult
from .spending import WalkPlan, WatchedTier, walk, walk_start
from .stacked import walk_stacked

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["POLICIES", "forecast"]

#: "best": the one tier giving the most; "stack": every tier the order qualifies for, stacked.
#: A list of tier ids and codes is a third kind: that set, sent with every order.
POLICIES = ("best", "stack")
#: A stacked order's redeemables are kept as bits of one int64 (`Spending.applied`).
_MOST_STACKED = 63


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


class ForecastOptions(TypedDict, total=False):
    """The keywords of `forecast(sim, orders, **options)` (every one optional).

    A TypedDict rather than more parameters (as `SweepOptions`): callers write
    the same keywords as before, mypy checks each at every call, and a keyword
    not here is a TypeError naming the nearest one."""

    #: the candidates: ids, TierSpec, CompiledTier (default every active tier)
    tiers: Any
    #: "best", "stack", or a list of tier ids and codes
    policy: str | Sequence[str]
    costs: CostModel | None
    customers: Any
    #: a progress bar on stderr (default True)
    progress: bool
    on_chunk: Callable[[int], None] | None
    #: bands: walk this many draws of who redeems (default None: no bands; 1 to `MOST_DRAWS`)
    draws: int | None
    #: the bands' key (0 to 10**16 - 1; default 0)
    seed: int
    #: where the draws run: "pandas" (here) or "dask" (the local threaded scheduler, or `client`)
    engine: str
    #: a `distributed.Client` for engine="dask"
    client: Any


def _band_options(draws: Any, seed: Any, engine: Any) -> None:
    """Refuse bad band options before anything is computed."""
    if draws is not None and (isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= MOST_DRAWS):
        raise ValueError(f"draws must be a whole number from 1 to {MOST_DRAWS:,}, got {draws!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MOST_SEED:
        raise ValueError(f"seed must be a whole number from 0 to 10**16 - 1, got {seed!r}")
    if engine not in ("pandas", "dask"):
        raise ValueError(f"engine must be 'pandas' or 'dask', got {engine!r}")


def forecast(sim: Simulator, orders: pd.DataFrame, **options: Unpack[ForecastOptions]) -> ForecastResult:
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

    `draws=N, seed=S` (policy "best" or "stack"): the walk runs N more times, draw k with
    its own uniforms (`bands.draw_uniforms`), and `ForecastResult.bands` holds
    P10/P50/P90 per budget and per tier (`bands.ForecastBands`); the sweep runs
    once. `engine="dask"` fans the draws out (on `client` when given). Without
    `draws` the result is exactly the one-walk forecast.
    """
    check_keywords(options, ForecastOptions.__optional_keys__, where="forecast() ")
    tiers, policy, costs = options.get("tiers"), options.get("policy", "best"), options.get("costs")
    customers, progress, on_chunk = options.get("customers"), options.get("progress", True), options.get("on_chunk")
    n_draws, seed, engine = options.get("draws"), options.get("seed", 0), options.get("engine", "pandas")
    _band_options(n_draws, seed, engine)
    if n_draws is not None and not isinstance(policy, str):
        raise ValueError("draws= walks the policy again per draw; a fixed set of tiers and codes spends codes' "
                         "stock and gift cards' balances the bands do not count: forecast bands with policy "
                         "'best' or 'stack'")
    if n_draws is not None and policy == "stack" and options.get("client") is not None:
        raise ValueError("stack bands price each order with this process's simulator, which does not travel to "
                         "Dask worker processes: drop client= (the draws run here, or engine='dask' on threads)")
    if not isinstance(policy, str | list | tuple):
        raise TypeError(f"policy must be one of {', '.join(POLICIES)} or a list of tier ids and codes; got {policy!r}")
    fixed_ids = None if isinstance(policy, str) else list(policy)
    if fixed_ids is None and policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)} or a list of tier ids and codes; got {policy!r}")
    if not isinstance(orders, pd.DataFrame):
        raise TypeError(f"orders must be a line-items DataFrame, got {type(orders).__name__}")
    costs = costs or CostModel()
    view = pricing_view(sim)
    chosen, excluded, offered = candidate_tiers(view, tiers, sent=fixed_ids, best=policy == "best")
    fixed = fixed_set(sim, chosen, excluded, fixed_ids, offered) if fixed_ids is not None else None
    extras = fixed.extras if fixed is not None else []
    if policy != "best" and len(chosen) + len(extras) > _MOST_STACKED:
        raise ValueError(f"a stacked forecast tells apart at most {_MOST_STACKED} tiers and codes; got "
                         f"{len(chosen)} candidate tiers and {len(extras)} codes and campaigns: choose fewer with tiers=")
    cols = line_columns(orders)
    if cols.placed_at is None:
        raise ValueError("a forecast needs a 'placed_at' column: when each order was placed")
    customers = known_customers(orders, customers)
    published = None
    if fixed is not None and fixed.campaigns:  # the codes handed out, on a copy of the simulator
        published = publish_codes(sim, cols, np.argsort(cols.placed_at, kind="stable"), fixed.campaigns)
        sim = published.sim
        view = pricing_view(sim)
        chosen, excluded, _ = candidate_tiers(view, tiers, sent=fixed_ids)
    table = customer_table(sim, view, customers)
    codes, contexts, labels = table.resolve(cols.order_ids, cols.customer, cols.customer_names)
    batch = build_batch(cols, view.catalogue, codes, contexts, labels)
    facts = OrderFacts.of(orders, cols, batch, sim.state.project.timezone, sim.state.project.week_start)
    costs.check(facts)
    facts.cost_of_goods = costs.goods(batch)  # refused (a product without a cost) before the sweep, not after
    facts.currency = sim.currency
    watched = _watched(chosen)
    with progress_bar(batch.n_orders, progress, "forecast") as bar:
        def advance(n: int) -> None:
            bar.update(n)
            if on_chunk is not None:
                on_chunk(n)

        found = candidates(view, batch, chosen, watched, sim.now, on_chunk=advance, keep_plain=policy == "stack" or fixed is not None)
    facts.amount = found.amount
    order = np.argsort(facts.placed_at, kind="stable")
    rates = costs.rates(chosen, facts, extras, found)
    draws = costs.draws(cols.order_ids)
    # What is spent is let go as soon as it is: the lines, the batch and the
    # candidates would otherwise sit beside the walk and the result's frames
    # (a third of the peak memory of a large forecast).
    plan = WalkPlan(order, found, watched, facts.counted_customer, facts.customer_ids, facts.periods, draws, rates,
                    facts.ledger(usage_of(sim)))
    del found, draws, rates  # the plan holds them: let go with it
    # The walk's draw-independent start, once: the one walk and every band draw read it.
    start = walk_start(plan) if policy == "best" else None
    banded = None
    if n_draws is not None:
        stacked = StackedDraws(sim, view, chosen, cols, batch) if policy == "stack" else None
        banded = band_plan(plan, cols.order_ids, seed, len(chosen), start, stacked)
    if policy == "stack" or fixed is not None:
        own = replace(plan, ledger=plan.ledger.copy()) if banded is not None else plan  # the draws' stays as it was
        spent = walk_stacked(sim, view, chosen, own, cols, batch, fixed=fixed, published=published)
        del batch, cols
    else:
        del batch, cols  # the walk reads neither
        spent = walk(replace(plan, ledger=plan.ledger.copy()) if banded is not None else plan, start)
    del plan
    result = ForecastResult.build(chosen, watched, excluded, facts, spent, order, fixed, published)
    bands = None
    if banded is not None and n_draws is not None:
        bands = _bands(banded, n_draws, facts, result, options)
    return replace(result, names=scenario_names(sim), bands=bands)  # the charts' labels, from the scenario


def _bands(banded: Any, n_draws: int, facts: OrderFacts, result: ForecastResult, options: ForecastOptions) -> ForecastBands:
    """The draws (here or on Dask) and their quantiles, labelled as the result's frames."""
    totals = all_draws(banded, n_draws, facts.placed_at, engine=options.get("engine", "pandas"),
                       client=options.get("client"))
    labels = BandFrames(result.budgets[["tier_id", "campaign_id", "rule_id", "rule", "per_customer", "period",
                                        "measure", "limit"]],
                        result.tier_ids, [result.tier_campaigns[t] for t in result.tier_ids], banded.plan.watched,
                        facts.periods, facts.timezone, facts.currency)
    return band_frames(banded, totals, labels, options.get("seed", 0))
