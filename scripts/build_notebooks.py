#!/usr/bin/env python
"""Build the analyst notebooks from their sources, executed, outputs included.

Each notebook's cells live in a readable script, `notebooks/sources/NN-name.py`,
in jupytext's percent format (`# %%` starts a code cell, `# %% [markdown]` a
markdown cell whose lines are `# `-prefixed, `# %% tags=["nbval-check-output"]`
a cell whose output nbval compares; the YAML header names the kernel).
jupytext reads it; this script numbers the cells, executes the notebook with
nbclient in `notebooks/` (the directory nbval and JupyterLab run it from), so
the committed outputs are real, and writes `notebooks/NN-name.ipynb`.

    python scripts/build_notebooks.py              # build every notebook
    python scripts/build_notebooks.py 03 06        # build some (by name prefix)
    python scripts/build_notebooks.py --check      # execute every notebook twice in memory and
                                                   # compare both runs with each other and with
                                                   # the committed .ipynb (exit 1 on any diff)

Determinism: cell ids are derived from the notebook name and position, no
execution timings are recorded (what nbclient would add, and the kernel's
version, are stripped by nbstripout, outputs and counts kept), ipywidgets
model ids (random uuids) are renumbered in order of appearance, and the
real-service variables (`PROMOLAB_BASE_URL`, ...) are removed from the
kernel's environment so that 07-real-service records its "skipped" branch.
`--check` applies the regexes of `notebooks/sanitize.cfg` (the ones nbval
uses) before comparing.

Widgets: the outputs of widgets that ended hidden (tqdm's notebook progress
bars, which hide themselves when done) are dropped, as a live session shows
nothing there, and no widget state is saved: without it a static render
(nbconvert, a code host's preview) falls back to an output's static forms
(the what-if dashboard's snapshot) instead of a widget it cannot draw.
"""

from __future__ import annotations

import argparse
import configparser
import copy
import difflib
import hashlib
import os
import re
import sys
from pathlib import Path
from typing import Any

import jupytext
import nbformat
from nbclient import NotebookClient
from nbstripout import strip_output

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = NOTEBOOKS / "sources"
SANITIZE = NOTEBOOKS / "sanitize.cfg"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
#: environment variables that point notebook 07 at a real deployment
REAL_SERVICE_VARS = re.compile(r"^PROMOLAB_")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE_MIME = "application/vnd.jupyter.widget-state+json"
#: what an execution leaves that differs between machines and runs (nbstripout's keys)
STRIPPED_KEYS = ["metadata.language_info.version", "cell.metadata.execution"]


# -- sources -> notebook ------------------------------------------------------------
#: cell metadata a notebook keeps from its source: the tags (nbval reads
#: `nbval-check-output`); jupytext's layout notes (`lines_to_next_cell`) are the script's
CELL_METADATA = ("tags",)


def build_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook of a percent-format source (jupytext), cells numbered from the
    notebook's name (`03-00`, `03-01`, ...), not yet executed."""
    stem = path.stem
    source = jupytext.read(path, fmt="py:percent")
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(source.metadata.get("kernelspec", KERNELSPEC)),
                   "language_info": {"name": "python"}}
    for index, cell in enumerate(source.cells):
        if cell.cell_type not in ("code", "markdown"):
            raise ValueError(f"{path.name}: cell {index} is a {cell.cell_type} cell; sources hold code and markdown")
        metadata = {k: v for k, v in cell.metadata.items() if k in CELL_METADATA}
        make = nbformat.v4.new_markdown_cell if cell.cell_type == "markdown" else nbformat.v4.new_code_cell
        nb.cells.append(make(cell.source, id=f"{stem[:2]}-{index:02d}", metadata=metadata))
    return nb


# -- execution -------------------------------------------------------------------------
def execute(nb: nbformat.NotebookNode, stem: str) -> nbformat.NotebookNode:
    nb = copy.deepcopy(nb)
    saved = {k: os.environ.pop(k) for k in list(os.environ) if REAL_SERVICE_VARS.match(k)}
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    try:
        client = NotebookClient(
            nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}},
            record_timing=False, store_widget_state=True,
        )
        client.execute()
    finally:
        os.environ.update(saved)
    nb = strip_output(nb, keep_output=True, keep_count=True, keep_id=True, extra_keys=STRIPPED_KEYS)
    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = coalesce_streams(cell.outputs)
    return renumber_widgets(drop_widget_state(nb), stem)


def coalesce_streams(outputs: list[Any]) -> list[Any]:
    """Merge consecutive stream outputs of the same name (how the kernel splits a
    stream into messages depends on timing; nbval compares them merged too)."""
    merged: list[Any] = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            previous["text"] = "".join(previous["text"]) + "".join(output["text"])
        else:
            merged.append(output)
    return merged


