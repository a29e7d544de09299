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
    assert any("NBVAL_CHECK_OUTPUT" in c.source for c in code)


def test_percent_format_parser(tmp_path: Path) -> None:
    source = tmp_path / "99-x.py"
    source.write_text("# header, ignored\n\n# %% [markdown]\n# # Title\n#\n# text\n\n# %%\nx = 1\n\n\n# %%\n# NBVAL_CHECK_OUTPUT\nx\n")
    cells = builder().parse_source(source)
    assert cells == [("markdown", "# Title\n\ntext"), ("code", "x = 1"), ("code", "# NBVAL_CHECK_OUTPUT\nx")]
