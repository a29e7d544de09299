"""The variants panel of the what-if dashboard: save, list, load, delete, compare.

As thin as the rest of the view (`view.py`): each button calls one
controller method (`save_variant`, `load_variant`, `delete_variant`,
`compare_variants`) and shows what it answers, or the controller's refusal
(an empty or taken name) as a message instead of a traceback in the log.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from ..display import format_count
from .charts import DPI, FIGSIZE, figure_png, variants_figure
from .controller import WhatIfController
from .present import to_html
from .variants import CURRENT, comparison_display

__all__ = ["VariantsPanel"]

#: The comparison's columns the panel shows (the frame has more: `compare_variants`).
_SHOWN = {"variant": "variant", "tier_id": "tier", "changes": "changes", "share_affected": "reach",
          "cost": "cost", "cost_change": "cost vs now", "avg_discount": "average discount"}


class VariantsPanel:
    """`panel.widget`: a name box and "Save variant", the saved variants with
    "Load" and "Delete", "Compare variants" with its table and chart."""

    def __init__(self, controller: WhatIfController) -> None:
        self.controller = controller
        self.name = w.Text(placeholder="name this tuning", description="Variant", layout=w.Layout(width="300px"))
        self.name.add_class("promolab-variant-name")
        self.replace = w.Checkbox(value=False, description="replace", indent=False, layout=w.Layout(width="90px"))
        self.replace.add_class("promolab-variant-replace")
        self.save = w.Button(description="Save variant", icon="save")
        self.save.add_class("promolab-variant-save")
        self.saved = w.Select(options=[], rows=4, description="Saved", layout=w.Layout(width="560px"))
        self.saved.add_class("promolab-variants")
        self.load = w.Button(description="Load", icon="upload")
        self.load.add_class("promolab-variant-load")
        self.delete = w.Button(description="Delete", icon="trash")
        self.delete.add_class("promolab-variant-delete")
        self.compare = w.Button(description="Compare variants", icon="bar-chart")
        self.compare.add_class("promolab-variant-compare")
        self.message = w.HTML()
        self.message.add_class("promolab-variant-message")
        self.table = w.HTML()
        self.table.add_class("promolab-variant-table")
        self.chart = w.Image(format="png", layout=w.Layout(width=f"{round(FIGSIZE[0] * DPI)}px", max_width="100%"))
        self.chart.add_class("promolab-variant-chart")

        self.save.on_click(self._action(self._save))
        self.load.on_click(self._action(self._load))
        self.delete.on_click(self._action(self._delete))
        self.compare.on_click(self._action(self._compare))
        self.widget = w.VBox([
            w.HTML("<b>Variants</b>"),
            w.HBox([self.name, self.replace, self.save]),
            w.HBox([self.saved, w.VBox([self.load, self.delete])]),
            self.compare, self.message, self.table, self.chart,
        ])
        self.widget.add_class("promolab-variants-panel")
        self._refresh_list()

    # -- buttons -> controller ------------------------------------------------------
    def _action(self, run: Callable[[], str]) -> Callable[[Any], None]:
        """A click handler showing what `run` says, or why the controller refused."""
        def click(_: Any) -> None:
            try:
                text = run()
            except (KeyError, ValueError) as exc:
                text = f"<span style='color: #b00020'>{html.escape(str(exc.args[0] if exc.args else exc))}</span>"
            self.message.value = text
        return click

    def _selected(self) -> tuple[str, str]:
        if self.saved.value is None:
            raise ValueError("select a saved variant first")
        tier_id, name = self.saved.value
        return str(tier_id), str(name)

    def _save(self) -> str:
        variant = self.controller.save_variant(self.name.value, replace=self.replace.value)
        self._refresh_list(select=(variant.tier_id, variant.name))
        self.name.value = ""
        return f"Saved {html.escape(variant.name)} ({html.escape(variant.tier_id)}): {html.escape(variant.changes)}"

    def _load(self) -> str:
        tier_id, name = self._selected()
        self.controller.load_variant((tier_id, name))
        return f"Loaded {html.escape(name)} into the tuner"

    def _delete(self) -> str:
        tier_id, name = self._selected()
        self.controller.delete_variant((tier_id, name))
        self._refresh_list()
        return f"Deleted {html.escape(name)} ({html.escape(tier_id)})"

    def _compare(self) -> str:
        frame = self.controller.compare_variants()
        shown = comparison_display(frame)[list(_SHOWN)].rename(columns=_SHOWN)
        self.table.value = to_html(shown, title=f"Variants over {format_count(self.controller.batch.n_orders)} orders",
                                   highlight=(frame["variant"] != CURRENT).tolist())
        self.chart.value = figure_png(variants_figure(frame))  # both in the frame's currency (its attrs)
        return ""

    def _refresh_list(self, select: tuple[str, str] | None = None) -> None:
        frame = self.controller.variants()
        options = [(f"{v} ({t}): {c}", (str(t), str(v)))
                   for v, t, c in zip(frame["variant"], frame["tier_id"], frame["changes"], strict=True)]
        self.saved.options = options
        values = [value for _, value in options]
        self.saved.value = select if select in values else (values[0] if values else None)
