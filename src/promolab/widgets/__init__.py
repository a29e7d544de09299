"""What-if widgets: build an order, tune a tier, see the effect at once.

    from promolab import Simulator
    from promolab.widgets import what_if

    sim = Simulator.from_scenario("data/scenarios/demo.yaml")
    orders = pd.read_parquet("data/orders/sample_orders.parquet")
    dashboard = what_if(sim, orders, sample=3000)
    dashboard                      # in a notebook / Voila: the controls, tables and chart

    sim = Simulator.from_scenario(path_of_a_scenario_in_eur)
    what_if(sim, orders)                         # shows its money in euros (sim.currency)

Layers: `state` (frozen values, pure functions), `controller` (state + the
analysis it re-runs: `compare_tiers` on the order, `sweep` of the tuned tier
before/after; `outlook`: what the edited tier is expected to bring under the
default response model, its incremental net revenue with a P10-P90 band), `present` and `charts` (text, HTML, PNG of a result), `view`
(the ipywidgets, thin). `best`: "find the best", the optimizer over a
small grid of the tuned tier's value (`controller.find_best()`, applied only
by `controller.apply_best(...)`). `variants` keeps tuned tiers under names and compares
them with the scenario, over the sample orders or forecast over dated orders
(`controller.save_variant(...)`, `controller.compare_variants(...)`);
`variants_view` is its panel in the dashboard. Everything but `view` runs without a browser or a
kernel; tests/widgets drives the controller directly.

The currency is the controller's (`currency=`, by default the simulator's
`Simulator.currency`, the scenario's `project.currency`): it is read once and
travels with what is shown (`WhatIfResult.currency`, `Variant.currency`, a
comparison frame's `attrs`); no display function here defaults to dollars.

`readable(frame, money=..., shares=..., counts=..., currency=...)` (from
`present`) is how every notebook shows a table to a person: amounts with
their currency.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .best import BestValue, best_grid, best_values
from .charts import figure_png, variants_figure, whatif_figure
from .controller import METRICS, ORDER_COLUMNS, WhatIfController, WhatIfResult, sample_orders
from .outlook import Outlook, outlook
from .present import (
    best_line,
    edit_changes,
    order_display,
    outlook_line,
    readable,
    status_line,
    tier_display,
)
from .state import (
    EFFECTS,
    TUNABLE_TYPES,
    OrderDraft,
    SliderSpec,
    TierEdit,
    apply_edit,
    edit_of,
    min_amount_of,
    slider_spec,
    whatif_id,
    with_min_amount,
)
from .variants import CURRENT, Variant, VariantBook, comparison_display

if TYPE_CHECKING:
    import pandas as pd

    from ..sim import Simulator
    from .view import WhatIfDashboard

__all__ = [
    "CURRENT",
    "EFFECTS",
    "METRICS",
    "ORDER_COLUMNS",
    "TUNABLE_TYPES",
    "BestValue",
    "OrderDraft",
    "Outlook",
    "SliderSpec",
    "TierEdit",
    "Variant",
    "VariantBook",
    "WhatIfController",
    "WhatIfDashboard",
    "WhatIfResult",
    "apply_edit",
    "best_grid",
    "best_line",
    "best_values",
    "comparison_display",
    "edit_changes",
    "edit_of",
    "figure_png",
    "min_amount_of",
    "order_display",
    "outlook",
    "outlook_line",
    "readable",
    "sample_orders",
    "slider_spec",
    "status_line",
    "tier_display",
    "variants_figure",
    "what_if",
    "whatif_figure",
    "whatif_id",
    "with_min_amount",
]


def what_if(sim: Simulator, orders: pd.DataFrame, **options: Any) -> WhatIfDashboard:
    """A `WhatIfDashboard` over a `WhatIfController(sim, orders, **options)`
    (`sample=`, `seed=`, `tier=`, `draft=`, `currency=`: the scenario's)."""
    from .view import WhatIfDashboard

    return WhatIfDashboard(WhatIfController(sim, orders, **options))


def __getattr__(name: str) -> Any:
    if name == "WhatIfDashboard":  # imported lazily: ipywidgets only when the view is used
        from .view import WhatIfDashboard

        return WhatIfDashboard
    raise AttributeError(name)
