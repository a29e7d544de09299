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
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..standing import standing_redemptions
from .fit import COUNT_COLUMNS, OFFER_COLUMNS, response_frame
from .offers import KINDS, Offers, depth_of

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["HISTORY_OFFER_COLUMNS", "HistoryOffers", "history_offers"]

#: The offers frame of a history: which order and tier each offer is, then `OFFER_COLUMNS`.
HISTORY_OFFER_COLUMNS = ("order_id", "tier_id", *OFFER_COLUMNS)
#: The columns of the orders frame the offers need (beside the line items a sweep reads).
_ORDER_COLUMNS = ("order_id", "placed_at", "customer_source_id")
_UNITS = ("customer", "segment")
_PERIODS = ("week", "day")


@dataclass(frozen=True)
class HistoryOffers:
    """The two frames `fit_response` reads, from a history (see the module's
    docstring), and what the integrator of a real history wants to know."""

    #: one row per (order, tier offered): `HISTORY_OFFER_COLUMNS`
    offers: pd.DataFrame
    #: one row per unit and ISO week: `COUNT_COLUMNS`
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
    if not (pd.api.types.is_string_dtype(source) or source.isna().all()):
        raise ValueError(f"orders: customer_source_id must be strings (or missing), got {source.dtype}")


def history_offers(sim: Simulator, orders: pd.DataFrame, redemptions: pd.DataFrame, *,
                   unit: str = "customer", period: str = "week") -> HistoryOffers:
    """The offers and counts frames of a history (see the module's docstring):
    `orders` a line-items frame with `placed_at` and `customer_source_id`
    (a pull's, with the shop's other orders), `redemptions` a pull's.

    Raises TypeError for orders that are not a DataFrame, ValueError naming what is wrong: a missing column, a wrong dtype,
    an order naming a customer the scenario does not hold, a redemptions
    frame that is not a history's, a `unit` not among "customer", "segment",
    a `period` not among "week", "day"."""
    from ...sim import pricing_view
    from ..sweep.api import prepare_orders, select_tiers, sweep
    from ..sweep.batch import Chunk

    if unit not in _UNITS:
        raise ValueError(f"unit must be one of {_UNITS}, got {unit!r}")
    if period not in _PERIODS:
        raise ValueError(f"period must be one of {_PERIODS}, got {period!r}")
    _checked(orders)
    standing = standing_redemptions(redemptions)
    batch = prepare_orders(sim, orders)
    n = batch.n_orders
    code = batch.customer if batch.customer is not None else np.full(n, -1)
    # the sweep prices a source id the scenario does not hold as a stranger: a context without an id
    strangers = {k for k, context in enumerate(batch.customers) if context is None or context.id is None}
    unknown = sorted({batch.customer_labels[c] for c in set(code.tolist()) if c in strangers})
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ValueError(f"orders: customer_source_id names customers the scenario does not hold: {shown}")
    labels = ["+".join(sorted(c.segment_ids)) if c is not None else "" for c in batch.customers]
    segment = np.array([labels[c] if c >= 0 else "" for c in code.tolist()], dtype=object)
    who = np.array([batch.customer_labels[c] if c >= 0 else "" for c in code.tolist()], dtype=object)

    tiers = select_tiers(pricing_view(sim))  # what `sweep` selects by default, in its column order
    result = sweep(sim, batch, progress=False)
    t = len(tiers)
    valid = result.frame["valid"].to_numpy().reshape(n, t)
    discount_column = result.frame["discount_amount"]
    discount = discount_column.fillna(0).to_numpy(dtype=np.int64).reshape(n, t)
    gives = valid & (discount > 0) & ~discount_column.isna().to_numpy().reshape(n, t)
    amount = Chunk(batch, 0, n).amount.astype(np.float64)
    order_ids = np.asarray(batch.order_ids, dtype=object)

    row, column = np.nonzero(gives)  # order-major: each order's offers in tier order
    tier_ids = np.array([x.id for x in tiers], dtype=object)
    kinds = np.array([x.kind if x.kind in KINDS else "" for x in tiers], dtype=object)
    tiers_redeemed = standing[standing["redeemable_type"] == "promotion_tier"]
    made = set(zip(tiers_redeemed["order_id"].astype(str), tiers_redeemed["redeemable_id"].astype(str), strict=True))
    pairs = list(zip((str(o) for o in order_ids[row]), tier_ids[column].tolist(), strict=True))
    offers = Offers(depth_of(discount[row, column], amount[row]), np.zeros(len(row)), kinds[column], segment[row])
    frame = response_frame(offers, np.array([p in made for p in pairs], dtype=bool))
    kept = offers.offered
    frame.insert(0, "tier_id", pd.array(tier_ids[column][kept], dtype="string"))
    frame.insert(0, "order_id", pd.array([str(o) for o in order_ids[row][kept]], dtype="string"))
    known = {str(o) for o in order_ids}
    unexplained = len({m for m in made if m[0] in known} - set(pairs))

    deepest = np.zeros(n, dtype=np.float64)
    np.maximum.at(deepest, row[kept], offers.depth[kept])
    assert result.placed_at is not None  # a dated sweep: _checked asked for placed_at
    keep = code >= 0 if unit == "customer" else np.ones(n, dtype=bool)
    counts = _counts(_periods(pd.DatetimeIndex(result.placed_at)[keep], period), deepest[keep],
                     (who if unit == "customer" else segment)[keep])
    return HistoryOffers(frame.reset_index(drop=True), counts, n, int((code < 0).sum()), unexplained)


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
