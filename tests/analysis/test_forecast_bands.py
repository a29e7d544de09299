"""Forecast bands (`forecast(..., draws=N, seed=S)`): the one-walk result is
unchanged, the bands are what the draws say (each draw differentially against
a one-walk forecast with the same uniforms), the same seed gives the same bytes
(here, on Dask threads and on Dask worker processes), the 80 % band covers
held-out outcomes 80 % +- 5 % of the time, and the CLI writes them or refuses
bad options with exit 2 and nothing written."""

from __future__ import annotations

import importlib
import io
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from promolab import Simulator, samples
from promolab.analysis import CostModel, forecast
from promolab.analysis.forecast import ForecastResult
from promolab.analysis.forecast.bands import (
    BAND_CURVE_COLUMNS,
    BUDGET_BAND_COLUMNS,
    DRAW_COLUMNS,
    MOST_DRAWS,
    TIER_BAND_COLUMNS,
    draw_uniforms,
    order_keys,
)
from promolab.cli import main

api = importlib.import_module("promolab.analysis.forecast.api")
BUDGETS = samples.forecast_scenario()
RATE = CostModel(redemption_rate=0.6)


@pytest.fixture(scope="module")
def sim() -> Simulator:
    return Simulator.from_scenario(BUDGETS)


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    month = pd.read_parquet(samples.month_orders())
    return month[month["order_id"].isin(month["order_id"].unique()[:1500])].reset_index(drop=True)


@pytest.fixture(scope="module")
def banded(sim: Simulator, sample: pd.DataFrame) -> ForecastResult:
    return forecast(sim, sample, costs=RATE, draws=40, seed=7, progress=False)


