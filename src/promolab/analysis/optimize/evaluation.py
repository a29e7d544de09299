"""Every option's expected figures: one sweep of all options, then `expect`.

The scenario's candidate tiers (as a "best" forecast takes them,
`forecast.candidate_tiers`) and every option of every group are bound to the
orders once and evaluated a chunk at a time. For a group, an option *wins*
an order (in the group's segment) by the rule of the "best" policy: it
gives something and the most, ties to the earlier tier in response order,
with the option in its tier's place and every other candidate tier as the
scenario has it. On the orders it wins, `response.expect` gives the
option's expected redemptions, spend (and its variance, `spread`), subsidy
and incremental net revenue, and the same for the best of the other tiers
on those orders, what they would bring without this setting (`displaced`).
An option's `value`, what the optimizer maximises, is the difference: the
expected incremental net revenue the setting adds to the scenario. Groups
are each evaluated against the rest of the scenario as it is, so values
add up exactly when the groups' orders do not overlap (segments of one
tier, tiers reaching different orders). With count limits per day, week or
month (`Scope.periods`), the expected redemptions and their variance are
also summed per option and calendar period (`PeriodSums`), the periods cut
as the budgets count them (`engine.period_key_arrays`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...engine import (
    CompiledTier,
    Period,
    PricingContext,
    compile_tier,
    period_key_arrays,
    period_slot,
)
from ...sim import pricing_view
from ..forecast.budget_leaves import budgeted
from ..forecast.calendar_periods import Freq, period_start
from ..forecast.candidates import candidate_tiers
from ..forecast.costs import CostModel
from ..response import Offers, ResponseModel, depth_of, expect
from ..sweep import OrderBatch, prepare_orders
from ..sweep.api import bind_batch
from ..sweep.batch import Chunk
from ..sweep.runner import Outputs
from .space import Option, Space, TierGrid
from .spread import p90, redemption_variance

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["CHUNK", "FREQ", "Evaluated", "PeriodSums", "Scope", "evaluate", "group_bases"]

#: Orders evaluated at a time (times the options: the chunk's block).
CHUNK = 4096

_SUMS = ("orders_won", "redemptions", "spend", "variance", "incremental_spend", "subsidy",
         "incremental_net_revenue", "displaced_net_revenue", "redemption_variance")
_DISPLACED, _REDEMPTION_VARIANCE = 7, 8
#: A budget's period as the report's calendar names it.
FREQ: dict[Period, Freq] = {"daily": "day", "weekly": "week", "monthly": "month"}


@dataclass(frozen=True)
class Scope:
    """What the evaluation reads besides the space: the model and the costs."""

    model: ResponseModel
    costs: CostModel
    #: the calendar periods count limits are cut in: per option and period, redemptions are summed too
    periods: tuple[Period, ...] = ()


@dataclass(frozen=True)
class PeriodSums:
    """An option's expected redemptions and their variance in each calendar
    period of one kind the orders fall in (`keys`: the periods' keys as the
    budgets count them, `engine.period_key_arrays`, ascending)."""

    period: Period
    keys: np.ndarray  # (periods,)
    starts: tuple[str, ...]  # each period's first local day, ISO
    redemptions: np.ndarray  # (options, periods)
    variance: np.ndarray  # (options, periods)


@dataclass(frozen=True)
class Evaluated:
    """Per option (rows group-major): its group, the tier it sets, and the sums."""

    groups: tuple[TierGrid, ...]
    options: tuple[tuple[Option, ...], ...]
    bases: tuple[CompiledTier, ...]
    sums: np.ndarray  # (options, len(_SUMS))
    periods: tuple[PeriodSums, ...] = ()

    def frame(self) -> pd.DataFrame:
        """The table of all options (money rounded to cents: P90 up, the rest to nearest)."""
        rows = []
        k = 0
        for g, (group, options) in enumerate(zip(self.groups, self.options, strict=True)):
            for o, option in enumerate(options):
                s = dict(zip(_SUMS, self.sums[k], strict=True))
                k += 1
                rows.append({
                    "group": group.label, "group_index": g, "option_index": o, "option": option.name,
                    "tier_id": group.tier, "campaign_id": self.bases[g].spec.campaign.id,
                    "segment": group.segment, "orders_won": round(s["orders_won"]),
                    "redemptions": s["redemptions"],
                    "redemptions_p90": p90(s["redemptions"], s["redemption_variance"]),
                    "spend": round(s["spend"]), "spend_p90": math.ceil(p90(s["spend"], s["variance"]) - 1e-9),
                    "incremental_spend": round(s["incremental_spend"]), "subsidy": round(s["subsidy"]),
                    "incremental_net_revenue": round(s["incremental_net_revenue"]),
                    "displaced_net_revenue": round(s["displaced_net_revenue"]),
                    "value": round(s["incremental_net_revenue"] - s["displaced_net_revenue"]),
                })
        frame = pd.DataFrame(rows)
        for name in ("group", "option", "tier_id", "campaign_id", "segment"):
            frame[name] = frame[name].astype("string")
        for name in ("group_index", "option_index", "orders_won", "spend", "spend_p90", "incremental_spend",
                     "subsidy", "incremental_net_revenue", "displaced_net_revenue", "value"):
            frame[name] = frame[name].astype("Int64")
        for name in ("redemptions", "redemptions_p90"):
            frame[name] = frame[name].astype("Float64")
        return frame


def _segments(orders: pd.DataFrame, batch: OrderBatch, column: str) -> np.ndarray:
    if column not in orders.columns:
        raise ValueError(f"a group has a segment, but the orders have no {column!r} column "
                         f"(Space.segment_column names it)")
    first = orders.groupby("order_id", sort=False)[column].first()
    values = first.reindex(batch.order_ids).astype(object)
    labels: np.ndarray = np.where(values.isna(), "", values.astype(str)).astype(object)
    return labels


def _candidates(sim: Simulator, space: Space) -> tuple[list[CompiledTier], dict[str, int], tuple[CompiledTier, ...]]:
    """The scenario's candidate tiers, each one's place, and each group's tier among them."""
    competitors, excluded, _ = candidate_tiers(pricing_view(sim), None, best=True)
    position = {t.id: p for p, t in enumerate(competitors)}
    for group in space.groups:
        if group.tier not in position:
            why = f" ({excluded[group.tier]})" if group.tier in excluded else ""
            raise ValueError(f"unknown or inactive tier {group.tier!r}{why}; candidates: {', '.join(position)}")
    return competitors, position, tuple(competitors[position[g.tier]] for g in space.groups)


