"""Analysis: everything returns pandas objects analysts already know.

- Orders: `orders_from_frame`, `orders_from_records`, `order_request`,
  `as_requests` (line items in, validation requests out).
- Frames: `validation_frame`, `publications_frame`, `transactions_frame`,
  `deliveries_frame` (documented columns and dtypes: docs/analysis.md);
  `typed_frame` (rows into a frame of those dtypes, for a layer above).
- Comparison: `compare_tiers` (engine, with reasons), `best_tier`,
  `pivot_tiers`, `discount_matrix`.
- Sweeps: `sweep` (vectorized, `engine="pandas"|"dask"`) -> `SweepResult`,
  `prepare_orders`.
- Stacking: `compare_stacking_policies` (vectorized, equal to
  `evaluate_stack`) -> `StackingComparison`; `why_not_frame` (each
  redeemable of a stacked request, and what stopped it),
  `why_not_qualified_frame` (what a qualification left out, and why).
- Forecasts: `forecast` (dated orders in time order, budgets and limits
  spent as they redeem; equal to `send_one_by_one` through the redemption
  operation) -> `ForecastResult`; `CostModel` (redemption rates, cost of goods);
  `compare_scenarios` -> `ScenarioComparison` (side by side, differences, chart);
  `sweep_costs` (a sweep's tiers under a `CostModel`: rates, free shipping valued).
- The best setting: `optimize` (a `Space` of `TierGrid`s: per tier or tier x
  segment, a grid of its terms and named variants) -> `Optimum` (the choice
  maximising expected incremental net revenue under the budgets' P90 spend).
- Response: `ResponseModel` (order lift, chance to redeem; `NO_RESPONSE`
  off), `Offers`, `expect`; `fit_response` -> `FittedResponse` (fitted from
  history, 95 % intervals); `history_offers` (its frames from a pulled
  history: what each order was offered and redeemed); `incremental_split` (a forecast's cost as
  incremental spend and subsidy); `CostModel(response=...)` reads a model.
- Retro-replay: `retro_replay` (a pulled history priced again before and
  after a change, beside what was redeemed) -> `RetroReplay` (per order,
  per tier, per budget, a chart).
- Cohorts: `with_cohorts` (weekday, hour, day, new customer, basket band of
  a per-order frame), `breakdown` (tidy counts and discounts per cohort),
  `weekday_hour_table`, `basket_band_labels`.
- Plots: `plot_discount_by_tier`, `plot_discount_distribution`;
  `plot_burn_down` (and `ForecastResult.plot_burn_down`, the budget read from
  the scenario), `plot_discount_by_cohort`, `plot_weekday_hour_heatmap`,
  `plot_delivery_attempts` (attempts counted per time slot); labels by name
  (`scenario_names`); `notebook_style` (the notebooks' figure settings).
"""

from .cohort_charts import plot_burn_down, plot_discount_by_cohort, plot_weekday_hour_heatmap
from .cohorts import (
    BREAKDOWN_COLUMNS,
    COHORT_COLUMNS,
    DEFAULT_BASKET_BANDS,
    WEEKDAYS,
    basket_band_labels,
    breakdown,
    weekday_hour_table,
    with_cohorts,
)
from .compare import COMPARE_COLUMNS, best_tier, compare_tiers, discount_matrix, pivot_tiers
from .delivery_chart import delivery_slots, plot_delivery_attempts
from .forecast import (
    CostModel,
    ForecastResult,
    ScenarioComparison,
    compare_scenarios,
    forecast,
    sweep_costs,
)
from .forecast.one_by_one import send_one_by_one
from .frames import (
    DELIVERY_COLUMNS,
    PUBLICATION_COLUMNS,
    TRANSACTION_COLUMNS,
    VALIDATION_COLUMNS,
    deliveries_frame,
    publications_frame,
    transactions_frame,
    validation_frame,
)
from .names import scenario_names
from .optimize import Optimum, Space, TierGrid, optimize
from .orders import as_requests, order_request, orders_from_frame, orders_from_records
from .plots import notebook_style, plot_discount_by_tier, plot_discount_distribution
from .response import (
    NO_RESPONSE,
    FittedResponse,
    HistoryOffers,
    Offers,
    ResponseModel,
    expect,
    fit_response,
    history_offers,
    incremental_split,
)
from .retro_replay import RETRO_ORDER_COLUMNS, RETRO_TIER_COLUMNS, RetroReplay, retro_replay
from .stacking_policies import StackingComparison, compare_stacking_policies
from .state_frames import typed_frame
from .sweep import SWEEP_COLUMNS, OrderBatch, SweepResult, prepare_orders, sweep
from .why_not import NOT_QUALIFIED_COLUMNS, WHY_NOT_COLUMNS, why_not_frame, why_not_qualified_frame

__all__ = [
    "BREAKDOWN_COLUMNS",
    "COHORT_COLUMNS",
    "COMPARE_COLUMNS",
    "DEFAULT_BASKET_BANDS",
    "DELIVERY_COLUMNS",
    "NOT_QUALIFIED_COLUMNS",
    "NO_RESPONSE",
    "PUBLICATION_COLUMNS",
    "RETRO_ORDER_COLUMNS",
    "RETRO_TIER_COLUMNS",
    "SWEEP_COLUMNS",
    "TRANSACTION_COLUMNS",
    "VALIDATION_COLUMNS",
    "WEEKDAYS",
    "WHY_NOT_COLUMNS",
    "CostModel",
    "FittedResponse",
    "ForecastResult",
    "HistoryOffers",
    "Offers",
    "Optimum",
    "OrderBatch",
    "ResponseModel",
    "RetroReplay",
    "ScenarioComparison",
    "Space",
    "StackingComparison",
    "SweepResult",
    "TierGrid",
    "as_requests",
    "basket_band_labels",
    "best_tier",
    "breakdown",
    "compare_scenarios",
    "compare_stacking_policies",
    "compare_tiers",
    "deliveries_frame",
    "delivery_slots",
    "discount_matrix",
    "expect",
    "fit_response",
    "forecast",
    "history_offers",
    "incremental_split",
    "notebook_style",
    "optimize",
    "order_request",
    "orders_from_frame",
    "orders_from_records",
    "pivot_tiers",
    "plot_burn_down",
    "plot_delivery_attempts",
    "plot_discount_by_cohort",
    "plot_discount_by_tier",
    "plot_discount_distribution",
    "plot_weekday_hour_heatmap",
    "prepare_orders",
    "publications_frame",
    "retro_replay",
    "scenario_names",
    "send_one_by_one",
    "sweep",
    "sweep_costs",
    "transactions_frame",
    "typed_frame",
    "validation_frame",
    "weekday_hour_table",
    "why_not_frame",
    "why_not_qualified_frame",
    "with_cohorts",
]
