"""Vectorized sweeps: many orders x many tiers, equal to the engine to the cent.

`sweep(sim, orders_df, tiers=None, engine="pandas"|"dask", ...)` (the keywords: `SweepOptions`) returns a
`SweepResult` (`.frame`, `.paths`, `.summary()`). Modules: `batch` (orders as
columns, chunks), `lineset` (distinct lines: per-line arithmetic once per
distinct line), `padded` (line codes on a grid: per-order sums), `rulemasks`
(rules as masks), `vectorized` / `unitkernel` / `unit_arrays` (discount kernels), `plan`
(which path each tier takes, and why), `fallback` (the per-request engine
path), `bound` (a batch bound to its tiers: what is evaluated), `runner`
(chunks into output arrays), `dask` (partitions), `summary`,
`result`.
"""

from .api import SweepOptions, prepare_orders, select_tiers, sweep
from .batch import OrderBatch
from .result import SWEEP_COLUMNS, SweepResult
from .rulemasks import REASONS

__all__ = ["REASONS", "SWEEP_COLUMNS", "OrderBatch", "SweepOptions", "SweepResult", "prepare_orders", "select_tiers", "sweep"]
