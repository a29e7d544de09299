"""What a response model expects of each order: one set of formulas.

The orders a forecast walks are taken as placed **under the offers they were
recorded with** (`recorded`; none for a plain list of orders, such as the
demo month: then they are the demand without incentives). Under other offers
an order is expected `lift(offers) / lift(recorded)` times, and of those,
`1 / lift(offers)` would have been placed with nothing offered: the rest are
incremental. So, per order, with `w` the expected count and `p` the chance to
redeem:

- redemptions `w * p`, spend `w * p * discount`;
- baseline orders `1 / lift(recorded)`, incremental orders `w - baseline`;
- subsidy: the spend on baseline orders, `spend / lift(offers)`;
  incremental spend: the rest;
- incremental net revenue: incremental orders times their margin
  (`amount - goods`) less everything spent, because the discount on the
  orders that come anyway is paid too.

The split (`incremental_spend + subsidy == spend`) and the reduction under
`NO_RESPONSE` (w = 1, p = 1 where offered, nothing incremental) are what the
forecast, the fit's reports and the optimizer all read from here, so the
three never disagree on what "incremental" means.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import ResponseModel
from .offers import Offers

__all__ = ["Expectation", "expect"]


@dataclass(frozen=True)
class Expectation:
    """Per order, expected values (floats: an expectation of cents is not
    whole cents; frames round them at their boundary)."""

    orders: np.ndarray
    incremental_orders: np.ndarray
    redemptions: np.ndarray
    spend: np.ndarray
    incremental_spend: np.ndarray
    subsidy: np.ndarray
    incremental_net_revenue: np.ndarray


def expect(model: ResponseModel, offers: Offers, amount: np.ndarray, discount: np.ndarray,
           recorded: Offers | None = None, goods: np.ndarray | None = None) -> Expectation:
    """The expected outcome of each order under `offers` (see the module's
    docstring). `amount`, `discount`, `goods`: cents per order (`discount`
    what it gets if it redeems; `goods` its cost of goods, 0 when None)."""
    n = len(offers)
    amount = np.asarray(amount, dtype=np.float64)
    discount = np.asarray(discount, dtype=np.float64)
    cost = np.zeros(n) if goods is None else np.asarray(goods, dtype=np.float64)
    for name, values in (("amount", amount), ("discount", discount), ("goods", cost)):
        if len(values) != n:
            raise ValueError(f"{name} has {len(values)} entries, offers has {n}")
    lift = model.order_lift(offers)
    before = np.ones(n) if recorded is None else model.order_lift(recorded)
    if recorded is not None and len(recorded) != n:
        raise ValueError(f"recorded has {len(recorded)} entries, offers has {n}")
    w = lift / before
    baseline = 1.0 / before
    p = model.redeem_probability(offers)
    redemptions = w * p
    spend = redemptions * discount
    subsidy = spend / lift
    incremental = w - baseline
    return Expectation(orders=w, incremental_orders=incremental, redemptions=redemptions, spend=spend,
                       incremental_spend=spend - subsidy, subsidy=subsidy,
                       incremental_net_revenue=incremental * (amount - cost) - spend)