def group_bases(sim: Simulator, space: Space) -> tuple[CompiledTier, ...]:
    """Each group's tier as the scenario has it (what its budgets are read
    from before the sweep); raises ValueError on an unknown or inactive tier."""
    return _candidates(sim, space)[2]


def _period_keys(sim: Simulator, batch: OrderBatch, periods: Sequence[Period]) -> list[np.ndarray]:
    """Per needed period, each order's key: of its `placed_at`, or of the
    simulator's clock for orders without one (the instant the sweep prices
    them at), in the project's time zone and first day of the week."""
    if not periods:
        return []
    if batch.placed_at is not None:
        placed = np.asarray(batch.placed_at, dtype=np.int64)
    else:
        placed = np.full(batch.n_orders, pd.Timestamp(sim.now).as_unit("ns").value, dtype=np.int64)
    project = sim.state.project
    keys = period_key_arrays(placed, project.timezone, project.week_start)
    return [keys[slot] for slot in (period_slot(p) for p in periods) if slot is not None]


def _period_sums(sim: Simulator, periods: Sequence[Period], keys: Sequence[np.ndarray],
                 counts: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[PeriodSums, ...]:
    """The per-period sums, named by each period's first local day (the
    forecast's `calendar_periods.period_start`, one rule for both)."""
    timezone = sim.state.project.timezone
    out = []
    for period, key, (mean, variance) in zip(periods, keys, counts, strict=True):
        distinct = np.unique(key)
        first = period_start((distinct, distinct, distinct), FREQ[period], timezone)
        out.append(PeriodSums(period, distinct, tuple(first.dt.strftime("%Y-%m-%d")), mean, variance))
    return tuple(out)


def evaluate(sim: Simulator, orders: pd.DataFrame, space: Space, scope: Scope) -> Evaluated:
    """Sweep every option once over `orders` and sum its expected figures."""
    if not isinstance(orders, pd.DataFrame):
        raise TypeError(f"orders must be a line-items DataFrame, got {type(orders).__name__}")
    view = pricing_view(sim)
    competitors, position, bases = _candidates(sim, space)
    groups = tuple(space.groups)
    options = tuple(tuple(g.options(b)) for g, b in zip(groups, bases, strict=True))
    compiled = [[compile_tier(o.spec) for o in opts] for opts in options]
    batch = prepare_orders(sim, orders)
    goods = scope.costs.goods(batch)
    if any(g.segment is not None for g in groups) or space.segment_column in orders.columns:
        segments = _segments(orders, batch, space.segment_column)
    else:
        segments = None
    swept = [_unspent(t) for t in [*competitors, *(t for ts in compiled for t in ts)]]
    starts = np.cumsum([len(competitors), *(len(ts) for ts in compiled)])
    kinds = np.array([t.kind for t in swept], dtype=object)
    sums = np.zeros((int(starts[-1] - starts[0]), len(_SUMS)))
    bound = bind_batch(view, batch, swept, PricingContext(now=sim.now))
    n = batch.n_orders
    amount = Chunk(batch, 0, n).amount.astype(np.float64)
    margin = amount - (0.0 if goods is None else goods)
    labels = np.full(n, "", dtype=object) if segments is None else segments
    period_keys = _period_keys(sim, batch, scope.periods)
    # a code per distinct (amount, margin, segment, and the periods counted in): all an
    # expectation reads of an order, and where its redemption counts
    basket = pd.factorize(pd.MultiIndex.from_arrays([amount, margin, labels, *period_keys]))[0].astype(np.int64)
    period_codes = [np.unique(key, return_inverse=True)[1].astype(np.int64) for key in period_keys]
    per_period = [(np.zeros((len(sums), len(np.unique(key)))), np.zeros((len(sums), len(np.unique(key)))))
                  for key in period_keys]
    entries: list[list[_Entries]] = [[] for _ in groups]
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        block = Outputs.allocate(b - a, len(swept))
        bound.evaluate(a, b, block, offset=a)
        shape = (b - a, len(swept))
        discount = np.ascontiguousarray(block.discount.reshape(shape).T).astype(np.int64)
        gives = np.ascontiguousarray(block.valid.reshape(shape).T) & (discount > 0)
        offered = np.where(gives, discount, -1)
        chunk = _GroupChunk(offered, 0, len(competitors), 0, 0, kinds, amount[a:b], margin[a:b], labels[a:b],
                            basket[a:b])
        for g, group in enumerate(groups):
            lo, hi = int(starts[g]), int(starts[g + 1])
            found = _reduce(replace(chunk, pos=position[group.tier], lo=lo, hi=hi),
                            None if segments is None or group.segment is None else segments[a:b] == group.segment,
                            scope.model, sums[lo - len(competitors):hi - len(competitors)])
            if found is not None:
                entries[g].append(found)
    for g in range(len(groups)):
        if entries[g]:
            lo, hi = int(starts[g]) - len(competitors), int(starts[g + 1]) - len(competitors)
            _expect_won(_Entries.joined(entries[g]),
                        _Baskets(amount, margin, labels, basket, kinds[lo + len(competitors):hi + len(competitors)],
                                 period_codes),
                        scope.model, _Sums(sums[lo:hi], [(m[lo:hi], v[lo:hi]) for m, v in per_period]))
    return Evaluated(groups, options, bases, sums, _period_sums(sim, scope.periods, period_keys, per_period))


def _unspent(tier: CompiledTier) -> CompiledTier:
    """The tier as it prices with nothing spent: its budget and limit rules
    holding (the forecast's variant with every leaf true, `budget_leaves`),
    so the sweep keeps its vectorized path. The optimizer's budgets, of
    discount and of redemptions, are its own constraints (`budgets`);
    per-customer limits are left to the forecast's walk."""
    split = budgeted(tier)
    return tier if split is None else split.variants[-1]


@dataclass(frozen=True)
class _GroupChunk:
    """One chunk's sweep as one group reads it."""

    offered: np.ndarray  # (swept tiers, orders): discount where it gives, else -1
    pos: int  # the group's tier among the candidates
    rest: int  # the candidates' rows: 0..rest (the options follow)
    lo: int
    hi: int  # the group's option rows
    kinds: np.ndarray
    amount: np.ndarray
    margin: np.ndarray
    segment: np.ndarray  # each order's segment label ("" without the column)
    basket: np.ndarray  # a code per distinct (amount, margin, segment): what the expectations read of an order


def _offers(depth_cents: np.ndarray, amount: np.ndarray, kind: np.ndarray, segment: np.ndarray) -> Offers:
    """Depth: the discount over the order amount; distance 0 (an order the
    sweep says qualifies has passed any threshold)."""
    depth = depth_of(depth_cents, amount)
    return Offers(depth=depth, distance=np.zeros(len(depth)), kind=kind, segment=segment)


def _best(offered: np.ndarray, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The largest offer among `rows` per order (-1 none) and its row (first of the largest)."""
    if not rows:
        m = offered.shape[1]
        return np.full(m, -1, dtype=np.int64), np.zeros(m, dtype=np.int64)
    sub = offered[list(rows)]
    at = np.argmax(sub, axis=0)
    return sub[at, np.arange(sub.shape[1])], np.asarray(rows)[at]


def _reduce(c: _GroupChunk, in_segment: np.ndarray | None, model: ResponseModel, out: np.ndarray) -> _Entries | None:
    """Add what the rest of the scenario would bring on the orders each option wins
    to `out`, and return what the options win."""
    before, before_at = _best(c.offered, range(c.pos))
    after, after_at = _best(c.offered, range(c.pos + 1, c.rest))
    # the rest's best offer: the earlier tier wins a tie, as in the "best" policy
    rest = np.maximum(before, after)
    rest_at = np.where(before >= after, before_at, after_at)
    options = c.offered[c.lo:c.hi]
    # an option wins when it gives, beats every earlier tier and ties or beats every later one
    win = (options > 0) & (options > before[None, :]) & (options >= after[None, :])
    if in_segment is not None:
        win &= in_segment[None, :]
    row, order = np.nonzero(win)
    if not len(row):
        return None
    k = out.shape[0]
    # what the rest would bring on each order: one expectation per order, not per option
    rest_d = np.maximum(rest, 0).astype(np.float64)
    rest_kind = np.where(rest > 0, c.kinds[rest_at], "")
    theirs = expect(model, _offers(rest_d, c.amount, rest_kind, c.segment), c.amount, rest_d, goods=c.amount - c.margin)
    out[:, _DISPLACED] += np.bincount(row, weights=theirs.incremental_net_revenue[order], minlength=k)
    # the option's: kept as distinct (option, basket, discount) with how many share it, and
    # expected once per distinct entry of the whole batch (`_expect_won`): a month's
    # orders hold a few thousand distinct baskets, so most entries repeat
    d_all = options[row, order]
    first, count = _distinct(row, c.basket[order], d_all)
    return _Entries(row[first], c.basket[order[first]], d_all[first], count)


@dataclass(frozen=True)
class _Entries:
    """Distinct (option row, basket, discount) won, and how many orders share each."""

    row: np.ndarray
    basket: np.ndarray
    discount: np.ndarray
    count: np.ndarray

    @staticmethod
    def joined(parts: Sequence[_Entries]) -> _Entries:
        row = np.concatenate([p.row for p in parts])
        basket = np.concatenate([p.basket for p in parts])
        discount = np.concatenate([p.discount for p in parts])
        first, inverse = _distinct(row, basket, discount, inverse=True)
        count = np.bincount(inverse, weights=np.concatenate([p.count for p in parts]), minlength=len(first))
        return _Entries(row[first], basket[first], discount[first], count)


@dataclass(frozen=True)
class _Baskets:
    """Per order what the expectations read, and the group's options' kinds."""

    amount: np.ndarray
    margin: np.ndarray
    segment: np.ndarray
    code: np.ndarray
    kinds: np.ndarray
    periods: Sequence[np.ndarray] = ()  # per period counted in, each order's period (an index)


@dataclass(frozen=True)
class _Sums:
    """Where a group's options' figures are added: the sums, and per period
    counted in, redemptions and their variance per (option, period)."""

    sums: np.ndarray
    periods: Sequence[tuple[np.ndarray, np.ndarray]] = ()


def _expect_won(won: _Entries, baskets: _Baskets, model: ResponseModel, into: _Sums) -> None:
    """Add the options' expected figures on the orders they win to `out` (rows: options)."""
    first_order = np.empty(int(baskets.code.max()) + 1, dtype=np.int64)
    first_order[baskets.code[::-1]] = np.arange(len(baskets.code) - 1, -1, -1)
    order = first_order[won.basket]
    amount, margin = baskets.amount[order], baskets.margin[order]
    d = won.discount.astype(np.float64)
    mine = expect(model, _offers(d, amount, baskets.kinds[won.row], baskets.segment[order]), amount, d,
                  goods=amount - margin)
    variance = redemption_variance(mine.redemptions, mine.orders)
    columns = (np.ones(len(d)), mine.redemptions, mine.spend, variance * np.square(d),
               mine.incremental_spend, mine.subsidy, mine.incremental_net_revenue)
    out = into.sums
    k = out.shape[0]
    for j, values in enumerate(columns):
        out[:, j] += np.bincount(won.row, weights=values * won.count, minlength=k)
    out[:, _REDEMPTION_VARIANCE] += np.bincount(won.row, weights=variance * won.count, minlength=k)
    for code, (mean, var) in zip(baskets.periods, into.periods, strict=True):
        # every order of a basket code is in one period of each kind counted in (the code holds it)
        cell = won.row * mean.shape[1] + code[order]
        mean += np.bincount(cell, weights=mine.redemptions * won.count, minlength=mean.size).reshape(mean.shape)
        var += np.bincount(cell, weights=variance * won.count, minlength=var.size).reshape(var.shape)


def _distinct(row: np.ndarray, basket: np.ndarray, discount: np.ndarray, *,
              inverse: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The first entry of each distinct (row, basket, discount), and how many
    entries share it (or, `inverse`, which distinct entry each is)."""
    d_code, d_values = pd.factorize(discount)
    key = (row.astype(np.int64) * (int(basket.max()) + 1) + basket) * max(len(d_values), 1) + d_code
    ids, uniques = pd.factorize(key)
    first = np.empty(len(uniques), dtype=np.int64)
    first[ids[::-1]] = np.arange(len(key) - 1, -1, -1)  # the last write per id is its first entry
    if inverse:
        return first, ids
    return first, np.bincount(ids, minlength=len(uniques)).astype(np.float64)
