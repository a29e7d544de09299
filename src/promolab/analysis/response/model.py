"""How customers answer an incentive: the chance to order, and to redeem.

Two parts, each plain enough to read off and fit from history:

- **Order lift**: an order offered depth `d` happens `exp(lift * d)` times as
  often as without it (a log-linear rate, what a Poisson model of order
  counts fits). The share of such orders that happen *because of* the
  incentive is `1 - 1 / lift`: the rest would have been placed anyway, and
  the discount on them is subsidy.
- **Redemption**: an order that is offered an incentive redeems it with
  chance `sigmoid(intercept + depth_coef * d + kind[k] + segment[s])`, times
  `exp(-distance_coef * x)` when the basket is `x` short of the threshold
  (the customer has to top up first).

Both are monotone in the incentive (a deeper discount never lowers either,
a longer way to the threshold never raises it), which the constructor
checks: a fit that says otherwise is reported, not used.

`ResponseModel()` is the plain default documented in docs/response.md;
`NO_RESPONSE` switches the response off (everyone orders as recorded and
redeems what they qualify for), under which a forecast is today's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .offers import KINDS, Offers

__all__ = ["NO_RESPONSE", "ResponseModel"]


def _finite(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class ResponseModel:
    """Coefficients of the two parts (see the module's docstring).

    `segment` adds to the redemption's log-odds per segment label (others
    0); `kind` per incentive kind (others 0). `redeem_always=True` makes every
    offered order redeem (the forecast's own rule without a response)."""

    lift: float = 2.0
    intercept: float = -1.0
    depth_coef: float = 8.0
    distance_coef: float = 5.0
    kind: Mapping[str, float] = field(default_factory=lambda: {"UNIT": -0.3})
    segment: Mapping[str, float] = field(default_factory=dict)
    redeem_always: bool = False

    def __post_init__(self) -> None:
        for name in ("lift", "intercept", "depth_coef", "distance_coef"):
            _finite(getattr(self, name), f"ResponseModel.{name}")
        for name in ("lift", "depth_coef", "distance_coef"):
            if getattr(self, name) < 0:
                raise ValueError(f"ResponseModel.{name} must be >= 0: a deeper incentive never lowers the "
                                 f"response, a longer way to the threshold never raises it; got {getattr(self, name)!r}")
        unknown = set(self.kind) - set(KINDS[:-1])
        if unknown:
            raise ValueError(f"ResponseModel.kind keys must be among {KINDS[:-1]}; got {sorted(unknown)}")
        for table in ("kind", "segment"):
            values = getattr(self, table)
            for key, value in values.items():
                _finite(value, f"ResponseModel.{table}[{key!r}]")
            object.__setattr__(self, table, MappingProxyType(dict(values)))

    def order_lift(self, offers: Offers) -> np.ndarray:
        """How many times as likely each order is with its incentive as
        without (>= 1; exactly 1 where nothing is offered)."""
        return np.exp(self.lift * np.where(offers.offered, offers.depth, 0.0))

    def incremental_share(self, offers: Offers) -> np.ndarray:
        """The share of each order that happens because of its incentive."""
        return 1.0 - 1.0 / self.order_lift(offers)

    def redeem_probability(self, offers: Offers) -> np.ndarray:
        """The chance each offered order redeems its incentive (0 where
        nothing is offered)."""
        offered = offers.offered
        if self.redeem_always:
            return offered.astype(np.float64)
        logit = self.intercept + self.depth_coef * offers.depth
        logit = logit + _lookup(self.kind, offers.kind) + _lookup(self.segment, offers.segment)
        p = 1.0 / (1.0 + np.exp(-logit))
        p = p * np.exp(-self.distance_coef * offers.distance)
        return np.where(offered, p, 0.0)


def _lookup(table: Mapping[str, float], labels: np.ndarray) -> np.ndarray:
    """Per label its value in `table`, 0 for the others (vectorized over the
    distinct labels, which are few)."""
    out = np.zeros(len(labels), dtype=np.float64)
    for key, value in table.items():
        out[labels == key] = value
    return out


#: The response switched off: nobody orders because of an incentive and
#: every offered order redeems (the forecast without a response model).
NO_RESPONSE = ResponseModel(lift=0.0, kind={}, redeem_always=True)
