"""The committed notebooks read well where no kernel runs (nbconvert, a code host).

- The what-if dashboard's cell shows its snapshot (tables and chart) in a
  static HTML render, rather than a blank space where widgets would be.
- Progress bars (tqdm's notebook widget, hidden by itself when the work is
  done) leave no "0%" output behind, and no widget state is saved (with it,
  nbconvert would pick the widget view, which needs a browser and a CDN).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from .notebook_support import builder

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
NAMES = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
STATE_MIME = "application/vnd.jupyter.widget-state+json"




def _model(name: str, state: dict[str, Any]) -> dict[str, Any]:
    return {"model_name": name, "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
            "state": state}


def test_build_drops_hidden_widgets_and_the_widget_state() -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {STATE_MIME: {"version_major": 2, "version_minor": 0, "state": {
        "bar": _model("HBoxModel", {"layout": "IPY_MODEL_bar-layout"}),
        "bar-layout": _model("LayoutModel", {"visibility": "hidden"}),
        "dash": _model("VBoxModel", {"layout": "IPY_MODEL_dash-layout"}),
        "dash-layout": _model("LayoutModel", {"visibility": None}),
    }}}
    bar = nbformat.v4.new_output("display_data", data={
        "text/plain": "sweep (pandas):   0%|          | 0.00/12.0k [00:00<?, ?order/s]",
        WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": "bar"},
    })
    dash = nbformat.v4.new_output("execute_result", execution_count=1, data={
        "text/plain": "What-if dashboard", "text/html": "<div>snapshot</div>",
        WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": "dash"},
    })
    printed = nbformat.v4.new_output("stream", name="stdout", text="done\n")
    nb.cells.append(nbformat.v4.new_code_cell("work()", outputs=[bar, printed]))
    nb.cells.append(nbformat.v4.new_code_cell("dashboard", outputs=[dash]))

    out = builder().drop_widget_state(nb)
    assert [o.get("text") for o in out.cells[0].outputs] == ["done\n"]
    assert out.cells[1].outputs[0]["data"]["text/html"] == "<div>snapshot</div>"
    assert "widgets" not in out.metadata


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebooks_hold_no_widget_state_nor_spent_bars(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert "widgets" not in nb.metadata
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_MIME in data:  # a widget that stayed: it has a static form to show
                assert "text/html" in data, cell.source
            assert "0%|" not in str(data.get("text/plain", "")) + str(output.get("text", ""))


def test_static_html_render_shows_the_dashboard_snapshot() -> None:
    from nbconvert import HTMLExporter

    nb = nbformat.read(NOTEBOOKS / "06-what-if.ipynb", as_version=4)
    dashboard = next(c for c in nb.cells if c.cell_type == "code" and c.source.strip().endswith("dashboard"))
    assert WIDGET_MIME in dashboard.outputs[0]["data"]  # live frontends still get the widgets
    body, _ = HTMLExporter().from_notebook_node(nb)
    assert "promolab-snapshot" in body
    assert body.count('src="data:image/png;base64,') >= 2  # the snapshot's chart and the scripted one
    assert "promo_welcome_10: before vs after" in body and "$104,950.00" in body
    assert f'type="{WIDGET_MIME}"' not in body  # no widget view left for a missing renderer
