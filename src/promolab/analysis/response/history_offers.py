"""What each order of a pulled history was offered, as the fit reads it.

A history records what was redeemed, not what each order was offered. What
an order was offered is taken to be what the pulled scenario would have
given it at its own instant: the orders are swept (`sweep`, dated: each at
its `placed_at`; the one pricing of the analysis layer), and every tier
valid for an order and giving it something (a discount above 0) is one
offer, so an order offered two tiers is two rows:

- `depth`: `depth_of(discount, amount)`, the amount before any discount;
- `distance`: 0, as the forecast's offers (`forecast_offers`): an offer is
  a tier the order qualifies for, and the sweep exposes no threshold to
  measure a shortfall against, so `distance_coef` keeps its default;
- `kind`: the tier's discount kind; `segment`: the ids of the customer's
  segments in the scenario, sorted and joined by "+" ("" for none, and for
  an order without a customer);
- `redeemed`: 1 when the history holds a standing redemption of that tier
  on that order (succeeded, not rolled back: `standing_redemptions`, the
  retro-replay's rule), else 0. Codes (vouchers) are not offers here: the
  sweep prices tiers, and what a code would give an order is not swept.

Counts: one row per unit and period of `placed_at` in UTC, the ISO week
("2026-W10", `period="week"`) or the day ("2026-03-02", `period="day"`):
`orders`, the orders placed, and `depth`, the mean over them of the
deepest offer each had (0 for none). The lift is fitted with one level per
unit and needs ten rows per unit: weeks for customers of a long history,
days for the segments of a month. The unit is the customer's source id
(`unit="customer"`, orders without a customer left out: there is no one
to follow from week to week) or the segment label (`unit="segment"`, those
orders under ""). A week in which a unit placed no order is not in a
history, so it is not a row.

Which orders to pass: a pulled history lists only the orders a redemption
was made on (the service keeps no others), so each of them redeemed
something and a fit on those alone overstates the chance to redeem. Pass
the shop's other orders too (the same line-items shape, `placed_at` and
`customer_source_id`), as docs/response.md shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np
import pandas as pd

from ..standing import standing_redemptions
from .fit import COUNT_COLUMNS, OFFER_COLUMNS, response_frame
from .offers import KINDS, Offers, depth_of

if TYPE_CHECKING:
    from ...sim import Simulator
    from ..sweep import OrderBatch

__all__ = ["HISTORY_OFFER_COLUMNS", "HistoryOffers", "history_offers"]

#: The offers frame of a history: which order and tier each offer is, then `OFFER_COLUMNS`.
HISTORY_OFFER_COLUMNS = ("order_id", "tier_id", *OFFER_COLUMNS)
#: The columns of the orders frame the offers need (beside the line items a sweep reads).
_ORDER_COLUMNS = ("order_id", "placed_at", "customer_source_id")
#: Whose orders are counted, and over what: the values `unit=` and `period=` take.
Unit = Literal["customer", "segment"]
Period = Literal["week", "day"]
_UNITS: tuple[str, ...] = get_args(Unit)
_PERIODS: tuple[str, ...] = get_args(Period)


@dataclass(frozen=True)
class HistoryOffers:
    """The two frames `fit_response` reads, from a history (see the module's
    docstring), and what the integrator of a real history wants to know."""

    #: one row per (order, tier offered): `HISTORY_OFFER_COLUMNS`
    offers: pd.DataFrame
    #: one row per unit and period (ISO week or day, `period=`): `COUNT_COLUMNS`
    counts: pd.DataFrame
    #: the orders read (distinct order ids)
    n_orders: int
    #: of them, the orders without a customer (segment "", out of counts by customer)
    without_customer: int
    #: standing tier redemptions on these orders of a tier the scenario did not offer
    #: them: what the pulled scenario misses (not in `offers`)
    unexplained: int


def _checked(orders: pd.DataFrame) -> None:
    if not isinstance(orders, pd.DataFrame):
        raise TypeError(f"orders: a line-items DataFrame is needed, got {type(orders).__name__}")
    missing = [c for c in _ORDER_COLUMNS if c not in orders.columns]
    if missing:
        raise ValueError(f"orders: no column {', '.join(missing)} (a history's orders need {', '.join(_ORDER_COLUMNS)})")
    if orders.empty:
        raise ValueError("orders: no order to read offers from")
    if not pd.api.types.is_datetime64_any_dtype(orders["placed_at"]):
        raise ValueError(f"orders: placed_at must be datetimes (each order is priced at its own instant), "
                         f"got {orders['placed_at'].dtype}")
    source = orders["customer_source_id"]
    # by value, not dtype: an object column of strings and None is strings or missing (as a concat makes one)
    if pd.api.types.infer_dtype(source, skipna=True) not in ("string", "empty") and not source.isna().all():
        raise ValueError(f"orders: customer_source_id must be strings (or missing), got {source.dtype}")


def history_offers(sim: Simulator, orders: pd.DataFrame, redemptions: pd.DataFrame, *,
                   unit: Unit = "customer", period: Period = "week") -> HistoryOffers:
    """The offers and counts frames of a history (see the module's docstring):
    `orders` a line-items frame with `placed_at` and `customer_source_id`
    (a pull's, with the shop's other orders), `redemptions` a pull's.

    Raises TypeError for frames that are not DataFrames, and ValueError
    naming what is wrong: a missing column, a wrong dtype, an order naming a
    customer the scenario does not hold, a redemptions frame that is not a
    history's, a `unit` not among "customer", "segment", a `period` not
    among "week", "day". Nothing is priced before every check passed."""
    from ..sweep.api import prepare_orders

    if unit not in _UNITS:
        raise ValueError(f"unit must be one of {_UNITS}, got {unit!r}")
    if period not in _PERIODS:
        raise ValueError(f"period must be one of {_PERIODS}, got {period!r}")
    _checked(orders)
    standing = standing_redemptions(redemptions)
    batch = prepare_orders(sim, orders)
    who = _customers(batch)
    offered = _offered(sim, batch)
    order_ids = pd.Index([str(o) for o in batch.order_ids])
    pairs = pd.MultiIndex.from_arrays([order_ids[offered.row], offered.tier_ids[offered.column]])
    tiers = standing[standing["redeemable_type"] == "promotion_tier"]
    made = pd.MultiIndex.from_arrays([tiers["order_id"].astype(str), tiers["redeemable_id"].astype(str)]).unique()
    offers = offered.offers(who.segment)
    frame = response_frame(offers, pairs.isin(made))
    kept = offers.offered
    frame.insert(0, "tier_id", pd.array(offered.tier_ids[offered.column][kept], dtype="string"))
    frame.insert(0, "order_id", pd.array(order_ids[offered.row][kept], dtype="string"))
    unexplained = int((made.get_level_values(0).isin(order_ids) & ~made.isin(pairs)).sum())

    deepest = np.zeros(batch.n_orders, dtype=np.float64)
    np.maximum.at(deepest, offered.row[kept], offers.depth[kept])
    keep = who.code >= 0 if unit == "customer" else np.ones(batch.n_orders, dtype=bool)
    counts = _counts(_periods(offered.placed_at[keep], period), deepest[keep],
                     (who.source if unit == "customer" else who.segment)[keep])
    return HistoryOffers(frame.reset_index(drop=True), counts, batch.n_orders, int((who.code < 0).sum()), unexplained)


@dataclass(frozen=True)
class _Who:
    """Per order: its customer's code in the batch (-1: none), source id and segment label."""

    code: np.ndarray
    source: np.ndarray
    segment: np.ndarray


def _customers(batch: OrderBatch) -> _Who:
    """Who placed each order, as the sweep resolved it; refuses a customer the scenario does not hold."""
    n = batch.n_orders
    code = batch.customer if batch.customer is not None else np.full(n, -1)
    # the sweep prices a source id the scenario does not hold as a stranger: a context without an id
    strangers = {k for k, context in enumerate(batch.customers) if context is None or context.id is None}
    unknown = sorted({batch.customer_labels[c] for c in set(code.tolist()) if c in strangers})
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ValueError(f"orders: customer_source_id names customers the scenario does not hold: {shown}")
    labels = np.array(["+".join(sorted(c.segment_ids)) if c is not None else "" for c in batch.customers] + [""],
                      dtype=object)
    sources = np.array([*batch.customer_labels, ""], dtype=object)
    return _Who(code, sources[code], labels[code])  # code -1 reads the last entry: ""


@dataclass(frozen=True)
class _Offered:
    """What the sweep found: per (order, tier) that gives something, its row and column, and the sums read."""

    row: np.ndarray
    column: np.ndarray
    discount: np.ndarray
    amount: np.ndarray
    tier_ids: np.ndarray
    kinds: np.ndarray
    placed_at: pd.DatetimeIndex

    def offers(self, segment: np.ndarray) -> Offers:
        return Offers(depth_of(self.discount, self.amount[self.row]), np.zeros(len(self.row)),
                      self.kinds[self.column], segment[self.row])


def _offered(sim: Simulator, batch: OrderBatch) -> _Offered:
    """Sweep every active tier over the batch, each order at its own instant."""
    from ...sim import pricing_view
    from ..sweep.api import select_tiers, sweep
    from ..sweep.batch import Chunk

    tiers = select_tiers(pricing_view(sim))  # what `sweep` selects by default, in its column order
    result = sweep(sim, batch, progress=False)
    if result.placed_at is None:  # _checked asked for placed_at: a sweep that is not dated is a bug
        raise AssertionError("the history's sweep was not dated")
    n, t = batch.n_orders, len(tiers)
    given = result.frame["discount_amount"]
    discount = given.fillna(0).to_numpy(dtype=np.int64).reshape(n, t)
    # a free item without a price (NA: no monetary value) gives nothing to redeem, as in a forecast
    gives = result.frame["valid"].to_numpy().reshape(n, t) & (discount > 0) & ~given.isna().to_numpy().reshape(n, t)
    row, column = np.nonzero(gives)  # order-major: each order's offers in tier order
    return _Offered(row, column, discount[row, column], Chunk(batch, 0, n).amount.astype(np.float64),
                    np.array([x.id for x in tiers], dtype=object),
                    np.array([x.kind if x.kind in KINDS else "" for x in tiers], dtype=object),
                    pd.DatetimeIndex(result.placed_at))


def _periods(when: pd.DatetimeIndex, period: str) -> list[str]:
    """Each instant's ISO week ("2026-W10") or day ("2026-03-02"), in UTC (the sweep's instants are)."""
    if period == "day":
        return [str(day) for day in when.strftime("%Y-%m-%d")]
    iso = when.isocalendar()
    return [f"{y}-W{w:02d}" for y, w in zip(iso["year"].tolist(), iso["week"].tolist(), strict=True)]


def _counts(period: list[str], deepest: np.ndarray, unit: np.ndarray) -> pd.DataFrame:
    """Orders and mean deepest offer per unit and period, sorted by unit then period."""
    cells = pd.DataFrame({"unit": unit.astype(str), "period": period, "depth": deepest})
    grouped = cells.groupby(["unit", "period"], sort=True)["depth"].agg(["mean", "size"]).reset_index()
    return pd.DataFrame({"unit": pd.array(grouped["unit"], dtype="string"),
                         "period": pd.array(grouped["period"], dtype="string"),
                         "depth": grouped["mean"].to_numpy(dtype=np.float64),
                         "orders": grouped["size"].to_numpy(dtype=np.int64)})[list(COUNT_COLUMNS)]
