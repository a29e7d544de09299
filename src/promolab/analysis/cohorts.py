"""Cohorts of a per-order result frame, and tidy breakdowns over them.

A forecast or replay answers "how much did the promotions cost"; the next
questions are *when* and *for whom*: weekday and hour, new vs returning
customers, basket size, channel, segment. This module adds those columns to a
**per-order frame** and counts over them.

The per-order frame (one row per order):

| column | dtype | meaning |
| --- | --- | --- |
| `order_id` | string | |
| `placed_at` | datetime64[ns, tz] | when, in the project's time zone |
| `customer` | string | the customer's source id; NA for a guest |
| `channel`, `segment` | string (may be NA) | |
| `amount` | int64 | cents, the order before discounts |
| `redeemed` | bool | a promotion was redeemed on the order |
| `discount` | int64 | cents given away on the order |
| `campaign_id` | string | NA when nothing was redeemed |
| `cost`, `margin` | int64, optional | cents |

Local time is read in the frame's **own** time zone (that of `placed_at`), so
a Sunday 23:30 in Berlin is a Sunday even though it is Monday in UTC, and the
hour of an order on a DST day is the hour on the wall clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pandas as pd

from ..display import format_money, money_unit
from .figures import figures, frame_currency

__all__ = [
    "BREAKDOWN_COLUMNS",
    "COHORT_COLUMNS",
    "DEFAULT_BASKET_BANDS",
    "WEEKDAYS",
    "basket_band_labels",
    "breakdown",
    "weekday_hour_table",
    "with_cohorts",
]

#: Edges of the basket bands in cents: under $25, $25-49.99, $50-99.99, $100 and over.
DEFAULT_BASKET_BANDS: tuple[int, ...] = (2500, 5000, 10000)
WEEKDAYS: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: The columns `with_cohorts` adds.
COHORT_COLUMNS: tuple[str, ...] = ("weekday", "hour", "day", "new_customer", "basket_band")
#: The value columns of `breakdown`, after the group columns (`cost`, `margin` when present).
BREAKDOWN_COLUMNS: tuple[str, ...] = ("orders", "redeemed", "redemption_share", "discount", "discount_per_order")
_OPTIONAL_SUMS = ("cost", "margin")


def basket_band_labels(bands: Sequence[int] = DEFAULT_BASKET_BANDS, currency: str = "USD") -> list[str]:
    """The labels of the bands cut at `bands` (minor units, increasing), in money a
    person reads: `under $25.00`, `$25.00–49.99`, ..., `$100.00 and over`. A band
    holds its lower edge and not its upper one, so it is written up to the last
    amount it holds (one minor unit below the next edge): "$25.00–$50.00" would
    leave a basket of exactly $50.00 in two bands. The upper amount drops the
    currency the lower one starts with (`format_money` writes both)."""
    edges = [int(b) for b in bands]
    if not edges or any(lo >= hi for lo, hi in pairwise(edges)):
        raise ValueError("basket bands must be one or more increasing amounts in cents")
    money = [format_money(edge, currency) for edge in edges]
    unit = money_unit(currency)  # "$49.99" after "$25.00" reads "49.99"
    middle = [f"{low}–{format_money(high - 1, currency).removeprefix(unit)}"
              for low, high in zip(money, edges[1:], strict=False)]
    return [f"under {money[0]}", *middle, f"{money[-1]} and over"]


def _local_times(frame: pd.DataFrame) -> pd.Series:
    placed = frame["placed_at"]
    if not isinstance(placed.dtype, pd.DatetimeTZDtype):
        raise TypeError("placed_at must be timezone-aware (datetime64[ns, tz]): local time needs a zone")
    if placed.isna().any():
        raise ValueError("every order needs a placed_at (found NaT)")
    return placed


def with_cohorts(
    frame: pd.DataFrame, *, bands: Sequence[int] = DEFAULT_BASKET_BANDS, currency: str | None = None
) -> pd.DataFrame:
    """A copy of the per-order `frame` with the cohort columns:

    - `weekday`: ordered Categorical Monday..Sunday, local (the frame's time zone);
    - `hour`: Int64 0-23, the local wall-clock hour;
    - `day`: the local calendar day as a naive midnight (datetime64, no zone: a
      date, not an instant, so it never shifts when printed or compared);
    - `new_customer`: bool, True on each customer's first order in the frame
      (earliest `placed_at`, equal times broken by row order) and on every
      order without a customer (a guest is not known to return);
    - `basket_band`: ordered Categorical of `amount` over `bands`
      (`basket_band_labels`, money in `currency`, default the frame's own:
      `analysis.figures.frame_currency`).
    """
    placed = _local_times(frame)
    out = frame.copy()
    out["weekday"] = pd.Categorical.from_codes(
        placed.dt.day_of_week.to_numpy(), categories=list(WEEKDAYS), ordered=True
    )
    out["hour"] = pd.array(placed.dt.hour.to_numpy(), dtype="Int64")
    out["day"] = placed.dt.tz_localize(None).dt.normalize().to_numpy()
    out["new_customer"] = _first_orders(frame["customer"], placed)
    labels = basket_band_labels(bands, currency or frame_currency(frame))
    edges = np.array([int(b) for b in bands], dtype=np.int64)
    codes = np.searchsorted(edges, frame["amount"].to_numpy(dtype=np.int64), side="right")
    out["basket_band"] = pd.Categorical.from_codes(codes, categories=labels, ordered=True)
    return out


def _first_orders(customer: pd.Series, placed: pd.Series) -> np.ndarray:
    """True where the row is its customer's first order (a stable sort by time keeps
    the row order among equal times) or has no customer."""
    order = np.argsort(placed.to_numpy(), kind="stable")
    in_time = customer.iloc[order]
    seen = in_time.duplicated(keep="first").to_numpy() & in_time.notna().to_numpy()
    returning = np.empty(len(order), dtype=bool)
    returning[order] = seen
    return ~returning


def _key(column: pd.Series) -> tuple[np.ndarray, pd.Index, pd.api.extensions.ExtensionDtype | np.dtype]:
    """(codes, levels, dtype) of a group column: every level shown, in order; -1 = NA.

    Categoricals keep their categories (unobserved ones too); `hour` spans 0-23,
    `new_customer` False/True and `day` every day from the first to the last;
    other columns their sorted distinct values."""
    name = column.name
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy().astype(np.int64), pd.Index(column.cat.categories), column.dtype
    if name == "hour":
        return column.to_numpy(dtype=np.int64), pd.Index(range(24)), np.dtype(np.int64)
    if name == "new_customer":
        return column.to_numpy(dtype=bool).astype(np.int64), pd.Index([False, True]), np.dtype(bool)
    if name == "day" and len(column):
        days = pd.date_range(column.min(), column.max(), freq="D")
        codes = ((column - column.min()) // pd.Timedelta(days=1)).to_numpy(dtype=np.int64)
        return codes, pd.Index(days), column.dtype
    codes, uniques = pd.factorize(column, sort=True)
    return np.asarray(codes, dtype=np.int64), pd.Index(uniques), column.dtype


def breakdown(frame: pd.DataFrame, by: str | Sequence[str], *, campaign: str | None = None) -> pd.DataFrame:
    """Orders, redemptions and discounts of the per-order `frame` grouped `by` one
    column or several, one row per combination (tidy: the group columns first).

    Cohort columns (`COHORT_COLUMNS`) are added by `with_cohorts` when `by` names
    one the frame lacks. Every level shows, with zeros where no order falls (all
    categories of a categorical, hours 0-23, every day in the span, NA last when
    a column has it), sorted in level order, so charts and joins see a fixed grid.

    `campaign`: count only redemptions of that campaign (`redeemed`, `discount`);
    `orders`, `cost` and `margin` stay those of all orders of the group (they
    describe the orders, not one campaign's redemptions).

    Columns and dtypes: the group columns (categoricals keep their dtype), then
    `orders` Int64, `redeemed` Int64 (orders with a redemption), `redemption_share`
    Float64 (redeemed / orders; NA for a group without orders), `discount` Int64
    (cents), `discount_per_order` Float64 (cents per order of the group, redeemed
    or not: an average, so float cents as everywhere in the analysis frames; NA
    without orders), then `cost` and `margin` Int64 sums (NA counted as 0) when the
    frame has them (the dtype rule of docs/analysis.md).
    """
    names = [by] if isinstance(by, str) else list(by)
    if not names:
        raise ValueError("breakdown needs at least one column to group by")
    if any(n in COHORT_COLUMNS and n not in frame.columns for n in names):
        frame = with_cohorts(frame)
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise KeyError(f"no column {missing} in the frame (cohort columns: {', '.join(COHORT_COLUMNS)})")

    keys = [_key(frame[n]) for n in names]
    shape = tuple(len(levels) + int((codes < 0).any()) for codes, levels, _ in keys)
    cells = int(np.prod(shape)) if shape else 0
    codes_per_key = [np.where(codes < 0, len(levels), codes) for codes, levels, _ in keys]
    cell = np.ravel_multi_index(codes_per_key, shape) if len(frame) else np.zeros(0, dtype=np.int64)

    redeemed = frame["redeemed"].to_numpy(dtype=bool)
    if campaign is not None:
        redeemed = redeemed & frame["campaign_id"].eq(campaign).fillna(False).to_numpy(dtype=bool)
    discount = np.where(redeemed, frame["discount"].fillna(0).to_numpy(dtype=np.int64), 0)

    def total(values: np.ndarray) -> np.ndarray:
        """Exact int64 sums per cell (pandas' group sum, not float bincount weights)."""
        sums = pd.Series(values, dtype=np.int64).groupby(cell).sum()
        filled: np.ndarray = sums.reindex(range(cells), fill_value=0).to_numpy(dtype=np.int64)
        return filled

    orders = np.bincount(cell, minlength=cells).astype(np.int64)
    n_redeemed, n_discount = total(redeemed.astype(np.int64)), total(discount)
    out: dict[str, object] = {}
    grid = np.unravel_index(np.arange(cells), shape) if cells else [np.zeros(0, dtype=np.int64)] * len(names)
    for name, (_, levels, dtype), position in zip(names, keys, grid, strict=True):
        position = np.where(position >= len(levels), -1, position)
        if isinstance(dtype, pd.CategoricalDtype):
            out[name] = pd.Categorical.from_codes(position, dtype=dtype)
        elif (position < 0).any():
            out[name] = levels.take(position, allow_fill=True, fill_value=None)
        else:
            out[name] = levels.take(position)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["orders"] = orders
        out["redeemed"] = n_redeemed
        out["redemption_share"] = n_redeemed / orders.astype(np.float64)
        out["discount"] = n_discount
        out["discount_per_order"] = n_discount / orders.astype(np.float64)
    for extra in _OPTIONAL_SUMS:
        if extra in frame.columns:
            out[extra] = total(frame[extra].fillna(0).to_numpy(dtype=np.int64))
    result = pd.DataFrame(out)
    for name, (_, _, dtype) in zip(names, keys, strict=True):
        if not isinstance(dtype, pd.CategoricalDtype) and result[name].dtype != dtype:
            result[name] = result[name].astype(dtype)
    return figures(result, frame_currency(frame))


def weekday_hour_table(frame: pd.DataFrame, value: str = "discount", *, campaign: str | None = None) -> pd.DataFrame:
    """A 7 x 24 table (index `weekday` Monday..Sunday, columns `hour` 0-23, local
    time) of `value` summed per cell: "discount" (cents), "orders" or "redeemed"
    (counts), Int64; empty cells are 0. What `plot_weekday_hour_heatmap` draws."""
    if value not in ("discount", "orders", "redeemed"):
        raise ValueError("value must be 'discount', 'orders' or 'redeemed'")
    table = breakdown(frame, ["weekday", "hour"], campaign=campaign)
    cells = table[value].to_numpy(dtype=np.int64).reshape(len(WEEKDAYS), 24)  # weekday-major grid
    return figures(pd.DataFrame(
        cells,
        index=pd.CategoricalIndex(WEEKDAYS, categories=WEEKDAYS, ordered=True, name="weekday"),
        columns=pd.RangeIndex(24, name="hour"),
    ), frame_currency(frame))
