"""Forecast bands: N draws of who redeems, walked through the budgets, as quantiles.

A forecast's one walk says what happens when each order redeems by its one
draw (`CostModel.draws`). With `forecast(..., draws=N, seed=S)` the walk runs
N more times on the same candidates (the sweep runs once: only the walk
repeats), draw k comparing each order's rate with its own uniform, a keyed
hash of (order id, S) mixed with k (`draw_uniforms`): the same seed gives the
same draws on every run and every machine, so the same bytes.

Each draw is reduced at once to small arrays (per tier and day: redemptions,
discount, order amount; per budget rule: when it first refused an order and
how many), so N draws never hold N per-order frames. The quantiles are order
statistics (the `inverted_cdf` rule: P10 of 200 draws is the 20th smallest),
so a band's ends are outcomes that some draw had, in whole cents.

`ran_out_at`: a draw in which a budget never refuses an order counts as
"never", later than every instant; a quantile that falls among those draws is
NaT. Read `ran_out_at_p90 = NaT` as "in more than 10 % of draws it did not run
out"; `ran_out_share` says in how many it did.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..figures import figures
from .calendar_periods import period_start
from .spending import Spending, WalkPlan, WalkStart, WatchedTier, walk, walk_start
from .stacked import walk_stacked

if TYPE_CHECKING:
    from ...engine import CompiledTier
    from ...sim import PricingView, Simulator
    from ..orders import LineColumns
    from ..sweep import OrderBatch

__all__ = ["BAND_CURVE_COLUMNS", "BUDGET_BAND_COLUMNS", "DRAW_COLUMNS", "MOST_DRAWS", "QUANTILES", "TIER_BAND_COLUMNS",
           "BandFrames", "BandPlan", "DrawTotals", "ForecastBands", "StackedDraws", "all_draws", "band_frames", "band_plan",
           "draw_batches", "draw_uniforms", "run_draws"]

#: The quantiles every band reports (the 80 % band is P10-P90).
QUANTILES = (0.1, 0.5, 0.9)
#: The most draws a forecast takes: 10,000 draws of a million orders is already hours of walking.
MOST_DRAWS = 10_000
#: The seeds a band takes (as `CostModel.seed`: the hash key is 16 digits).
MOST_SEED = 10**16 - 1
_NEVER = np.iinfo(np.int64).max

#: Per budget rule of `ForecastResult.budgets` (same rows, same order): what it
#: counted over the forecast (`spent_*`, in its `measure`: redemptions, or minor
#: units of discount or order amount), the redemptions of the tiers it counts,
#: the share of draws in which it refused an order, and when it first did.
BUDGET_BAND_COLUMNS = (
    "tier_id", "campaign_id", "rule_id", "rule", "per_customer", "period", "measure", "limit",
    "spent_p10", "spent_p50", "spent_p90", "redemptions_p10", "redemptions_p50", "redemptions_p90",
    "ran_out_share", "ran_out_at_p10", "ran_out_at_p50", "ran_out_at_p90",
)  # fmt: skip
#: Per candidate tier: its redemptions and the discount it gave (minor units).
TIER_BAND_COLUMNS = (
    "tier_id", "campaign_id", "redemptions_p10", "redemptions_p50", "redemptions_p90",
    "spend_p10", "spend_p50", "spend_p90",
)  # fmt: skip
#: Per budget of everyone's total (not per customer) and day: its running total
#: (within its period for a daily / weekly / monthly one), what the fan chart draws.
BAND_CURVE_COLUMNS = ("tier_id", "rule", "period", "measure", "limit", "day", "spent_p10", "spent_p50", "spent_p90")
#: Per draw (0 .. N-1) and candidate tier: its redemptions and the discount it gave.
DRAW_COLUMNS = ("draw", "tier_id", "redemptions", "spend")
#: The per-day measures kept per tier: redemptions, discount, order amount.
_MEASURES = {"count": 0, "discount": 1, "order_amount": 2}


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a bijection of uint64 whose outputs pass as independent uniforms."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    mixed: np.ndarray = z ^ (z >> np.uint64(31))
    return mixed


def order_keys(order_ids: pd.Index, seed: int) -> np.ndarray:
    """Each order's key for the bands: a keyed hash of its id (stable across platforms)."""
    keys: np.ndarray = pd.util.hash_array(np.asarray(order_ids.astype(str), dtype=object), hash_key=f"{seed:016d}")
    return keys


