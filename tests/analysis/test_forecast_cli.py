"""`promolab forecast` on a small dated sample (the first 2,000 orders of the
month sample): the summary people read, the three files of `--out` in every
format with their documented columns, and bad input: exit 2, one line on
stderr naming the row and column, and no file written (nor an old one changed)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from promolab import Simulator, samples
from promolab.analysis import CostModel, forecast
from promolab.analysis.forecast import (
    BUDGET_COLUMNS,
    BUDGET_LEFT_COLUMNS,
    ORDER_COLUMNS,
    PERIOD_COLUMNS,
    ForecastResult,
)
from promolab.analysis.forecast import cli as forecast_cli
from promolab.cli import main
from promolab.display import format_count, format_money

BUDGETS = samples.forecast_scenario()


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    month = pd.read_parquet(samples.month_orders())
    return month[month["order_id"].isin(month["order_id"].unique()[:2000])].reset_index(drop=True)


@pytest.fixture(scope="module")
def files(sample: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("orders")
    sample.to_parquet(folder / "orders.parquet", index=False)
    sample.to_csv(folder / "orders.csv", index=False)
    return {"parquet": folder / "orders.parquet", "csv": folder / "orders.csv"}


@pytest.fixture(scope="module")
def expected(sample: pd.DataFrame) -> ForecastResult:
    return forecast(Simulator.from_scenario(BUDGETS), sample, progress=False)


def _argv(orders: Path, *extra: str) -> list[str]:
    return ["forecast", "--scenario", str(BUDGETS), "--orders", str(orders), "--no-progress", *extra]


def _table(printed: str, title: str) -> dict[str, list[str]]:
    """A printed table's rows by first cell (cells split on runs of 2+ spaces)."""
    block = printed.split(title, 1)[1].split("\n\n", 1)[0]
    rows = [re.split(r"\s{2,}", line.strip()) for line in block.splitlines()[1:] if line.startswith("  ")]
    return {row[0]: row[1:] for row in rows[1:]}  # rows[0]: the header