def _parquet(frame: pd.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


def test_without_draws_nothing_changes_and_with_draws_the_one_walk_stays(sim: Simulator, sample: pd.DataFrame,
                                                                         banded: ForecastResult) -> None:
    plain = forecast(sim, sample, costs=RATE, progress=False)
    assert plain.bands is None
    pd.testing.assert_frame_equal(banded.orders, plain.orders, check_exact=True)
    pd.testing.assert_frame_equal(banded.budgets, plain.budgets, check_exact=True)
    with pytest.raises(ValueError, match="no bands"):
        plain.plot_bands()


def test_documented_columns_and_dtypes(banded: ForecastResult) -> None:
    bands = banded.bands
    assert bands is not None and bands.draws == 40 and bands.seed == 7
    assert tuple(bands.budgets.columns) == BUDGET_BAND_COLUMNS
    assert tuple(bands.tiers.columns) == TIER_BAND_COLUMNS
    assert tuple(bands.curves.columns) == BAND_CURVE_COLUMNS
    assert list(bands.budgets["rule"]) == list(banded.budgets["rule"])  # the same rows, in the same order
    assert list(bands.tiers["tier_id"]) == list(banded.tier_ids)
    for frame in (bands.budgets, bands.tiers):
        for q in ("p10", "p50", "p90"):
            column = f"spent_{q}" if "spent_p10" in frame.columns else f"spend_{q}"
            assert str(frame[column].dtype) == "Int64"
    assert str(bands.budgets["ran_out_at_p50"].dtype) == f"datetime64[ns, {banded.timezone}]"
    assert bands.budgets.attrs["currency"] == banded.currency
    for lo, mid, hi in (("spent_p10", "spent_p50", "spent_p90"), ("redemptions_p10", "redemptions_p50", "redemptions_p90")):
        assert (bands.budgets[lo] <= bands.budgets[mid]).all() and (bands.budgets[mid] <= bands.budgets[hi]).all()


def _one_walk_with(sim: Simulator, sample: pd.DataFrame, uniforms: np.ndarray) -> ForecastResult:
    """The one-walk forecast whose orders draw `uniforms` (input positions)."""
    saved = api.CostModel.draws
    try:
        api.CostModel.draws = lambda self, ids: uniforms  # type: ignore[method-assign]  # one draw, given
        return forecast(sim, sample, costs=RATE, progress=False)
    finally:
        api.CostModel.draws = saved  # type: ignore[method-assign]


def test_each_draw_is_a_one_walk_forecast_and_the_quantiles_are_their_order_statistics(sim: Simulator,
                                                                                       sample: pd.DataFrame) -> None:
    """Differential: draw k's totals are those of the ordinary forecast walking draw k's uniforms."""
    n = 5
    result = forecast(sim, sample, costs=RATE, draws=n, seed=11, progress=False)
    assert result.bands is not None
    ids = pd.Index(sample["order_id"].drop_duplicates().to_numpy())
    keys = order_keys(ids, 11)
    walks = [_one_walk_with(sim, sample, draw_uniforms(keys, k)) for k in range(n)]
    redemptions = np.array([[int((w.orders["tier_id"] == t).sum()) for t in result.tier_ids] for w in walks])
    discount = np.array([[int(w.orders.loc[(w.orders["tier_id"] == t).to_numpy(dtype=bool), "discount"].sum())
                          for t in result.tier_ids] for w in walks])
    ranked = np.sort(redemptions, axis=0)
    assert list(result.bands.tiers["redemptions_p10"]) == list(ranked[0])  # ceil(0.1 * 5) = 1st
    assert list(result.bands.tiers["redemptions_p50"]) == list(ranked[2])
    assert list(result.bands.tiers["redemptions_p90"]) == list(ranked[4])
    assert list(result.bands.tiers["spend_p90"]) == list(np.sort(discount, axis=0)[4])
    first = np.array([[np.datetime64(t.tz_convert("UTC").tz_localize(None), "ns") if not pd.isna(t)
                       else np.datetime64("NaT", "ns") for t in w.budgets["ran_out_at"]] for w in walks])
    ran_out = (~np.isnat(first)).mean(axis=0)
    assert list(result.bands.budgets["ran_out_share"]) == pytest.approx(list(ran_out))


def test_draws_differ_and_the_seed_decides(sim: Simulator, sample: pd.DataFrame, banded: ForecastResult) -> None:
    keys = order_keys(pd.Index(["a", "b", "c"]), 7)
    assert not np.array_equal(draw_uniforms(keys, 0), draw_uniforms(keys, 1))
    again = forecast(sim, sample, costs=RATE, draws=40, seed=7, progress=False)
    assert again.bands is not None and banded.bands is not None
    for name in ("budgets", "tiers", "curves"):
        assert _parquet(getattr(again.bands, name)) == _parquet(getattr(banded.bands, name))
    other = forecast(sim, sample, costs=RATE, draws=40, seed=8, progress=False)
    assert other.bands is not None
    assert not other.bands.tiers.equals(banded.bands.tiers)


@pytest.mark.parametrize(("options", "message"), [
    ({"draws": 0}, "draws must be"), ({"draws": MOST_DRAWS + 1}, "draws must be"), ({"draws": True}, "draws must be"),
    ({"draws": 2, "seed": -1}, "seed must be"), ({"draws": 2, "seed": 10**16}, "seed must be"),
    ({"draws": 2, "engine": "spark"}, "engine must be"), ({"draws": 2, "policy": ["promo_beans_15"]}, "policy 'best' or 'stack'"),
    ({"draws": 2, "policy": "stack", "engine": "dask", "client": object()}, "worker processes"),
])
def test_bad_band_options_are_refused(sim: Simulator, sample: pd.DataFrame, options: dict[str, Any],
                                      message: str) -> None:
    with pytest.raises(ValueError, match=message):
        forecast(sim, sample, progress=False, **options)


def test_unknown_keyword_names_the_nearest(sim: Simulator, sample: pd.DataFrame) -> None:
    with pytest.raises(TypeError, match="did you mean 'draws'"):
        forecast(sim, sample, drawz=3)  # type: ignore[call-arg]  # the mistake under test


def test_fan_chart_draws_each_budget_of_everyones_total(banded: ForecastResult) -> None:
    import matplotlib

    matplotlib.use("Agg")
    fig = banded.plot_bands()
    assert banded.bands is not None
    drawn = banded.bands.curves[["tier_id", "rule"]].drop_duplicates()
    assert len(fig.axes) == len(drawn) >= 1
    for ax in fig.axes:
        assert ax.collections, "the P10-P90 band"
        assert any(str(line.get_label()).startswith("limit") for line in ax.get_lines())
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_dask_threads_equal_local(sim: Simulator, sample: pd.DataFrame, banded: ForecastResult) -> None:
    pytest.importorskip("dask")
    got = forecast(sim, sample, costs=RATE, draws=40, seed=7, engine="dask", progress=False)
    assert got.bands is not None and banded.bands is not None
    for name in ("budgets", "tiers", "curves"):
        assert _parquet(getattr(got.bands, name)) == _parquet(getattr(banded.bands, name))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_dask_worker_processes_equal_local(sim: Simulator, sample: pd.DataFrame, banded: ForecastResult,
                                           process_cluster: Any) -> None:
    import distributed

    with distributed.Client(process_cluster) as client:
        pids = client.run(os.getpid)
        assert len(pids) == 2 and os.getpid() not in pids.values()
        got = forecast(sim, sample, costs=RATE, draws=40, seed=7, engine="dask", client=client, progress=False)
    assert got.bands is not None and banded.bands is not None
    for name in ("budgets", "tiers", "curves"):
        assert _parquet(getattr(got.bands, name)) == _parquet(getattr(banded.bands, name))


@pytest.mark.timeout(120)
def test_the_80_percent_band_covers_held_out_outcomes(sim: Simulator) -> None:
    """Calibration: the P10-P90 band of 200 draws (seed 1) against 400 held-out
    outcomes (the draws of seed 2, which the band never saw), per tier with a
    spread, redemptions and discount: covered 80 % +- 5 % of the time over all
    of them, and no one series far off."""
    month = pd.read_parquet(samples.month_orders())
    orders = month[month["order_id"].isin(month["order_id"].unique()[:600])].reset_index(drop=True)
    band = forecast(sim, orders, costs=RATE, draws=200, seed=1, progress=False).bands
    held = forecast(sim, orders, costs=RATE, draws=400, seed=2, progress=False).bands
    assert band is not None and held is not None
    covered: list[float] = []
    for name in ("redemptions", "spend"):
        for t, tier_id in enumerate(band.tiers["tier_id"]):
            values = held.per_draw.loc[(held.per_draw["tier_id"] == tier_id).to_numpy(dtype=bool), name].to_numpy(dtype=np.int64)
            if len(np.unique(values)) < 8:
                continue  # a tier that (almost) never redeems: no spread to calibrate
            low, high = int(band.tiers[f"{name}_p10"].iloc[t]), int(band.tiers[f"{name}_p90"].iloc[t])
            share = float(((values >= low) & (values <= high)).mean())
            assert 0.7 <= share <= 0.9, (tier_id, name, share)
            covered.append(share)
    assert len(covered) >= 4
    assert 0.75 <= float(np.mean(covered)) <= 0.85, covered


def test_per_draw_outcomes_are_what_the_quantiles_summarise(banded: ForecastResult) -> None:
    bands = banded.bands
    assert bands is not None
    assert tuple(bands.per_draw.columns) == DRAW_COLUMNS and len(bands.per_draw) == 40 * len(banded.tier_ids)
    spend = bands.per_draw.pivot(index="draw", columns="tier_id", values="spend")[list(banded.tier_ids)]
    assert list(np.sort(spend.to_numpy(dtype=np.int64), axis=0)[35]) == list(bands.tiers["spend_p90"])  # ceil(36) - 1
    ranked = bands.per_draw.pivot(index="draw", columns="tier_id", values="redemptions")[list(banded.tier_ids)]
    assert list(np.sort(ranked.to_numpy(dtype=np.int64), axis=0)[19]) == list(bands.tiers["redemptions_p50"])


# -- the CLI ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def orders_file(sample: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("orders") / "orders.parquet"
    sample.to_parquet(path, index=False)
    return path


def _argv(orders: Path, *extra: str) -> list[str]:
    return ["forecast", "--scenario", str(BUDGETS), "--orders", str(orders), "--no-progress",
            "--redemption-rate", "0.6", *extra]


def test_cli_writes_the_bands_beside_the_other_files(orders_file: Path, tmp_path: Path, banded: ForecastResult,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "result.parquet"
    assert main(_argv(orders_file, "--draws", "40", "--seed", "7", "--out", str(out))) == 0
    printed = capsys.readouterr().out
    assert "bands over 40 draws (seed 7), per budget:" in printed
    assert banded.bands is not None
    for rule in banded.bands.budgets["rule"]:
        assert rule in printed.split("bands over", 1)[1]
    got = pd.read_parquet(tmp_path / "result.bands.parquet")
    assert tuple(got.columns) == BUDGET_BAND_COLUMNS
    assert list(got["spent_p90"]) == list(banded.bands.budgets["spent_p90"])
    tiers = pd.read_parquet(tmp_path / "result.tier_bands.parquet")
    assert list(tiers["redemptions_p50"]) == list(banded.bands.tiers["redemptions_p50"])


def test_cli_without_draws_writes_no_bands(orders_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "result.csv"
    assert main(_argv(orders_file, "--out", str(out))) == 0
    assert out.exists() and not (tmp_path / "result.bands.csv").exists()


@pytest.mark.parametrize(("extra", "message"), [
    (("--draws", "0"), "--draws must be from 1 to 10,000"),
    (("--draws", "10001"), "--draws must be from 1 to 10,000"),
    (("--draws", "3", "--seed", "-1"), "--seed must be from 0"),
    (("--draws", "3", "--seed", str(10**16)), "--seed must be from 0"),
    (("--scheduler", "tcp://127.0.0.1:1"), "give --draws N"),
    (("--draws", "3", "--send", "promo_beans_15"), "drop --send"),
    (("--draws", "3", "--policy", "stack", "--scheduler", "tcp://127.0.0.1:1"), "drop --scheduler"),
])
def test_cli_bad_band_options_exit_2_and_write_nothing(orders_file: Path, tmp_path: Path, extra: tuple[str, ...],
                                                       message: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "result.parquet"
    assert main(_argv(orders_file, *extra, "--out", str(out))) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_replace_keeps_bands(banded: ForecastResult) -> None:
    """`bands` is a field like the others: a copy keeps it (what `compare_scenarios` and the names rely on)."""
    assert replace(banded, names={}).bands is banded.bands


def test_a_response_model_draws_who_redeems_and_the_bands_follow_it(sim: Simulator, sample: pd.DataFrame) -> None:
    """The draws read the model's chance per order (Rates.chance): with everyone redeeming the band is
    one point, with the default model fewer redeem and the band opens; the same seed, the same bands."""
    from promolab.analysis.response import NO_RESPONSE, ResponseModel

    everyone = forecast(sim, sample, costs=CostModel(response=NO_RESPONSE), draws=10, seed=3, progress=False).bands
    modelled = forecast(sim, sample, costs=CostModel(response=ResponseModel()), draws=10, seed=3, progress=False).bands
    again = forecast(sim, sample, costs=CostModel(response=ResponseModel()), draws=10, seed=3, progress=False).bands
    assert everyone is not None and modelled is not None and again is not None
    flat = everyone.tiers
    assert (flat["redemptions_p10"] == flat["redemptions_p90"]).all()
    assert modelled.tiers["redemptions_p50"].sum() < flat["redemptions_p50"].sum()
    assert (modelled.tiers["redemptions_p90"] >= modelled.tiers["redemptions_p10"]).all()
    assert (modelled.tiers["redemptions_p90"] > modelled.tiers["redemptions_p10"]).any()
    assert _parquet(modelled.tiers) == _parquet(again.tiers)


@pytest.mark.parametrize(("n", "workers", "parts"), [(200, 2, 4), (3, 2, 3), (1, 8, 1), (7, 0, 2), (10_000, 3, 6)])
def test_draws_are_cut_into_a_few_even_batches_per_worker_in_order(n: int, workers: int, parts: int) -> None:
    from promolab.analysis.forecast.bands import draw_batches

    runs = draw_batches(n, workers)
    assert len(runs) == parts
    assert [k for run in runs for k in run] == list(range(n))  # every draw once, in order
    assert max(map(len, runs)) - min(map(len, runs)) <= 1


def test_a_walk_from_the_shared_start_is_the_walk_that_computes_its_own(sim: Simulator, sample: pd.DataFrame) -> None:
    """Differential: the bands compute `walk_start` once for every draw; each
    draw walked from it equals a walk that computes its own start, and the
    start is not changed by the draws walked from it."""
    from promolab.analysis.forecast.bands import band_plan
    from promolab.analysis.forecast.spending import walk, walk_start

    captured: dict[str, Any] = {}
    saved = api.band_plan

    def keep(*args: Any) -> Any:
        captured["bands"] = saved(*args)
        return captured["bands"]

    api.band_plan = keep
    try:
        forecast(sim, sample, costs=RATE, draws=1, seed=5, progress=False)
    finally:
        api.band_plan = saved
    bands = captured["bands"]
    assert band_plan is saved
    before = [a.copy() for a in (bands.start.tier, bands.start.discount, bands.start.contest, bands.start.chance)]
    for k in (0, 3):
        plan = replace(bands.plan, draws=draw_uniforms(bands.keys, k))
        shared = walk(replace(plan, ledger=plan.ledger.copy()), bands.start)
        own = walk(replace(plan, ledger=plan.ledger.copy()))
        for name in ("tier", "discount", "redeemed", "held_tier", "held_leaf"):
            assert np.array_equal(getattr(shared, name), getattr(own, name)), name
        assert shared.redeemed.any() and not shared.redeemed.all()
    again = walk_start(bands.plan)
    for start in (bands.start, again):
        for old, new in zip(before, (start.tier, start.discount, start.contest, start.chance), strict=True):
            assert np.array_equal(old, new)


# -- bands for the "stack" policy -------------------------------------------------------------------


@pytest.fixture(scope="module")
def stacked(sim: Simulator, sample: pd.DataFrame) -> ForecastResult:
    small = sample[sample["order_id"].isin(sample["order_id"].unique()[:500])].reset_index(drop=True)
    return forecast(sim, small, policy="stack", costs=RATE, draws=8, seed=3, progress=False)


def _captured_plan(sim: Simulator, orders: pd.DataFrame, **options: Any) -> Any:
    """The `BandPlan` a forecast hands its draws (what a worker receives)."""
    captured: dict[str, Any] = {}
    saved = api.all_draws

    def keep(bands: Any, *args: Any, **kwargs: Any) -> Any:
        captured["bands"], captured["placed_at"] = bands, args[1]
        return saved(bands, *args, **kwargs)

    api.all_draws = keep
    try:
        forecast(sim, orders, progress=False, **options)
    finally:
        api.all_draws = saved
    return captured["bands"], captured["placed_at"]


def test_stack_bands_same_seed_same_bytes_on_every_engine(sim: Simulator, sample: pd.DataFrame,
                                                          stacked: ForecastResult) -> None:
    """The stacked walk per draw: a stack redeems several tiers, each counted
    in its tier's band; here and on Dask threads, the same bytes."""
    small = sample[sample["order_id"].isin(sample["order_id"].unique()[:500])].reset_index(drop=True)
    bands = stacked.bands
    assert bands is not None and bands.draws == 8
    assert (bands.tiers["redemptions_p90"] > bands.tiers["redemptions_p10"]).any()
    assert bands.tiers["redemptions_p50"].astype(bool).sum() >= 3  # several tiers redeem in one order's stack
    for engine in ("pandas", "dask"):
        again = forecast(sim, small, policy="stack", costs=RATE, draws=8, seed=3, engine=engine, progress=False).bands
        assert again is not None
        for name in ("budgets", "tiers", "curves"):
            assert _parquet(getattr(again, name)) == _parquet(getattr(bands, name)), (engine, name)


@pytest.mark.parametrize("policy", ["best", "stack"])
def test_with_no_response_every_quantile_is_todays_forecast_to_the_cent(sim: Simulator, sample: pd.DataFrame,
                                                                        policy: str) -> None:
    from promolab.analysis.response import NO_RESPONSE

    small = sample[sample["order_id"].isin(sample["order_id"].unique()[:500])].reset_index(drop=True)
    costs = CostModel(response=NO_RESPONSE)
    today = forecast(sim, small, policy=policy, costs=costs, progress=False)
    bands = forecast(sim, small, policy=policy, costs=costs, draws=3, seed=9, progress=False).bands
    assert bands is not None
    redeemed = today.redemptions.groupby("tier_id", observed=True)["discount"].agg(["size", "sum"])
    tiers = bands.tiers.set_index("tier_id")
    for q in ("p10", "p50", "p90"):
        counted = redeemed["size"].reindex(tiers.index, fill_value=0).to_numpy(dtype=np.int64)
        given = redeemed["sum"].reindex(tiers.index, fill_value=0).to_numpy(dtype=np.int64)
        assert list(tiers[f"redemptions_{q}"]) == list(counted)
        assert list(tiers[f"spend_{q}"]) == list(given)
        assert [None if pd.isna(t) else t for t in bands.budgets[f"ran_out_at_{q}"]] == [
            None if pd.isna(t) else t for t in today.budgets["ran_out_at"]]
    assert int(tiers["spend_p50"].sum()) == int(today.redemptions["discount"].sum()) > 0
    assert list(bands.budgets["ran_out_share"]) == [float(not pd.isna(t)) for t in today.budgets["ran_out_at"]]


def test_stack_bands_refuse_an_order_amount_budget_they_cannot_add_up(sim: Simulator, sample: pd.DataFrame) -> None:
    from promolab.analysis.forecast import bands as bands_module
    from promolab.analysis.forecast.spending import WalkPlan

    plan, _ = _captured_plan(sim, sample.iloc[:40], policy="stack", costs=RATE, draws=1)
    assert isinstance(plan.plan, WalkPlan) and plan.stacked is not None
    budgeted = next(w for w in plan.plan.watched if w.budget is not None)
    leaf = budgeted.budget.leaves[0]
    by_amount = replace(budgeted, budget=replace(budgeted.budget, leaves=(
        replace(leaf, query=replace(leaf.query, measure="order_amount")),)))
    watched = [by_amount if w is budgeted else w for w in plan.plan.watched]
    with pytest.raises(ValueError, match=f"order-amount budgets of {budgeted.tier_id}"):
        bands_module.band_plan(replace(plan.plan, watched=watched), pd.Index(["x"] * len(plan.keys)), 0,
                               plan.n_tiers, None, plan.stacked)
