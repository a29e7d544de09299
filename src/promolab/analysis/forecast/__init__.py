"""Campaign forecasting: dated orders walked in time order, budgets spent as they go.

- `forecast(sim, orders, ...)` -> `ForecastResult` (`api`, `candidates`,
  `spending`, `result`);
- `compare_scenarios` -> `ScenarioComparison` (`scenarios`, `scenario_chart`);
- `CostModel`: redemption rates, cost of goods, shipping (`costs`);
- `budget_leaves`: how a tier's budget rules are taken out so the rest sweeps;
- a fixed set of tiers, codes and campaigns of codes (`fixed_set`,
  `publications`, `stacked`); what budgets had left over time (`budget_left`).
"""

from .api import POLICIES, forecast
from .budget_left import BUDGET_LEFT_COLUMNS
from .costs import CostModel
from .result import BUDGET_COLUMNS, ORDER_COLUMNS, PERIOD_COLUMNS, ForecastResult
from .scenarios import ScenarioComparison, compare_scenarios
from .sweep_costs import SWEEP_COST_COLUMNS, sweep_costs

__all__ = ["BUDGET_COLUMNS", "BUDGET_LEFT_COLUMNS", "ORDER_COLUMNS", "PERIOD_COLUMNS", "POLICIES", "SWEEP_COST_COLUMNS", "CostModel", "ForecastResult",
           "ScenarioComparison", "compare_scenarios", "forecast", "sweep_costs"]
