"""The one dtype rule of every public frame, and where its money's currency is.

docs/analysis.md states it: money is `Int64` minor units (an average of money
is `Float64` minor units), counts and other integers are `Int64`, shares and
rates are `Float64`, flags are `bool`; never numpy's `int64` / `float64`,
whose missing value is a float NaN (an integer column would turn float the
first time a value is absent, and an average would print 0.000 where the text
prints "-"). A frame holding money carries its currency in
`frame.attrs["currency"]` (the scenario's `project.currency`, which the
simulator keeps beside its state: `Simulator.currency`); pandas carries
`attrs` through copies, selections and arithmetic on the frame.

Builders call `figures` on what they return rather than casting column by
column, so a column added later follows the rule without anyone
remembering it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..display import DEFAULT_CURRENCY

__all__ = ["CURRENCY_ATTR", "figures", "frame_currency", "with_currency"]

#: The `attrs` key of the currency a frame's money is in.
CURRENCY_ATTR = "currency"


def figures(frame: pd.DataFrame, currency: str | None = None) -> pd.DataFrame:
    """`frame` with every numpy integer column as `Int64` and every numpy float
    column as `Float64` (in place; NaN becomes NA), marked with `currency` when
    given. Other columns (text, categories, instants, flags) are left as they are."""
    for name, dtype in frame.dtypes.items():
        if isinstance(dtype, np.dtype) and dtype.kind in "iu":
            frame[name] = frame[name].astype("Int64")
        elif isinstance(dtype, np.dtype) and dtype.kind == "f":
            frame[name] = frame[name].astype("Float64")
    return with_currency(frame, currency) if currency is not None else frame


def with_currency(frame: pd.DataFrame, currency: str) -> pd.DataFrame:
    """`frame`, marked as holding money in `currency` (its `attrs`): it stays
    data in minor units, and whoever shows it later reads the currency from
    the frame itself."""
    frame.attrs[CURRENCY_ATTR] = currency
    return frame


def frame_currency(frame: pd.DataFrame) -> str:
    """The currency a frame's money is in (`with_currency`); the default
    currency for a frame nobody marked (built by hand)."""
    return str(frame.attrs.get(CURRENCY_ATTR, DEFAULT_CURRENCY))
