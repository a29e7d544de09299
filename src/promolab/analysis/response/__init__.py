"""What customers do: response models of ordering and redeeming.

- `Offers`: what each order is offered (depth, `depth_of`, distance to a threshold,
  kind, segment), the only thing a model reads (`offers`).
- `ResponseModel`: the order lift and the chance to redeem, a documented
  default and the coefficients of a fit; `NO_RESPONSE` switches it off
  (`model`).
- `expect` -> `Expectation`: per order, expected orders, redemptions,
  spend, and its split into incremental spend and subsidy (`expectation`).
- `candidate_chances`, `won_offers`, `tier_kinds`: what a forecast offers
  each order, before its walk and after it (`forecast_offers`).
- `fit_response` -> `FittedResponse`: a model fitted from an offers frame
  (and order counts), coefficients with 95 % intervals (`fit`);
  `synthetic_history`: histories drawn from a known model (`synthetic`).
- `incremental_split`: a forecast's cost per tier or campaign split into
  incremental spend and subsidy, with expected orders (`split`).
"""

from .expectation import Expectation, expect
from .fit import (
           COEFFICIENT_COLUMNS,
           COUNT_COLUMNS,
           OFFER_COLUMNS,
           FittedResponse,
           fit_response,
           response_frame,
)
from .forecast_offers import candidate_chances, tier_kinds, won_offers
from .model import NO_RESPONSE, ResponseModel
from .offers import KINDS, Offers, depth_of
from .split import SPLIT_COLUMNS, incremental_split
from .synthetic import SyntheticHistory, SyntheticSettings, synthetic_history

__all__ = [
           "COEFFICIENT_COLUMNS",
           "COUNT_COLUMNS",
           "KINDS",
           "NO_RESPONSE",
           "OFFER_COLUMNS",
           "SPLIT_COLUMNS",
           "Expectation",
           "FittedResponse",
           "Offers",
           "ResponseModel",
           "SyntheticHistory",
           "SyntheticSettings",
           "candidate_chances",
           "depth_of",
           "expect",
           "fit_response",
           "incremental_split",
           "response_frame",
           "synthetic_history",
           "tier_kinds",
           "won_offers",
]
