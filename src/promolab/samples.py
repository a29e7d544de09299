"""The sample data promolab ships: the demo scenario, event sequences and orders.

    import pandas as pd
    from promolab import Simulator, samples
    from promolab.replay import replay

    sim = Simulator.from_scenario(samples.demo_scenario())
    orders = pd.read_parquet(samples.sample_orders())
    month = pd.read_parquet(samples.month_orders())    # dated, for forecasts
    budgets = Simulator.from_scenario(samples.forecast_scenario())
    replay(sim, samples.demo_events("demo_week"))
    samples.whatif_notebook()   # the what-if dashboard, served by `promolab dashboard`

Why a module: the command line's defaults, and anyone who installed the wheel
rather than cloning the repository, need these files without knowing where
the repository is. Read through `importlib.resources`, so they are found
wherever the package is installed.

There is one copy of each file: the repository's top-level `data/` (which the
notebooks, scripts and tests read by path). The wheel carries it as
`promolab/_data/` (a hatch `sources` rewrite, pyproject.toml). In a source
checkout or an editable install the package is `src/promolab`, which has no
`_data/`, so the files are read from `data/` beside `src/` instead.

The what-if notebook (`notebooks/06-what-if.ipynb`, the dashboard Voila
serves) travels the same way: one copy in the repository, carried by the
wheel as `promolab/_notebooks/06-what-if.ipynb` (the wheel holds that one
notebook only), read from `notebooks/` beside `src/` in a checkout. It reads
its data through this module, so it runs from wherever it is installed.
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from importlib.resources import as_file, files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

__all__ = [
    "EVENT_SAMPLES",
    "ORDER_FORMATS",
    "WHATIF_NOTEBOOK",
    "data_path",
    "demo_events",
    "demo_scenario",
    "forecast_scenario",
    "month_orders",
    "sample_orders",
    "whatif_notebook",
]

#: The event sequences in `data/events/` (docs/replay.md).
EVENT_SAMPLES = ("demo_day", "demo_week")
#: The formats the sample orders come in (`data/orders/`, same orders in both).
ORDER_FORMATS = ("parquet", "csv")
#: The what-if dashboard's notebook, by its name in `notebooks/`.
WHATIF_NOTEBOOK = "06-what-if.ipynb"

#: Where the wheel puts `data/` inside the package (pyproject.toml).
_PACKAGED = "_data"
#: Where the wheel puts the what-if notebook inside the package (pyproject.toml).
_PACKAGED_NOTEBOOKS = "_notebooks"
#: `data/` and `notebooks/` of a source checkout, seen from src/promolab/samples.py.
_CHECKOUT = Path(__file__).resolve().parents[2] / "data"
_CHECKOUT_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

# Files of a package imported from a zip archive are extracted to temporary
# files that must outlive the call returning their path: kept until exit.
_extracted = ExitStack()
atexit.register(_extracted.close)


def _data_root() -> Traversable:
    packaged = files(__package__ or "promolab") / _PACKAGED
    if packaged.is_dir():
        return packaged
    if _CHECKOUT.is_dir():
        return _CHECKOUT
    raise FileNotFoundError(
        f"promolab's sample data is missing: neither the installed package's {_PACKAGED}/ "
        f"nor a source checkout's {_CHECKOUT} exists (a wheel built without pyproject.toml's "
        "data rewrite?)"
    )


def data_path(relative: str) -> Path:
    """A file of the sample data by its path under `data/`, e.g. `"scenarios/demo.yaml"`."""
    resource = _data_root().joinpath(*relative.split("/"))
    if not resource.is_file():
        raise FileNotFoundError(f"no sample data file {relative!r}")
    return _extracted.enter_context(as_file(resource))


def demo_scenario() -> Path:
    """The demo scenario (coffee shop: catalogue, campaigns, loyalty, webhooks), YAML."""
    return data_path("scenarios/demo.yaml")


def forecast_scenario() -> Path:
    """The demo shop with three budgets and limits, in Europe/Berlin from
    1 March 2026: what `month_orders` is forecast against (YAML, generated
    by scripts/make_forecast_scenario.py)."""
    return data_path("scenarios/march_budgets.yaml")


def demo_events(name: Literal["demo_day", "demo_week"] = "demo_day") -> Path:
    """An event sequence (JSON Lines, the journal format) for the demo scenario."""
    if name not in EVENT_SAMPLES:
        raise ValueError(f"unknown event sample {name!r}: one of {', '.join(EVENT_SAMPLES)}")
    return data_path(f"events/{name}.jsonl")


def sample_orders(fmt: Literal["parquet", "csv"] = "parquet") -> Path:
    """12,000 generated orders of the demo catalogue as line items (docs/analysis.md)."""
    if fmt not in ORDER_FORMATS:
        raise ValueError(f"unknown orders format {fmt!r}: one of {', '.join(ORDER_FORMATS)}")
    return data_path(f"orders/sample_orders.{fmt}")


def month_orders() -> Path:
    """200,000 dated orders of March 2026 (Europe/Berlin) as line items with
    `placed_at`, `channel` and `segment`, for forecasts (Parquet, generated by
    scripts/make_dated_orders.py)."""
    return data_path("orders/month_orders.parquet")


def whatif_notebook() -> Path:
    """The what-if dashboard notebook (`notebooks/06-what-if.ipynb`), which
    `promolab dashboard` serves with Voila."""
    packaged = files(__package__ or "promolab") / _PACKAGED_NOTEBOOKS / WHATIF_NOTEBOOK
    if packaged.is_file():
        return _extracted.enter_context(as_file(packaged))
    checkout = _CHECKOUT_NOTEBOOKS / WHATIF_NOTEBOOK
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(
        f"promolab's what-if notebook is missing: neither the installed package's "
        f"{_PACKAGED_NOTEBOOKS}/{WHATIF_NOTEBOOK} nor a source checkout's {checkout} exists "
        "(a wheel built without pyproject.toml's notebook rewrite?)"
    )
