"""What the edited tier is expected to bring: incremental net revenue and its band.

The what-if's cost is what the tier would give away if every order it
reaches redeemed; what a person tuning it also needs is what that buys. So,
on the same orders the tuner sweeps, this takes each order the edited tier
gives something to and asks `response.expect` (the one set of formulas the
forecast and the optimizer read) for its expected incremental net revenue,
the order offered `depth = discount / order amount` of the tier's kind,
with no threshold left to reach (the sweep says it qualifies) and no
segment.

The band is the optimizer's normal approximation (`optimize.spread`): each
order redeems independently, so spend has variance `sum w p (1 - p) d^2`;
the incremental orders are an expectation of the model, not a draw, so
incremental net revenue (incremental margin less spend) moves with spend
alone and has the same variance. P10 and P90 are `mean -/+ z90 * sd`.

The cost of goods is not known to the what-if (it sweeps orders, not a
`CostModel`), so the margin of an order is its amount: the figure is an
upper bound of what a shop with costs of goods would see. Pure: arrays in,
an `Outlook` out, no simulator and no widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.optimize.spread import p10, p90, spend_variance
from ..analysis.response import Offers, ResponseModel, depth_of, expect

__all__ = ["Outlook", "outlook"]


@dataclass(frozen=True)
class Outlook:
    """Expected figures of a tier over swept orders (cents, floats: an
    expectation of cents is not whole cents; `present` rounds them).

    `orders_offered`: how many orders the tier gives something to;
    `incremental_net_revenue`: expected; `p10`, `p90`: its band;
    `spend`: the expected spend (what redeems, below the sweep's cost)."""

    orders_offered: int
    incremental_net_revenue: float
    p10: float
    p90: float
    spend: float


def outlook(kind: str, amount: np.ndarray, discount: np.ndarray, model: ResponseModel | None = None) -> Outlook:
    """The outlook of a tier of `kind` over orders of `amount` cents each
    giving `discount` cents (0 where the tier gives nothing: not valid, or
    nothing off). `model`: default `ResponseModel()`."""
    amount = np.asarray(amount, dtype=np.float64)
    discount = np.asarray(discount, dtype=np.float64)
    if amount.shape != discount.shape:
        raise ValueError(f"amount has {len(amount)} entries, discount has {len(discount)}")
    if (discount < 0).any():
        raise ValueError("a discount cannot be negative")
    offered = (discount > 0) & (amount > 0)
    a, d = amount[offered], discount[offered]
    n = len(a)
    offers = Offers(depth=depth_of(d, a), distance=np.zeros(n), kind=np.full(n, kind, dtype=object),
                    segment=np.full(n, "", dtype=object))
    expected = expect(model if model is not None else ResponseModel(), offers, a, d)
    mean = float(expected.incremental_net_revenue.sum())
    variance = float(spend_variance(expected.redemptions, expected.orders, d).sum())
    return Outlook(orders_offered=n, incremental_net_revenue=mean, p10=p10(mean, variance),
                   p90=p90(mean, variance), spend=float(expected.spend.sum()))
