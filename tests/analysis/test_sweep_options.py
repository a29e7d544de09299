"""`sweep(sim, orders, tiers, **options)`: the keywords of `SweepOptions`, each
reaching the sweep, and a keyword that is not one refused before anything is
computed, naming the nearest (as a misspelt keyword of a function would be)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis.sweep import SweepOptions, sweep

from .support import random_orders

#: (the keywords given, the TypeError's message)
REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"progres": False}, "sweep() unexpected keyword argument 'progres'; did you mean 'progress'?"),
    ({"engin": "dask"}, "sweep() unexpected keyword argument 'engin'; did you mean 'engine'?"),
    ({"chunksize": 10}, "sweep() unexpected keyword argument 'chunksize'; did you mean 'chunk_size'?"),
    ({"progress": False, "colour": "red"},
     ("sweep() unexpected keyword argument 'colour'; it takes at, chunk_size, client, customers, engine, metadata, "
      "npartitions, progress")),
]


@pytest.mark.parametrize(("options", "message"), REFUSED, ids=[m.split("'")[1] for _, m in REFUSED])
def test_a_keyword_that_is_not_an_option_is_refused_naming_the_nearest(
    options: dict[str, Any], message: str, sim: Simulator,
) -> None:
    with pytest.raises(TypeError) as caught:
        sweep(sim, random_orders(5, seed=1), **options)
    assert str(caught.value) == message


def test_every_option_is_named_in_the_refusal() -> None:
    """The message lists the TypedDict's keys: an option added there is one the
    run-time check takes, with nothing else to keep in step."""
    assert set(SweepOptions.__optional_keys__) == {"engine", "customers", "progress", "client", "npartitions", "at",
                                                   "metadata", "chunk_size"}


def test_the_options_reach_the_sweep(sim: Simulator) -> None:
    orders = random_orders(60, seed=7)
    at = datetime(2026, 3, 7, 12, tzinfo=UTC)
    plain = sweep(sim, orders, progress=False, at=at)
    assert plain.at == at and plain.engine == "pandas" and not plain.dated
    chunked = sweep(sim, orders, progress=False, at=at, chunk_size=7)
    pd.testing.assert_frame_equal(chunked.frame, plain.frame)  # chunks change how, not what
    assert sweep(sim, orders, progress=False, at=at, engine="dask", npartitions=3).frame.equals(plain.frame)
    with pytest.raises(ValueError, match="engine must be 'pandas' or 'dask'"):
        sweep(sim, orders, engine="spark")