def draw_uniforms(keys: np.ndarray, k: int) -> np.ndarray:
    """Draw k's uniform in [0, 1) per order, from the orders' keys (`order_keys`)."""
    with np.errstate(over="ignore"):
        z = keys + np.uint64((0x9E3779B97F4A7C15 * (k + 1)) % (1 << 64))
        mixed = _mix(z)
    return (mixed >> np.uint64(11)).astype(np.float64) / float(1 << 53)


@dataclass(frozen=True)
class StackedDraws:
    """What a draw of the "stack" policy walks beyond the plan: `walk_stacked`'s
    inputs (the simulator, read and never changed, its pricing view, the
    candidate tiers, the orders' lines). Each draw prices every stack with the
    engine, as the one walk does; only `WalkPlan.draws` differs."""

    sim: Simulator
    view: PricingView
    tiers: Sequence[CompiledTier]
    cols: LineColumns
    batch: OrderBatch


@dataclass(frozen=True)
class BandPlan:
    """What every draw reads, computed once: the walk's plan and its
    draw-independent start (`spending.walk_start`: the verdicts settled, the
    contested orders, each order's chance), the orders' keys, each order's
    day, and the budget rules in the `budgets` frame's order (watched
    position, leaf index). Plain data: it is shipped to each Dask worker once.
    `stacked`: the "stack" policy's walk (then `start` is None: that walk
    prices each order with the engine and has no draw-independent start)."""

    plan: WalkPlan
    start: WalkStart | None
    keys: np.ndarray
    #: per order (input position), its day's index in `days`
    day: np.ndarray
    n_days: int
    n_tiers: int
    #: per budget rule: (candidate position, leaf index)
    rules: tuple[tuple[int, int], ...]
    stacked: StackedDraws | None = None


@dataclass(frozen=True)
class DrawTotals:
    """One draw, reduced: per tier x day x measure (redemptions, discount, amount),
    and per rule the first refusal (UTC ns, `_NEVER`) and the orders refused."""

    by_tier_day: np.ndarray
    first_refusal: np.ndarray
    refused: np.ndarray


def band_plan(plan: WalkPlan, order_ids: pd.Index, seed: int, n_tiers: int, start: WalkStart | None = None,
              stacked: StackedDraws | None = None) -> BandPlan:
    """The once-computed part: the walk's start (`start`, or computed here;
    none for `stacked`), the orders' keys and days; the budget rules.

    Under "stack" an order redeems several tiers, so a budget that counts
    order amounts (once per order however many of the campaign's tiers it
    redeems) is not a sum over tiers, which is what the bands add up:
    refused, as a clear ValueError."""
    days, day = np.unique(plan.periods[0], return_inverse=True)
    rules = tuple((w.position, j) for w in plan.watched if w.budget is not None for j in range(len(w.budget.leaves)))
    if stacked is not None:
        amounts = sorted({w.tier_id for w in plan.watched if w.budget is not None
                          for leaf in w.budget.leaves if leaf.query.measure == "order_amount"})
        if amounts:
            raise ValueError("forecast bands under policy 'stack' add up what each tier redeemed; the order-amount "
                             f"budgets of {', '.join(amounts)} count an order once however many tiers it redeems: "
                             "leave those tiers out (tiers=) or forecast bands with policy 'best'")
    elif start is None:
        start = walk_start(plan)
    return BandPlan(plan, start, order_keys(order_ids, seed), day.astype(np.int64), len(days), n_tiers, rules,
                    stacked)


