"""The types the redesign promises, checked by mypy itself: a client method
returns its model (an awaitable of it on `AsyncClient`), and
`Simulator.apply` is typed by the operation it is given."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

#: Slow (runs mypy over the typing fixtures; mypy checks for 3.11 whatever runs it): run once, on the newest Python (`make test-compat` leaves it out).
pytestmark = pytest.mark.slow

HERE = Path(__file__).parent

pytest.importorskip("mypy")


def _mypy(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--strict", "--hide-error-context",
         "--no-error-summary", "--show-error-codes", str(path)],
        capture_output=True, text=True, check=False, cwd=HERE.parents[1],
    )


def test_inferred_types_are_the_models() -> None:
    result = _mypy(HERE / "typed_calls.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_wrong_calls_are_refused_where_marked() -> None:
    source = HERE / "bad_calls.py"
    expected = {
        (number, match.group(1))
        for number, text in enumerate(source.read_text().splitlines(), 1)
        if (match := re.search(r"# E: ([\w-]+)", text))
    }
    result = _mypy(source)
    found = {
        (int(m.group(1)), m.group(2))
        for m in re.finditer(r"bad_calls\.py:(\d+): error: .*\[([\w-]+)\]", result.stdout)
    }
    assert expected, "the file marks the errors it expects"
    assert found == expected, result.stdout
