"""`promolab.samples`: the sample data by name, one copy, found from anywhere.

In a checkout the files are the top-level data/ itself (not a copy that could
drift); the installed-wheel case is tests/test_wheel_install.py.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from promolab import Simulator, samples
from promolab.analysis.cli import read_orders
from promolab.cli import DEMO, main

ROOT = Path(__file__).resolve().parents[1]


def test_in_a_checkout_the_samples_are_the_data_directory_itself() -> None:
    assert samples.demo_scenario().samefile(ROOT / "data" / "scenarios" / "demo.yaml")
    assert samples.demo_events().samefile(ROOT / "data" / "events" / "demo_day.jsonl")
    assert samples.demo_events("demo_week").samefile(ROOT / "data" / "events" / "demo_week.jsonl")
    assert samples.sample_orders().samefile(ROOT / "data" / "orders" / "sample_orders.parquet")
    assert samples.sample_orders("csv").samefile(ROOT / "data" / "orders" / "sample_orders.csv")
    assert samples.data_path("scenarios/demo.yaml") == samples.demo_scenario()
    assert samples.whatif_notebook().samefile(ROOT / "notebooks" / samples.WHATIF_NOTEBOOK)


def test_the_what_if_notebook_reads_its_data_through_samples_not_by_path() -> None:
    """The wheel carries it without a data/ beside it (tests/test_wheel_install.py runs it there)."""
    source = (ROOT / "notebooks" / "sources" / "06-what-if.py").read_text(encoding="utf-8")
    assert "samples.demo_scenario()" in source and "samples.sample_orders()" in source
    assert 'Path("..")' not in source and '"data"' not in source


def test_the_samples_are_what_they_say() -> None:
    sim = Simulator.from_scenario(samples.demo_scenario())
    assert "camp_welcome" in sim.state.campaigns
    first = yaml.safe_load(samples.demo_events().read_text(encoding="utf-8").splitlines()[0])
    assert {"op", "args"} <= set(first)
    parquet = pd.read_parquet(samples.sample_orders())
    csv = read_orders(samples.sample_orders("csv"))
    assert parquet["order_id"].nunique() == csv["order_id"].nunique() == 12_000


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ValueError, match="demo_day, demo_week"):
        samples.demo_events("demo_month")  # type: ignore[arg-type]  # an unknown name, on purpose
    with pytest.raises(ValueError, match="parquet, csv"):
        samples.sample_orders("xlsx")  # type: ignore[arg-type]  # an unknown format, on purpose
    with pytest.raises(FileNotFoundError, match="no sample data file 'scenarios/nope.yaml'"):
        samples.data_path("scenarios/nope.yaml")


def test_cli_default_scenario_is_the_packaged_demo_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert DEMO == samples.demo_scenario()
    monkeypatch.chdir(tmp_path)
    assert main(["replay", "--events", str(samples.demo_events()), "--out", "w.csv", "--no-progress"]) == 0
    assert "23 lines: 18 applied, 5 refused" in capsys.readouterr().out
    assert len(pd.read_csv(tmp_path / "w.csv")) == 23
