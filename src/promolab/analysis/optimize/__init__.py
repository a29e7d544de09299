"""The best setting under the budget (issue 37 §3).

- `Space` of `TierGrid`s: per group (a tier, or a tier x segment) the
  options: a grid of percent / amount off, threshold and cap, and named
  variants (`space`).
- `evaluate`: one sweep of every option, each option's expected figures by
  `response.expect` (`evaluation`); its P90 spend (`spread`).
- `Problem` (`problem`), `best_choice` by MILP or brute force (`solve`),
  the budgets (`budgets`: money, and counts per period as `CountLimit`).
- `optimize` -> `Optimum` (`api`, `optimum`). docs/response.md, "The best setting".
"""

from .api import optimize
from .budgets import CountLimit
from .optimum import Constraint, Optimum
from .problem import Problem
from .solve import best_choice, brute_force, solve_milp
from .space import Option, Space, TierGrid

__all__ = ["Constraint", "CountLimit", "Optimum", "Option", "Problem", "Space", "TierGrid", "best_choice", "brute_force",
           "optimize", "solve_milp"]
