"""Run the ```python blocks of README.md and docs/*.md as tests (Sybil).

Each Markdown file is one namespace: its blocks run top to bottom, and a block
may use what an earlier block of the same file defined, exactly as a reader
pasting them into one Python session would. A block holding ``>>>`` prompts is
checked as a doctest (its printed output must match); any other block is run
as a script and proves its point with ``assert``.

The only setup is the working directory: the repository root, because the
examples name files the way the README's reader runs them, from the checkout
(``data/scenarios/demo.yaml``). Everything else an example needs, a served
simulator included, is in the example itself.

Sybil (not a hand-written extractor) because it parses fenced blocks, keeps a
namespace per document, runs doctest output checks, and reports failures at
the Markdown line, through pytest's own collection.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser

ROOT = Path(__file__).resolve().parent


@pytest.fixture
def _repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run each example from the repository root, whatever pytest's own directory."""
    monkeypatch.chdir(ROOT)


pytest_collect_file = Sybil(
    parsers=[
        PythonCodeBlockParser(
            doctest_optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        )
    ],
    # The README at the root and the documentation; not notebooks/README.md,
    # tests/data/README.md or benchmarks/README.md (no runnable examples there).
    patterns=["README.md", "docs/*.md"],
    excludes=["*/README.md"],
    fixtures=["_repository_root"],
).pytest()
