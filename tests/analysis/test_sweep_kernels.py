"""The sweep's fast paths against their references (issue #7, performance).

- `PaddedCodes.sums` against a plain per-order loop, including orders longer
  than the grid (their extra lines go through `np.add.at`);
- `distinct_lines` numbers lines so that every line is recovered exactly;
- the identity the summed proportional kernel rests on:
  `sum(split_proportionally(total, w, caps)) == min(total, sum of caps where w > 0)`;
- summed kernels (`columns` / `from_sums`) against the line-by-line ones
  (`discount`) on random tiers, and the chunk's own lines against a batch's
  distinct lines, and a narrow grid, each against the engine;
- tiers sharing a rule (one mask per chunk), and amounts too large for int64
  arithmetic (the engine prices them).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.analysis import OrderBatch, prepare_orders, sweep
from promolab.analysis.sweep import lineset, padded
from promolab.analysis.sweep.batch import Chunk
from promolab.analysis.sweep.bound import BoundSweep
from promolab.analysis.sweep.instants import OrderClock
from promolab.analysis.sweep.lineset import distinct_lines
from promolab.analysis.sweep.padded import pad_codes
from promolab.analysis.sweep.plan import bind_tiers, plan_tiers
from promolab.analysis.sweep.runner import Outputs, TierColumns, evaluate_range
from promolab.analysis.sweep.vectorized import DiscountKernel
from promolab.engine import (
    CampaignInfo,
    CompiledTier,
    PricingContext,
    TierSpec,
    compile_tier,
    split_proportionally,
)
from promolab.sim.promotions import pricing_view

from .support import assert_same_rows, engine_rows, random_orders, random_tiers


# -- padded sums -------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(
    counts=st.lists(st.integers(0, 9), min_size=0, max_size=40),
    width=st.one_of(st.none(), st.integers(0, 5)),
    columns=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_padded_sums_equal_a_plain_loop(counts: list[int], width: int | None, columns: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    subjects = 7
    code = rng.integers(0, subjects, size=int(starts[-1])).astype(np.int32)
    table = np.zeros((subjects + 1, columns), dtype=np.int64)
    table[:-1] = rng.integers(-1000, 1000, size=(subjects, columns))
    want = np.array([table[code[a:b]].sum(axis=0) for a, b in itertools.pairwise(starts)]).reshape(-1, columns)
    grid = pad_codes(code, starts, subjects, width)
    np.testing.assert_array_equal(grid.sums(table), want)
    np.testing.assert_array_equal(grid.sums(np.ascontiguousarray(table[:, 0])), want[:, 0])
    # A batch's stored grid, windowed as chunks do (and sliced as dask partitions do).
    stored = pad_codes(code, starts, subjects, width, compact=True)
    assert stored.grid.dtype == np.int16
    n = len(counts)
    for a, b in [(0, n), (0, n // 2), (n // 3, n)]:
        longest = max(counts[a:b], default=0)
        part = stored.window(a, b, working=False).window(0, b - a, longest)
        np.testing.assert_array_equal(part.sums(table), want[a:b])


def test_padded_sums_in_steps_equal_one_step(monkeypatch: pytest.MonkeyPatch) -> None:
    # Chunks sum their orders _SUM_STEP at a time; a tiny step must change nothing.
    rng = np.random.default_rng(5)
    counts = rng.integers(1, 9, size=1_000)
    starts = np.concatenate([[0], np.cumsum(counts)])
    code = rng.integers(0, 30, size=int(starts[-1]))
    table = np.zeros((31, 3), dtype=np.int64)
    table[:-1] = rng.integers(0, 10_000, size=(30, 3))
    want = np.array([table[code[a:b]].sum(axis=0) for a, b in itertools.pairwise(starts)])
    monkeypatch.setattr(padded, "_SUM_STEP", 7)
    for width in (None, 4):
        grid = pad_codes(code, starts, 30, width)
        np.testing.assert_array_equal(grid.sums(table), want)
        np.testing.assert_array_equal(grid.sums(np.ascontiguousarray(table[:, 1])), want[:, 1])


# -- distinct lines ----------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(
    keys=st.lists(st.tuples(st.integers(0, 5), st.integers(1, 4), st.sampled_from([-1, -1, 0, 250, 999])),
                  min_size=1, max_size=60),
    with_price=st.booleans(),
)
def test_distinct_lines_recover_every_line(keys: list[tuple[int, int, int]], with_price: bool) -> None:
    key = np.array([k for k, _, _ in keys], dtype=np.int32)
    quantity = np.array([q for _, q, _ in keys], dtype=np.int64)
    price = np.array([p for _, _, p in keys], dtype=np.int64) if with_price else None
    keyprice = np.array([100, -1, 300, 0, 55, 7], dtype=np.int64)
    found = distinct_lines(key, quantity, price, keyprice)
    assert found is not None
    code, lines = found
    np.testing.assert_array_equal(lines.key[code], key)
    np.testing.assert_array_equal(lines.quantity[code], quantity)
    resolved = keyprice[key] if price is None else np.where(price >= 0, price, keyprice[key])
    np.testing.assert_array_equal(lines.price[code], resolved)
    np.testing.assert_array_equal(lines.amount[code], np.where(resolved >= 0, resolved * quantity, 0))
    assert lines.size == len(set(keys if with_price else [(k, q) for k, q, _ in keys]))


# -- the proportional identity -----------------------------------------------------------------
@settings(max_examples=400, deadline=None)
@given(
    total=st.integers(0, 50_000),
    lines=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 20_000)), min_size=0, max_size=8),
)
def test_a_proportional_split_gives_away_the_caps_of_weighted_lines(total: int, lines: list[tuple[int, int]]) -> None:
    weights = [w for w, _ in lines]
    caps = [c for _, c in lines]
    shares = split_proportionally(total, weights, caps)
    assert sum(shares) == min(total, sum(c for w, c in lines if w > 0))


# -- summed kernels == line-by-line kernels ----------------------------------------------------
@pytest.mark.parametrize("seed", [31, 32, 33])
def test_summed_kernels_equal_the_line_by_line_ones(sim: Simulator, seed: int) -> None:
    view = pricing_view(sim)
    tiers = random_tiers(120, seed)
    batch = prepare_orders(sim, random_orders(3_000, seed=200 + seed))
    assert batch.distinct is not None
    plans = plan_tiers(tiers, batch.keys, view.catalogue)
    bound = bind_tiers(plans, tiers, batch, view.catalogue, OrderClock(PricingContext(now=sim.now)))
    columns = TierColumns(bound)
    distinct = batch.distinct.fresh()
    chunk = Chunk(batch, 0, batch.n_orders, distinct, stack=columns.table)
    compared = 0
    for t, bt in enumerate(bound):
        kernel = bt.kernel
        sums = columns.sums(chunk, t)
        if not isinstance(kernel, DiscountKernel) or (sums is None and not kernel.order_level):
            continue
        np.testing.assert_array_equal(kernel.from_sums(sums, chunk.amount),
                                      kernel.discount(chunk, np.ones(chunk.n, dtype=bool)), err_msg=bt.tier.id)
        compared += 1
    assert compared >= 40


# -- subject sets and grid widths, against the engine ------------------------------------------
def test_chunks_of_their_own_lines_equal_the_engine(sim: Simulator, monkeypatch: pytest.MonkeyPatch) -> None:
    # Too many distinct lines: every chunk evaluates its own lines.
    monkeypatch.setattr(lineset, "MAX_DISTINCT", 0)
    tiers = random_tiers(30, 41)
    orders = random_orders(700, seed=141)
    batch = prepare_orders(sim, orders)
    assert batch.distinct is None and batch.line_code is None
    result = sweep(sim, batch, tiers, progress=False, metadata={"channel": "app"}, chunk_size=300)
    assert_same_rows(result.frame, engine_rows(sim, orders, tiers, sim.now, {"channel": "app"}))
    orders = random_orders(1_500, seed=142)
    result = sweep(sim, orders, progress=False, chunk_size=512)
    assert_same_rows(result.frame, engine_rows(sim, orders, pricing_view(sim).tiers, sim.now))


def _outputs(sim: Simulator, batch: OrderBatch, tiers: list[CompiledTier], *, width: int | None,
             chunk_size: int) -> Outputs:
    view = pricing_view(sim)
    plans = plan_tiers(tiers, batch.keys, view.catalogue)
    clock = OrderClock(PricingContext(now=sim.now))
    bound = BoundSweep(plans, bind_tiers(plans, tiers, batch, view.catalogue, clock), batch, view.catalogue,
                       clock.base, clock)
    out = Outputs.allocate(batch.n_orders, len(tiers), codes=True)
    done: list[int] = []
    evaluate_range(bound, 0, batch.n_orders, out, chunk_size=chunk_size, width=width, on_chunk=done.append)
    assert sum(done) == batch.n_orders and len(done) == -(-batch.n_orders // chunk_size)  # progress per chunk
    return out


@pytest.mark.parametrize("width", [0, 1, 3])
def test_orders_longer_than_the_grid_add_their_extra_lines(sim: Simulator, width: int) -> None:
    tiers = random_tiers(25, 51) + list(pricing_view(sim).tiers)
    batch = prepare_orders(sim, random_orders(1_200, seed=151))
    want = _outputs(sim, batch, tiers, width=None, chunk_size=1_200)
    got = _outputs(sim, batch, tiers, width=width, chunk_size=257)
    for name in ("valid", "discount", "na", "total", "reason", "order_code", "tier_code"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


def test_the_default_grid_equals_the_engine_on_long_orders(sim: Simulator) -> None:
    # Mostly 1-2 line orders and a few of 40 lines: the grid is narrower than the longest order.
    orders = random_orders(600, seed=161)
    long = random_orders(4, seed=162)
    long = pd.concat([long] * 10, ignore_index=True).sort_values("order_id", kind="stable")
    long["order_id"] += 100_000
    orders = pd.concat([orders[orders.groupby("order_id").cumcount() < 2], long], ignore_index=True)
    tiers = random_tiers(20, 61)
    batch = prepare_orders(sim, orders)
    chunk = Chunk(batch, 0, batch.n_orders)
    assert chunk.codes.width < int(chunk.n_lines.max()) and chunk.codes.extra_order is not None
    result = sweep(sim, batch, tiers, progress=False)
    assert_same_rows(result.frame, engine_rows(sim, orders, tiers, sim.now))


# -- rules shared by tiers ---------------------------------------------------------------------
def test_tiers_sharing_a_rule_equal_the_engine(sim: Simulator) -> None:
    shared = {"name": "order.items.any", "conditions": {"$in": ["pc_beans"]},
              "rules": {"1": {"name": "product.quantity", "conditions": {"$more_than_or_equal": [2]}}}}
    amount = {"name": "order.amount", "conditions": {"$more_than": [4000]}}
    specs = [
        TierSpec(id=f"promo_shared_{i}", campaign=CampaignInfo(id="camp_shared"), name=f"shared {i}",
                 discount={"type": "PERCENT", "percent_off": 10 + i, "effect": "APPLY_TO_ORDER"},
                 rules={"rules": {"1": shared, "2": amount, "logic": logic}})
        for i, logic in enumerate(["1", "1 and 2", "2 or 1", "not 1"])
    ]
    tiers = [compile_tier(s) for s in specs]
    orders = random_orders(800, seed=171)
    result = sweep(sim, orders, tiers, progress=False)
    assert set(result.paths["path"]) == {"vectorized"}
    assert_same_rows(result.frame, engine_rows(sim, orders, tiers, sim.now))


# -- amounts beyond int64 arithmetic -----------------------------------------------------------
@pytest.mark.parametrize("case", ["past 2**52", "product past 2**62"])
def test_amounts_too_large_for_int64_products_are_priced_by_the_engine(sim: Simulator, case: str) -> None:
    # One line per order, every third one huge: at the largest exact price (order
    # amounts past 2**52: percent and per-line arithmetic would leave int64, the
    # kernels raise Overflow), or with price x quantity at 2**62 (the chunk is
    # flagged before any arithmetic).
    orders = random_orders(120, seed=181)
    orders = orders[orders.groupby("order_id").cumcount() == 0].reset_index(drop=True)
    orders["price"] = orders["price"].astype("Int64")
    huge = orders["order_id"] % 3 == 0
    if case == "past 2**52":
        orders.loc[huge, "price"] = 2**52 - 1
    else:
        orders.loc[huge, "price"] = 2**40
        orders.loc[huge, "quantity"] = 2**22
    tiers = list(pricing_view(sim).tiers) + random_tiers(15, 71)
    batch = prepare_orders(sim, orders)
    flagged = [Chunk(batch, a, min(a + 40, batch.n_orders)).overflow for a in range(0, batch.n_orders, 40)]
    assert all(flagged) == (case != "past 2**52") and any(flagged) == all(flagged)
    result = sweep(sim, batch, tiers, progress=False, chunk_size=40)
    assert_same_rows(result.frame, engine_rows(sim, orders, tiers, sim.now))


# -- edges ---------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_no_orders_and_one_order(sim: Simulator, engine: str) -> None:
    orders = random_orders(5, seed=191)
    tiers = list(pricing_view(sim).tiers)
    for part in (orders.iloc[:0], orders[orders["order_id"] == orders["order_id"].iloc[0]]):
        result = sweep(sim, part, engine=engine, progress=False)
        assert len(result.frame) == part["order_id"].nunique() * len(tiers)
        assert_same_rows(result.frame, engine_rows(sim, part, tiers, sim.now))