def test_summary_per_campaign_and_budget_without_writing(files: dict[str, Path], expected: ForecastResult,
                                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(_argv(files["parquet"])) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("forecast of 2,000 orders, 2026-03-01 00:03 to ")
    assert "Europe/Berlin" in printed and "left out" not in printed  # free items (UNIT) are candidates too
    campaigns = _table(printed, "per campaign:")
    summary = expected.summary().set_index("campaign_id")
    assert set(campaigns) == set(summary.index)
    for campaign, (redemptions, discount, held) in campaigns.items():
        assert redemptions == format_count(summary.loc[campaign, "redemptions"])
        assert discount == format_money(summary.loc[campaign, "discount"])
        assert held == format_count(summary.loc[campaign, "held_back"])
    budgets = _table(printed, "budgets and limits")
    beans = expected.budgets.set_index("tier_id").loc["promo_beans_15"]
    assert beans["orders_held_back"] > 0  # the weekly budget binds within the sample
    limit, used, ran_out, held = budgets["promo_beans_15"][1:]
    assert ran_out == beans["ran_out_at"].isoformat(sep=" ") and ran_out.endswith("+01:00")  # Berlin, winter
    assert (limit, used, held) == ("300", "-", format_count(beans["orders_held_back"]))
    assert budgets["promo_vip_10pct"][1] == "$5,000.00"  # a discount budget is money
    assert list(tmp_path.iterdir()) == []  # without --out nothing is written


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json"])
def test_out_writes_orders_periods_and_budgets(suffix: str, files: dict[str, Path], expected: ForecastResult,
                                               tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"march{suffix}"
    assert main(_argv(files["csv"], "--out", str(out), "--freq", "week")) == 0
    printed = capsys.readouterr().out
    paths = {"orders": out, "periods": tmp_path / f"march.periods{suffix}", "budgets": tmp_path / f"march.budgets{suffix}",
             "budget_left": tmp_path / f"march.budget_left{suffix}"}
    assert sorted(tmp_path.iterdir()) == sorted(paths.values())  # no temporary file left behind
    for path in paths.values():
        assert f"wrote {path}" in printed

    def read(path: Path) -> pd.DataFrame:
        return {".csv": pd.read_csv, ".parquet": pd.read_parquet, ".json": pd.read_json}[suffix](path)

    orders, periods, budgets, left = (read(paths[k]) for k in ("orders", "periods", "budgets", "budget_left"))
    assert list(left.columns) == list(BUDGET_LEFT_COLUMNS)
    assert left["used"].tolist() == expected.budget_left("week")["used"].tolist()
    assert list(orders.columns) == [*ORDER_COLUMNS, "channel", "segment"]
    assert list(periods.columns) == list(PERIOD_COLUMNS)
    assert list(budgets.columns) == list(BUDGET_COLUMNS)
    assert orders["order_id"].tolist() == expected.orders["order_id"].tolist()
    assert orders["discount"].tolist() == expected.orders["discount"].tolist()
    assert periods["discount"].tolist() == expected.periods("week")["discount"].tolist()
    assert budgets["orders_held_back"].tolist() == expected.budgets["orders_held_back"].tolist()
    placed = pd.to_datetime(orders["placed_at"], utc=True, format="ISO8601")
    assert placed.tolist() == expected.orders["placed_at"].dt.tz_convert("UTC").tolist()


def test_options_reach_the_forecast(files: dict[str, Path], sample: pd.DataFrame, tmp_path: Path) -> None:
    out = tmp_path / "r.parquet"
    tiers = "promo_beans_15,promo_welcome_10"
    assert main(_argv(files["parquet"], "--out", str(out), "--tiers", tiers, "--redemption-rate", "0.6",
                      "--seed", "7", "--shipping-cost", "490")) == 0
    want = forecast(Simulator.from_scenario(BUDGETS), sample, tiers=tiers.split(","), progress=False,
                    costs=CostModel(redemption_rate=0.6, seed=7, shipping_cost=490))
    written = pd.read_parquet(out)
    assert written["redeemed"].tolist() == want.orders["redeemed"].tolist()
    assert written["discount"].tolist() == want.orders["discount"].tolist()
    assert set(written["tier_id"].dropna()) <= set(tiers.split(","))
    assert 0 < written["redeemed"].sum() < written["qualified_tier_id"].notna().sum()


def test_send_forecasts_a_fixed_set_of_tiers_and_codes(files: dict[str, Path], sample: pd.DataFrame, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """WELCOME-OPEN-1 with the beans tier, sent with every order: both or nothing (the demo's rules)."""
    out = tmp_path / "r.csv"
    assert main(_argv(files["parquet"], "--send", "promo_beans_15, WELCOME-OPEN-1", "--out", str(out))) == 0
    printed = capsys.readouterr().out
    assert ": sending promo_beans_15, WELCOME-OPEN-1, " in printed.splitlines()[0]
    want = forecast(Simulator.from_scenario(BUDGETS), sample, policy=["promo_beans_15", "WELCOME-OPEN-1"], progress=False)
    written = pd.read_csv(out)
    assert written["redeemed"].tolist() == want.orders["redeemed"].tolist()
    assert written["discount"].tolist() == want.orders["discount"].tolist()
    redeemed = written[written["redeemed"]]
    assert len(redeemed) > 100 and set(redeemed["redeemables"]) == {"promo_beans_15,WELCOME-OPEN-1"}


def test_default_scenario_and_progress_on_stderr(files: dict[str, Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["forecast", "--orders", str(files["parquet"])]) == 0  # the demo, like every command
    captured = capsys.readouterr()
    assert "forecast" in captured.err and "per campaign:" in captured.out  # the bar (tqdm) on stderr
    assert main(["forecast", "--orders", str(files["parquet"]), "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def _naive(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(placed_at=frame["placed_at"].dt.tz_localize(None).astype(str))


BAD = [
    ("missing file", None, [], "orders.parquet: no such file"),
    ("not parquet", "garbage", [], "orders.parquet"),
    ("not csv or parquet", "txt", [], "must be .csv or .parquet"),
    ("no placed_at", lambda f: f.drop(columns=["placed_at"]), [], "needs a 'placed_at' column"),
    ("naive timestamps", _naive, [], "row 0, column 'placed_at': '2026-03-01 00:03:07' has no timezone"),
    ("missing timestamp", lambda f: f.assign(placed_at=f["placed_at"].where(f.index != 11)), [],
     "row 11, column 'placed_at': missing timestamp"),
    ("negative quantity", lambda f: f.assign(quantity=f["quantity"].where(f.index != 9, -1)), [],
     "row 9, column 'quantity': must be >= 1, got -1"),
    ("unknown product", lambda f: f.assign(product_id=f["product_id"].astype(object).where(
        f.index != 3, "prod_nope"), price=pd.NA), [],
     "row 3, column 'product_id': prod_nope is not in the catalogue"),
    ("unknown tier", lambda f: f, ["--tiers", "promo_nope"], "unknown or inactive tier 'promo_nope'"),
    ("bad out suffix", lambda f: f, ["--out", "{tmp}/r.xlsx"], "output must be .csv, .parquet or .json"),
    ("out folder missing", lambda f: f, ["--out", "{tmp}/nowhere/r.csv"], "no such folder"),
    ("unknown code", lambda f: f, ["--send", "promo_beans_15,NOPE-1"], "'NOPE-1' is neither a candidate tier, a code nor a campaign of codes"),
    ("empty set", lambda f: f, ["--send", " , "], "a fixed policy is a non-empty list"),
]


@pytest.mark.parametrize("change, extra, message", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(change: object, extra: list[str], message: str,
                                                            sample: pd.DataFrame, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in" / "orders.parquet"
    source.parent.mkdir()
    if change == "garbage":
        source.write_bytes(b"not a parquet file")
    elif change == "txt":
        source = source.with_suffix(".txt")
        source.write_text("order_id\n", encoding="utf-8")
    elif callable(change):
        change(sample).to_parquet(source, index=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    old = out_dir / "r.csv"
    old.write_text("an earlier result\n", encoding="utf-8")
    out = ["--out", str(old)] if not any(a.startswith("--out") for a in extra) else []
    argv = _argv(source, *[a.format(tmp=out_dir) for a in extra], *out)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("promolab forecast: ") and message in err, err
    assert sorted(p.name for p in out_dir.iterdir()) == ["r.csv"]  # nothing new, no temporary left
    assert old.read_text(encoding="utf-8") == "an earlier result\n"  # nor the old result replaced


@pytest.mark.parametrize("extra, message", [
    (["--redemption-rate", "1.5"], "a rate is between 0 and 1"),
    (["--redemption-rate", "most"], "not a number"),
    (["--shipping-cost", "-5"], "must be >= 0"),
    (["--shipping-cost", "4.90"], "not a whole number of minor units"),
    (["--policy", "cheapest"], "invalid choice: 'cheapest'"),
    (["--freq", "year"], "invalid choice: 'year'"),
    (["--policy", "stack", "--send", "promo_beans_15"], "not allowed with argument --policy"),
])
def test_bad_options_are_usage_errors(extra: list[str], message: str, files: dict[str, Path],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(_argv(files["parquet"], *extra))
    assert exit_.value.code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0], errors


def test_a_failure_while_writing_leaves_no_file(files: dict[str, Path], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    real = forecast_cli._write
    calls: list[Path] = []

    def fail_on_the_budgets(frame: pd.DataFrame, path: Path) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError("disk full")
        real(frame, path)

    monkeypatch.setattr(forecast_cli, "_write", fail_on_the_budgets)
    assert main(_argv(files["parquet"], "--out", str(tmp_path / "r.parquet"))) == 2
    assert "disk full" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # the two frames already written were temporaries, removed


def test_help_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["forecast", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for option in ("--orders", "--scenario", "--policy", "--send", "--tiers", "--redemption-rate", "--shipping-cost",
                   "--seed", "--freq", "--out", "--no-progress", "--draws", "--scheduler"):
        assert option in text, option
    flat = " ".join(text.split())
    assert "<stem>.periods.<ext>, <stem>.budgets.<ext>, <stem>.budget_left.<ext> (and the --draws' bands)" in flat
    assert "one of best" in flat and "(default: best)" in flat


def test_the_parser_does_not_load_the_analysis_layer() -> None:
    """`--policy` choices come from `forecast.POLICIES`, read only when argparse
    asks: `promolab serve` or `validate` start without pandas' analysis imports."""
    import subprocess
    import sys

    code = "import sys, promolab.cli as c; c._parser(); print('promolab.analysis' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
