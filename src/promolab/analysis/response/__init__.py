"""What customers do: response models of ordering and redeeming.

- `Offers`: what each order is offered (depth, distance to a threshold,
  kind, segment), the only thing a model reads (`offers`).
- `ResponseModel`: the order lift and the chance to redeem, a documented
  default and the coefficients of a fit; `NO_RESPONSE` switches it off
  (`model`).
- `expect` -> `Expectation`: per order, expected orders, redemptions,
  spend, and its split into incremental spend and subsidy (`expectation`).
"""

from .expectation import Expectation, expect
from .model import NO_RESPONSE, ResponseModel
from .offers import KINDS, Offers

__all__ = ["KINDS", "NO_RESPONSE", "Expectation", "Offers", "ResponseModel", "expect"]
