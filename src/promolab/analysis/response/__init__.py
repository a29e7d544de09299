"""What customers do: response models of ordering and redeeming.

- `Offers`: what each order is offered (depth, distance to a threshold,
  kind, segment), the only thing a model reads (`offers`).
- `ResponseModel`: the order lift and the chance to redeem, a documented
  default and the coefficients of a fit; `NO_RESPONSE` switches it off
  (`model`).
- `expect` -> `Expectation`: per order, expected orders, redemptions,
  spend, and its split into incremental spend and subsidy (`expectation`).
- `candidate_chances`, `won_offers`, `tier_kinds`: what a forecast offers
  each order, before its walk and after it (`forecast_offers`).
- `incremental_split`: a forecast's cost per tier or campaign split into
  incremental spend and subsidy, with expected orders (`split`).
"""

from .expectation import Expectation, expect
from .forecast_offers import candidate_chances, tier_kinds, won_offers
from .model import NO_RESPONSE, ResponseModel
from .offers import KINDS, Offers
from .split import SPLIT_COLUMNS, incremental_split

__all__ = ["KINDS", "NO_RESPONSE", "SPLIT_COLUMNS", "Expectation", "Offers", "ResponseModel", "candidate_chances",
           "expect", "incremental_split", "tier_kinds", "won_offers"]