def _reduce(bands: BandPlan, spent: Spending, placed_at: np.ndarray) -> DrawTotals:
    """A draw's spending as `DrawTotals` (vectorised: a few passes over the
    orders): per tier redeemed (a stack's every tier, `Spending.children`;
    else each redeeming order's one tier), its day, discount and order amount."""
    if spent.children is not None:
        rows, tier, given = spent.children
    else:
        rows = np.flatnonzero(spent.redeemed)
        tier, given = spent.tier[rows], spent.discount[rows]
    cell = tier.astype(np.int64) * bands.n_days + bands.day[rows]
    size = bands.n_tiers * bands.n_days
    amount = bands.plan.found.amount[rows]
    table = np.stack([np.bincount(cell, minlength=size),
                      np.bincount(cell, weights=given, minlength=size).astype(np.int64),
                      np.bincount(cell, weights=amount, minlength=size).astype(np.int64)], axis=-1)
    n_rules = len(bands.rules)
    first = np.full(n_rules, _NEVER, dtype=np.int64)
    refused = np.zeros(n_rules, dtype=np.int64)
    held = spent.held_tier >= 0
    if n_rules and held.any():
        code = _codes(bands.rules, spent.held_tier[held], spent.held_leaf[held])
        when = placed_at[held]
        ok = code >= 0
        refused = np.bincount(code[ok], minlength=n_rules).astype(np.int64)
        np.minimum.at(first, code[ok], when[ok])
    return DrawTotals(table.reshape(bands.n_tiers, bands.n_days, 3), first, refused)