def _hidden(model_id: str, state: dict[str, Any]) -> bool:
    """Whether a widget ended hidden (its layout's visibility or display)."""
    model = state.get(model_id, {}).get("state", {})
    layout_ref = str(model.get("layout", ""))
    layout = state.get(layout_ref.removeprefix("IPY_MODEL_"), {}).get("state", {})
    return layout.get("visibility") == "hidden" or layout.get("display") == "none"


def drop_widget_state(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop the outputs of widgets that ended hidden and the saved widget state.

    A tqdm notebook bar (`leave=False`, as the sweeps' and replays' bars are)
    hides itself when the work is done: its output would only read "0%" where
    widgets cannot run. Without saved state, nbconvert and JupyterLab (for an
    untrusted notebook) show each widget output's static forms, which is what
    the what-if dashboard's snapshot is for.
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE_MIME, {}).get("state", {})
    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = [
                o for o in cell.outputs
                if not (WIDGET_MIME in o.get("data", {}) and _hidden(o["data"][WIDGET_MIME]["model_id"], state))
            ]
    nb.metadata.pop("widgets", None)
    return nb


def renumber_widgets(nb: nbformat.NotebookNode, stem: str) -> nbformat.NotebookNode:
    """Replace ipywidgets' random model ids by ids derived from the notebook name
    and the order of creation (saved state, if any) or of appearance in outputs."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE_MIME, {}).get("state", {})
    ids = list(state)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_MIME)
            if view and view.get("model_id") not in ids:
                ids.append(view["model_id"])
    if not ids:
        return nb
    mapping = {old: hashlib.md5(f"{stem}:{i}".encode()).hexdigest() for i, old in enumerate(ids)}
    pattern = re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)))
    text = pattern.sub(lambda m: mapping[m.group(0)], nbformat.writes(nb))
    return nbformat.reads(text, as_version=4)


# -- comparison -------------------------------------------------------------------------
def sanitizers() -> list[tuple[re.Pattern[str], str]]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(SANITIZE, encoding="utf-8")
    return [(re.compile(parser[s]["regex"]), parser[s].get("replace", "")) for s in parser.sections()]


def comparable(nb: nbformat.NotebookNode, patterns: list[tuple[re.Pattern[str], str]]) -> list[str]:
    """The notebook as lines of JSON, sanitized like nbval does."""
    text = nbformat.writes(nb)
    for regex, replace in patterns:
        text = regex.sub(replace, text)
    return text.splitlines()


def diff(a: list[str], b: list[str], a_name: str, b_name: str) -> list[str]:
    return list(difflib.unified_diff(a, b, a_name, b_name, n=1, lineterm=""))


# -- main ----------------------------------------------------------------------------------
def selected(prefixes: list[str]) -> list[Path]:
    sources = sorted(SOURCES.glob("[0-9][0-9]-*.py"))
    if prefixes:
        sources = [p for p in sources if any(p.stem.startswith(x) for x in prefixes)]
    if not sources:
        raise SystemExit(f"no notebook sources match {prefixes} in {SOURCES}")
    return sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="notebook name prefixes (default: all)")
    parser.add_argument("--check", action="store_true", help="run twice and diff; write nothing")
    args = parser.parse_args(argv)
    status = 0
    patterns = sanitizers()
    for source in selected(args.names):
        target = NOTEBOOKS / f"{source.stem}.ipynb"
        nb = build_notebook(source)
        if not args.check:
            executed = execute(nb, source.stem)
            nbformat.validate(executed)
            nbformat.write(executed, target)
            outputs = sum(len(c.get("outputs", [])) for c in executed.cells)
            print(f"built {target.relative_to(ROOT)}: {len(executed.cells)} cells, {outputs} outputs")
            continue
        first, second = execute(nb, source.stem), execute(nb, source.stem)
        raw_same = nbformat.writes(first) == nbformat.writes(second)
        one, two = comparable(first, patterns), comparable(second, patterns)
        problems = diff(one, two, "run 1", "run 2")
        committed_note = "no committed notebook"
        if target.exists():
            committed = comparable(nbformat.read(target, as_version=4), patterns)
            against = diff(committed, one, str(target.relative_to(ROOT)), "run 1")
            committed_note = "committed file up to date" if not against else "committed file DIFFERS"
            problems += against
        verdict = "identical" if raw_same else ("identical after sanitize.cfg" if not diff(one, two, "", "") else "DIFFERENT")
        print(f"{source.stem}: run 1 vs run 2 {verdict}; {committed_note}")
        if problems:
            status = 1
            print("\n".join(problems[:80]))
    return status


if __name__ == "__main__":
    sys.exit(main())
