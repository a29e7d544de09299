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
- `history_offers` -> `HistoryOffers`: the two frames of a fit from a
  pulled history, what each order was offered swept at its own instant and
  what it redeemed (`history_offers`).
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
from .history_offers import HISTORY_OFFER_COLUMNS, HistoryOffers, history_offers
from .model import NO_RESPONSE, ResponseModel
from .offers import KINDS, Offers, depth_of
from .split import SPLIT_COLUMNS, incremental_split
from .synthetic import SyntheticHistory, SyntheticSettings, synthetic_history

__all__ = [
           "COEFFICIENT_COLUMNS",
           "COUNT_COLUMNS",
           "HISTORY_OFFER_COLUMNS",
           "KINDS",
           "NO_RESPONSE",
           "OFFER_COLUMNS",
           "SPLIT_COLUMNS",
           "Expectation",
           "FittedResponse",
           "HistoryOffers",
           "Offers",
           "ResponseModel",
           "SyntheticHistory",
           "SyntheticSettings",
           "candidate_chances",
           "depth_of",
           "expect",
           "fit_response",
           "history_offers",
           "incremental_split",
           "response_frame",
           "synthetic_history",
           "tier_kinds",
           "won_offers",
]
