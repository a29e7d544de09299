"""The ipywidgets face of a `WhatIfController`: controls in, table and chart out.

Thin on purpose: each control calls one controller method; the controller's
listener redraws the two tables (HTML widgets) and the chart (an Image widget
holding PNG bytes), all at once. Controls carry CSS classes
(`promolab-...`) so a browser test can find them.

Displayed, the dashboard also carries a static snapshot of itself (`text/html`:
status, tables, the chart as an inline PNG) beside the widget view: a live
frontend (JupyterLab, Voila) shows the widgets, while a static render
(`nbconvert --to html`, an untrusted notebook in JupyterLab, a code host's
preview), which cannot run widgets, shows the snapshot instead of a blank cell.
"""

from __future__ import annotations

import base64
import html
from typing import Any

import ipywidgets as w

from ..display import minor_digits, money_unit
from .best import BestValue
from .charts import DPI, FIGSIZE, figure_png, whatif_figure
from .controller import WhatIfController, WhatIfResult
from .present import (
    NO_MATHS,
    STYLE,
    best_line,
    order_display,
    outlook_line,
    status_line,
    tier_display,
    to_html,
)
from .variants_view import VariantsPanel

__all__ = ["WhatIfDashboard"]

_NO_CUSTOMER = "(no customer)"