def _codes(rules: Sequence[tuple[int, int]], tier: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """Each refusal's rule index (-1: a rule not listed), vectorised through a (tier, leaf) table."""
    most_tier = max(max(t for t, _ in rules), int(tier.max())) + 1
    most_leaf = max(max(j for _, j in rules), int(leaf.max())) + 1
    table = np.full((most_tier, most_leaf), -1, dtype=np.int64)
    for r, (t, j) in enumerate(rules):
        table[t, j] = r
    codes: np.ndarray = table[tier, leaf.astype(np.int64)]
    return codes


def run_draws(bands: BandPlan, draws: Sequence[int], placed_at: np.ndarray) -> list[DrawTotals]:
    """Walk the plan once per draw index in `draws`, each on a fresh copy of
    the ledger, from the one `start` (only the draw-dependent part of the walk repeats)."""
    out = []
    stacked = bands.stacked
    for k in draws:
        plan = replace(bands.plan, draws=draw_uniforms(bands.keys, k), ledger=bands.plan.ledger.copy())
        if stacked is not None:
            spent = walk_stacked(stacked.sim, stacked.view, stacked.tiers, plan, stacked.cols, stacked.batch)
        else:
            spent = walk(plan, bands.start)
        out.append(_reduce(bands, spent, placed_at))
    return out


#: Batches of draws per worker thread: one each would leave a worker idle at the end when
#: the other is slowed (a shared machine); two keep that tail to half a batch, and each
#: batch is still seconds of walking against a hand-off of milliseconds.
BATCHES_PER_WORKER = 2


def draw_batches(n: int, workers: int) -> list[range]:
    """Draws 0 .. n-1 cut into `BATCHES_PER_WORKER` runs per worker (fewer
    when there are fewer draws), in order and of sizes differing by at most
    one: few large tasks, since every draw costs the same."""
    parts = max(1, min(n, BATCHES_PER_WORKER * max(1, workers)))
    edges = np.linspace(0, n, parts + 1).astype(np.int64)
    return [range(int(a), int(b)) for a, b in itertools.pairwise(edges) if b > a]


def all_draws(bands: BandPlan, n: int, placed_at: np.ndarray, *, engine: str = "pandas",
              client: Any = None) -> list[DrawTotals]:
    """Draws 0 .. n-1, in order: here (engine "pandas"), or fanned out on Dask
    in a few batches per worker (`draw_batches`): the local threaded scheduler,
    or `client`, a `distributed.Client`, to whose workers the plan is
    scattered once (a task carries its batch's range and the plan's key, not
    the plan). Each draw depends on its index only, so every engine gives the
    same totals."""
    if engine not in ("pandas", "dask"):
        raise ValueError(f"engine must be 'pandas' or 'dask', got {engine!r}")
    if engine == "pandas":
        return run_draws(bands, range(n), placed_at)
    if client is None:
        import os

        import dask.threaded

        runs = draw_batches(n, os.cpu_count() or 1)
        dsk: dict[Any, Any] = {"promolab-bands-plan": bands, "promolab-bands-placed": placed_at}
        dsk.update({("promolab-bands", i): (run_draws, "promolab-bands-plan", run, "promolab-bands-placed")
                    for i, run in enumerate(runs)})
        done = dask.threaded.get(dsk, [("promolab-bands", i) for i in range(len(runs))])
        return [t for part in done for t in part]
    runs = draw_batches(n, sum(client.nthreads().values()))
    shipped = client.scatter([bands, placed_at], broadcast=True)
    futures = [client.submit(run_draws, shipped[0], run, shipped[1], pure=False) for run in runs]
    return [t for part in client.gather(futures) for t in part]


def _order_stat(values: np.ndarray, q: float) -> np.ndarray:
    """The `inverted_cdf` quantile along axis 0: an observed value (whole cents stay whole)."""
    ranked = np.sort(values, axis=0, kind="stable")
    n = ranked.shape[0]
    picked: np.ndarray = ranked[max(math.ceil(q * n) - 1, 0)]
    return picked


@dataclass(frozen=True)
class ForecastBands:
    """A forecast's bands (`ForecastResult.bands`): `budgets` (`BUDGET_BAND_COLUMNS`),
    `tiers` (`TIER_BAND_COLUMNS`), `curves` (`BAND_CURVE_COLUMNS`, the fan chart's),
    from `draws` draws keyed by `seed`."""

    budgets: pd.DataFrame
    tiers: pd.DataFrame
    curves: pd.DataFrame
    draws: int
    seed: int
    #: per draw and tier (`DRAW_COLUMNS`): what each draw redeemed, the outcomes the quantiles summarise
    per_draw: pd.DataFrame


@dataclass(frozen=True)
class BandFrames:
    """What the frames are labelled with: the budgets frame's rule columns (its
    rows), the candidate tiers and campaigns, the watched tiers, the days, the
    project's time zone and currency."""

    budget_rules: pd.DataFrame
    tier_ids: Sequence[str]
    campaign_ids: Sequence[str]
    watched: Sequence[WatchedTier]
    period_keys: tuple[np.ndarray, np.ndarray, np.ndarray]
    timezone: str
    currency: str


def _counted(watched: Sequence[WatchedTier], position: int, leaf: int) -> list[int]:
    """The candidate positions a budget rule counts: its tier, or every tier of its campaign."""
    owner = next(w for w in watched if w.position == position)
    assert owner.budget is not None
    if owner.budget.leaves[leaf].query.scope == "campaign":
        return [w.position for w in watched if w.campaign_id == owner.campaign_id]
    return [position]


def _instants(ns: np.ndarray, timezone: str) -> pd.DatetimeIndex:
    return pd.DatetimeIndex(np.where(ns == _NEVER, np.iinfo(np.int64).min, ns).view("datetime64[ns]"),
                            tz="UTC").tz_convert(timezone)


def band_frames(bands: BandPlan, totals: Sequence[DrawTotals], labels: BandFrames, seed: int) -> ForecastBands:
    """The quantiles over the draws, as the documented frames."""
    table = np.stack([t.by_tier_day for t in totals])  # draws x tiers x days x measures
    per_tier = table.sum(axis=2)  # draws x tiers x measures
    tiers = pd.DataFrame({"tier_id": pd.array(list(labels.tier_ids), dtype="string"),
                          "campaign_id": pd.array(list(labels.campaign_ids), dtype="string")})
    for name, m in (("redemptions", 0), ("spend", 1)):
        for q in QUANTILES:
            tiers[f"{name}_p{round(q * 100)}"] = _order_stat(per_tier[:, :, m], q)
    budgets = labels.budget_rules.reset_index(drop=True).copy()
    first = np.stack([t.first_refusal for t in totals]) if bands.rules else np.zeros((len(totals), 0), np.int64)
    day_index = np.unique(labels.period_keys[0], return_index=True)[1]
    first_keys = (labels.period_keys[0][day_index], labels.period_keys[1][day_index], labels.period_keys[2][day_index])
    day_start = period_start(first_keys, "day", labels.timezone)
    curves = []
    spent_cols: dict[float, list[int]] = {q: [] for q in QUANTILES}
    counted_cols: dict[float, list[int]] = {q: [] for q in QUANTILES}
    for r, (position, leaf) in enumerate(bands.rules):
        row = budgets.iloc[r]
        counted = _counted(labels.watched, position, leaf)
        daily = table[..., _MEASURES.get(str(row["measure"]), 1)][:, counted, :].sum(axis=1)  # draws x days
        count = table[..., 0][:, counted, :].sum(axis=(1, 2))
        for q in QUANTILES:
            spent_cols[q].append(int(_order_stat(daily.sum(axis=1), q)))
            counted_cols[q].append(int(_order_stat(count, q)))
        if not bool(row["per_customer"]):
            curves.append(_curve(row, daily, first_keys, day_start))
    for name, cols in (("spent", spent_cols), ("redemptions", counted_cols)):
        for q in QUANTILES:
            budgets[f"{name}_p{round(q * 100)}"] = pd.array(cols[q], dtype="Int64")
    budgets["ran_out_share"] = pd.array((first != _NEVER).mean(axis=0) if len(totals) else [], dtype="Float64")
    for q in QUANTILES:
        budgets[f"ran_out_at_p{round(q * 100)}"] = _instants(_order_stat(first, q), labels.timezone)
    curve = pd.concat(curves, ignore_index=True) if curves else _no_curves(labels.timezone)
    n, t = per_tier.shape[0], per_tier.shape[1]
    per_draw = pd.DataFrame({"draw": np.repeat(np.arange(n, dtype=np.int64), t),
                             "tier_id": pd.array(list(labels.tier_ids) * n, dtype="string"),
                             "redemptions": per_tier[:, :, 0].reshape(-1), "spend": per_tier[:, :, 1].reshape(-1)})
    return ForecastBands(figures(budgets[list(BUDGET_BAND_COLUMNS)], labels.currency),
                         figures(tiers, labels.currency), figures(curve[list(BAND_CURVE_COLUMNS)], labels.currency),
                         len(totals), seed, figures(per_draw, labels.currency))


def _curve(row: Any, daily: np.ndarray, keys: tuple[np.ndarray, np.ndarray, np.ndarray],
           day_start: pd.Series) -> pd.DataFrame:
    """A budget's running total per day and draw (restarting with its period), quantiles per day."""
    period = row["period"]
    slot = {"daily": 0, "weekly": 1, "monthly": 2}.get(str(period)) if not pd.isna(period) else None
    running = np.zeros_like(daily)
    group = keys[slot] if slot is not None else np.zeros(daily.shape[1], dtype=np.int64)
    for g in np.unique(group):
        cols = np.flatnonzero(group == g)
        running[:, cols] = np.cumsum(daily[:, cols], axis=1)
    n = daily.shape[1]
    frame = pd.DataFrame({name: pd.array([row[name]] * n, dtype="string") for name in ("tier_id", "rule", "period", "measure")})
    frame["limit"] = pd.array([row["limit"]] * n, dtype="Int64")
    frame["day"] = pd.DatetimeIndex(day_start)
    for q in QUANTILES:
        frame[f"spent_p{round(q * 100)}"] = _order_stat(running, q)
    return frame


def _no_curves(timezone: str) -> pd.DataFrame:
    frame = pd.DataFrame({c: pd.array([], dtype="string") for c in ("tier_id", "rule", "period", "measure")})
    frame["limit"] = pd.array([], dtype="Int64")
    frame["day"] = pd.DatetimeIndex([], tz=timezone)
    for q in QUANTILES:
        frame[f"spent_p{round(q * 100)}"] = pd.array([], dtype="Int64")
    return frame
