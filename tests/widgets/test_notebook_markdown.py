"""Notebook text reads as written: no currency turned into maths, no money by hand.

JupyterLab, nbconvert, Voila and code hosts render `$...$` in Markdown as
inline maths (MathJax), so "*$10 off orders over $50*" came out as
"10offordersover50" in italics. Currency in Markdown is written `\\$10`; these
tests fail on any Markdown cell, in the sources and in the built notebooks,
holding an unescaped pair of `$` outside code. (A notebook that wants real
maths one day will need an explicit allowance here.)

The code cells must show money through `promolab.display` / `readable`, so
they must not turn cents into dollars by hand (`/ 100`).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from .notebook_support import builder

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
NAMES = sorted(p.stem for p in (NOTEBOOKS / "sources").glob("[0-9][0-9]-*.py"))

_FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_BY_HAND = re.compile(r"/\s*100(\.0*)?\b")




def unescaped_dollars(markdown: str) -> list[str]:
    """The lines holding each `$` that a Markdown renderer may take for a maths
    delimiter: not escaped (`\\$`, an odd number of backslashes before it) and
    not inside code (fenced blocks, `code spans`), which renderers leave alone."""
    text = _FENCE.sub(lambda m: " " * len(m.group(0)), markdown)
    text = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    found = []
    for match in re.finditer(r"\$", text):
        backslashes = len(text[: match.start()]) - len(text[: match.start()].rstrip("\\"))
        if backslashes % 2 == 0:
            line_start = text.rfind("\n", 0, match.start()) + 1
            line_end = text.find("\n", match.start())
            found.append(markdown[line_start: line_end if line_end >= 0 else None])
    return found


def _maths_problem(markdown: str) -> str | None:
    dollars = unescaped_dollars(markdown)
    if len(dollars) < 2:
        return None
    return "unescaped `$` (write `\\$`) on:\n  " + "\n  ".join(dict.fromkeys(dollars))


# -- the checker itself --------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "The welcome offer, *$10 off orders over $50*",
    "caps ($15 a line,\n$30 an order)",
    "$10 off\n\nand later \\\\$5",  # an escaped backslash does not escape the dollar
    "maths: $x^2$",
])
def test_the_check_catches_a_pair_of_dollars(text: str) -> None:
    assert _maths_problem(text) is not None


@pytest.mark.parametrize("text", [
    "The welcome offer, *\\$10 off orders over \\$50*",
    "one amount: $25 gift card",
    "rules `$more_than` and `$more_than_or_equal`",
    "``a `$` in a span`` and ```\n$x$ $y$\n```",
    "```python\nprint('$10', '$20')\n```",
    "no money at all",
])
def test_the_check_lets_escaped_and_code_dollars_be(text: str) -> None:
    assert _maths_problem(text) is None


# -- the notebooks -----------------------------------------------------------------------
def test_every_notebook_is_checked() -> None:
    assert len(NAMES) == 12 and all((NOTEBOOKS / f"{n}.ipynb").exists() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_source_markdown_has_no_currency_maths(name: str) -> None:
    cells = builder().build_notebook(NOTEBOOKS / "sources" / f"{name}.py").cells
    problems = [f"cell {c.id}: {p}" for c in cells
                if c.cell_type == "markdown" and (p := _maths_problem(c.source))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_built_markdown_has_no_currency_maths(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    problems = [f"cell {c.id}: {p}" for c in nb.cells
                if c.cell_type == "markdown" and (p := _maths_problem(c.source))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_code_does_not_turn_cents_into_dollars_by_hand(name: str) -> None:
    cells = builder().build_notebook(NOTEBOOKS / "sources" / f"{name}.py").cells
    by_hand = [line for c in cells if c.cell_type == "code"
               for line in c.source.splitlines() if _BY_HAND.search(line)]
    assert not by_hand, "show money with promolab.display / readable instead:\n" + "\n".join(by_hand)


def test_the_by_hand_pattern() -> None:
    assert _BY_HAND.search('"price": p.price / 100}')
    assert _BY_HAND.search("(matrix[applicable] / 100).round(2)")
    assert not _BY_HAND.search("x = 1000 / 10")