class WhatIfDashboard:
    """`display(WhatIfDashboard(controller))` or `dashboard.widget`."""

    def __init__(self, controller: WhatIfController) -> None:
        self.controller = controller
        self._syncing = False
        c = controller

        # -- order builder
        self.quantities: dict[str, w.BoundedIntText] = {}
        for product_id, name in c.products.items():
            box = w.BoundedIntText(
                value=c.draft.quantity(product_id), min=0, max=99, description=name,
                style={"description_width": "170px"}, layout=w.Layout(width="250px"),
            )
            box.add_class(f"promolab-qty-{product_id}")
            box.observe(self._on_quantity(product_id), names="value")
            self.quantities[product_id] = box
        self.customer = w.Dropdown(
            options=[(_NO_CUSTOMER, "")] + [(f"{name} ({sid})", sid) for sid, name in c.customers.items()],
            value=c.draft.customer or "", description="Customer",
        )
        self.customer.add_class("promolab-customer")
        self.customer.observe(self._guard(lambda change: c.set_customer(change["new"] or None)), names="value")

        # -- tier tuner
        self.tier = w.Dropdown(options=c.tunable, value=c.edit.tier_id, description="Tier",
                               layout=w.Layout(width="340px"))
        self.tier.add_class("promolab-tier")
        self.value = w.FloatSlider(continuous_update=False, layout=w.Layout(width="340px"),
                                   style={"description_width": "initial"})
        self.value.add_class("promolab-value")
        self.effect = w.Dropdown(description="Effect", layout=w.Layout(width="420px"))
        self.effect.add_class("promolab-effect")
        # in whole units of the controller's currency, as the slider (`SliderSpec`)
        self._min_scale = 10 ** minor_digits(c.currency)
        self.min_amount = w.BoundedFloatText(min=0, max=100000, step=1,
                                             description=f"Min order {money_unit(c.currency)}",
                                             layout=w.Layout(width="200px"))
        self.min_amount.add_class("promolab-min-amount")
        self.reset = w.Button(description="Reset tier", icon="undo")
        self.reset.add_class("promolab-reset")
        self._sync_controls()
        self.tier.observe(self._guard(lambda ch: c.select_tier(ch["new"])), names="value")
        self.value.observe(self._guard(lambda ch: c.set_value(c.slider.from_display(ch["new"]))), names="value")
        self.effect.observe(self._guard(lambda ch: c.set_effect(ch["new"])), names="value")
        self.min_amount.observe(self._guard(self._on_min_amount), names="value")
        self.reset.on_click(lambda _: c.reset_tier())
        # "find the best": the optimizer over a grid of the tier's value; the tier
        # changes only when the answer is applied (or the slider is moved)
        self.find_best = w.Button(description="Find the best", icon="search")
        self.find_best.add_class("promolab-find-best")
        self.apply_best = w.Button(description="Apply best", icon="check", disabled=True)
        self.apply_best.add_class("promolab-apply-best")
        self.best = w.HTML()
        self.best.add_class("promolab-best")
        self._best: BestValue | None = None
        self.find_best.on_click(lambda _: self._on_find_best())
        self.apply_best.on_click(lambda _: self._on_apply_best())

        # -- outputs
        self.status = w.HTML()
        self.status.add_class("promolab-status")
        self.order_table = w.HTML()
        self.order_table.add_class("promolab-order-table")
        self.tier_table = w.HTML(layout=w.Layout(margin="0 0 0 24px"))
        self.tier_table.add_class("promolab-tier-table")
        #: beside the cost, what it is expected to bring (incremental net revenue, P10-P90)
        self.outlook = w.HTML()
        self.outlook.add_class("promolab-outlook")
        # shown at the figure's own pixel size (its fonts are sized for that), narrower if need be
        self.chart = w.Image(format="png", layout=w.Layout(width=f"{round(FIGSIZE[0] * DPI)}px", max_width="100%"))
        self.chart.add_class("promolab-chart")
        #: save the tuning under a name, load / delete it, compare the saved ones (variants_view.py)
        self.variants = VariantsPanel(controller)

        builder = w.VBox(
            [w.HTML("<b>Order builder</b>"), self.customer,
             w.GridBox(list(self.quantities.values()),
                       layout=w.Layout(grid_template_columns="repeat(2, 260px)"))],
        )
        tuner = w.VBox([w.HTML("<b>Tier tuner</b>"), self.tier, self.value, self.effect,
                        w.HBox([self.min_amount, self.reset]),
                        w.HBox([self.find_best, self.apply_best]), self.best])
        self.widget = w.VBox([
            w.HTML(STYLE),
            w.HBox([builder, tuner]),
            self.status,
            w.HBox([self.order_table, self.tier_table]),
            self.outlook,
            self.chart,
            self.variants.widget,
        ])
        self.widget.add_class("promolab-whatif")
        c.on_change(self.render)
        self.render(c.result)

    # -- control -> controller ---------------------------------------------------------
    def _guard(self, handler: Any) -> Any:
        def run(change: dict[str, Any]) -> None:
            if not self._syncing:
                handler(change)
        return run

    def _on_quantity(self, product_id: str) -> Any:
        def run(change: dict[str, Any]) -> None:
            if not self._syncing:
                self.controller.set_quantity(product_id, int(change["new"] or 0))
        return run

    def _on_min_amount(self, change: dict[str, Any]) -> None:
        shown = float(change["new"] or 0)
        original = self.controller.edit.min_amount
        cents = round(shown * self._min_scale)
        self.controller.set_min_amount(None if (original is None and cents == 0) else cents)

    def _on_find_best(self) -> None:
        c = self.controller
        self._best = c.find_best()
        line = best_line(self._best, c.edit, currency=c.currency)
        self.best.value = f'<span class="{NO_MATHS}">{html.escape(line)}</span>'
        self.apply_best.disabled = self._best.value is None

    def _on_apply_best(self) -> None:
        if self._best is not None and self._best.value is not None:
            self.controller.apply_best(self._best)

    # -- controller -> controls and outputs -------------------------------------------
    def _sync_controls(self) -> None:
        """Controls follow the controller's state (after a tier switch, a reset, or
        a change made in code, e.g. `controller.set_order(...)`)."""
        c = self.controller
        edit, slider = c.edit, c.slider
        self._syncing = True
        try:
            self.customer.value = c.draft.customer if c.draft.customer in c.customers else ""
            for product_id, box in self.quantities.items():
                box.value = c.draft.quantity(product_id)
            self.tier.value = edit.tier_id
            self.value.description = f"{slider.description} ({slider.unit})"
            self.value.min, self.value.max = slider.minimum, slider.maximum
            self.value.step = slider.step
            self.value.value = slider.to_display(edit.value)
            self.effect.options = list(c.effects)
            self.effect.value = edit.effect
            self.min_amount.value = 0 if edit.min_amount is None else edit.min_amount / self._min_scale
        finally:
            self._syncing = False

    def render(self, result: WhatIfResult) -> None:
        self._sync_controls()
        if self._best is not None and self._best.tier_id != result.edit.tier_id:  # found for another tier
            self._best, self.best.value, self.apply_best.disabled = None, "", True
        self.status.value = f"<i>{status_line(result)}</i>"
        self.order_table.value = to_html(
            order_display(result), title="This order, every tier",
            highlight=result.order_table["whatif"].tolist(),
        )
        self.tier_table.value = to_html(
            tier_display(result), title=f"{result.edit.tier_id}: before vs after", index=True,
        )
        self.outlook.value = f'<span class="{NO_MATHS}">{html.escape(outlook_line(result))}</span>'
        self.chart.value = figure_png(whatif_figure(result))

    def snapshot_html(self) -> str:
        """The dashboard as it stands, as static HTML: the status line, both
        tables and the chart (inline PNG). What a render that cannot run
        widgets shows in place of the controls."""
        chart = base64.b64encode(bytes(self.chart.value)).decode("ascii")
        width = round(FIGSIZE[0] * DPI)
        return (
            f'<div class="promolab-snapshot {NO_MATHS}">{STYLE}'
            f"<p><i>{html.escape(status_line(self.controller.result))}</i></p>"
            f'<div style="display: flex; gap: 24px; align-items: flex-start">'
            f'<div class="promolab-order-table">{self.order_table.value}</div>{self.tier_table.value}</div>'
            f"<p>{self.outlook.value}</p>"
            f'<img src="data:image/png;base64,{chart}" alt="what-if chart" '
            f'style="width: {width}px; max-width: 100%">'
            "<p><small>A snapshot of the what-if dashboard: run the notebook (or open it with "
            "Voila) for the live controls.</small></p></div>"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view, with a static snapshot and a text line as fallbacks
        (a frontend shows the richest form it can: live widgets where it can run them)."""
        live = self.widget._repr_mimebundle_  # None once the widget is closed
        bundle: dict[str, Any] = dict(live(**kwargs) or {}) if callable(live) else {}
        bundle["text/html"] = self.snapshot_html()
        bundle["text/plain"] = f"What-if dashboard: {status_line(self.controller.result)}"
        return bundle
