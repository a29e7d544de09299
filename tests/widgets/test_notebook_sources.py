"""The committed notebooks are built from notebooks/sources/ (no kernel needed here).

Catches a notebook edited by hand, or a source edited without rebuilding
(`python scripts/build_notebooks.py`). Whether the OUTPUTS are current is
nbval's job (`make test`) and `build_notebooks.py --check`'s.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from .notebook_support import builder

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
EXPECTED = [
    "01-quickstart", "02-compare-tiers", "03-campaign-cost", "04-replay-events",
    "05-loyalty-rewards", "06-what-if", "07-real-service", "08-shadow-run", "09-stacking-and-qualifications",
    "10-campaign-forecast",
    "11-your-own-project",
    "12-response-and-optimum",
]




def test_every_notebook_has_a_source() -> None:
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == EXPECTED
    assert sorted(p.stem for p in (NOTEBOOKS / "sources").glob("*.py")) == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_committed_cells_are_the_sources(name: str) -> None:
    built = builder().build_notebook(NOTEBOOKS / "sources" / f"{name}.py")
    committed = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nbformat.validate(committed)
    assert [(c.id, c.cell_type, c.source) for c in committed.cells] == [
        (c.id, c.cell_type, c.source) for c in built.cells
    ]
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "built without executing?"
    assert not any(o.get("output_type") == "error" for c in code for o in c.outputs)
    # nbval's markers are cell tags, not comments a reader sees in the code
    assert [c.metadata.get("tags", []) for c in committed.cells] == [c.metadata.get("tags", []) for c in built.cells]
    assert any("nbval-check-output" in c.metadata.get("tags", []) for c in code)
    assert not any("NBVAL_" in c.source for c in committed.cells)


def test_sources_are_read_by_jupytext(tmp_path: Path) -> None:
    source = tmp_path / "99-x.py"
    source.write_text(
        "# ---\n# jupyter:\n#   kernelspec:\n#     display_name: Python 3 (ipykernel)\n#     language: python\n"
        "#     name: python3\n# ---\n\n# %% [markdown]\n# # Title\n#\n# text, \\$10\n\n# %%\nx = 1\n\n\n"
        '# %% tags=["nbval-check-output"]\nx\n'
    )
    nb = builder().build_notebook(source)
    assert [(c.id, c.cell_type, c.source, dict(c.metadata)) for c in nb.cells] == [
        ("99-00", "markdown", "# Title\n\ntext, \\$10", {}),
        ("99-01", "code", "x = 1", {}),  # jupytext's layout notes (two blank lines) are not kept
        ("99-02", "code", "x", {"tags": ["nbval-check-output"]}),
    ]
    assert nb.metadata["kernelspec"]["name"] == "python3" and "jupytext" not in nb.metadata
    nbformat.validate(nb)


def test_a_source_holds_code_and_markdown_only(tmp_path: Path) -> None:
    source = tmp_path / "98-y.py"
    source.write_text("# %% [raw]\n# not a cell of ours\n\n# %%\nx = 1\n")
    with pytest.raises(ValueError, match="98-y.py: cell 0 is a raw cell"):
        builder().build_notebook(source)
