"""The repository stands alone: nothing in it reads, or sends a reader to, a path outside it.

A clone with nothing beside it must install and pass the suite, so:

- no tracked file names the founders' folder beside the repository (``../shared``) or
  the reference documents kept there;
- no relative path climbs above the repository root from where it is written
  (``../`` chains in any text file, ``Path(__file__).parents[k]`` in Python);
- a real ``git clone`` into an empty directory collects the whole suite and passes
  the model and simulator tests (the packages that used to read ``../shared``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Names that only make sense beside the repository, never inside it.
OUTSIDE_NAMES = re.compile(
    r"\.\./shared|shared/reference|shared/design|design\.md"
    r"|service-interface\.md|voucherify-(?:beyond-)?semantics\.md|(?:semantics|design) §"
)
#: A chain of parent steps, counted against the directory depth of the file holding it.
PARENT_STEPS = re.compile(r"(?<![\w.])((?:\.\./)+|(?:\.\.\\)+)")
#: ``Path(__file__).parents[k]`` (or ``.resolve().parents[k]``).
FILE_PARENTS = re.compile(r"__file__\)(?:\.resolve\(\))?\.parents\[(\d+)\]")


def tracked_files() -> list[Path]:
    """Every file git tracks, plus the untracked ones it does not ignore (new work)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def text_of(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def escapes(path: Path) -> list[str]:
    """The places in ``path`` that name or climb to something outside the repository."""
    text = text_of(path)
    if text is None:
        return []
    relative = path.relative_to(ROOT)
    depth = len(relative.parts) - 1  # directories between the root and the file
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{relative}:{number}"
        if OUTSIDE_NAMES.search(line):
            found.append(f"{where}: names a file outside the repository: {line.strip()[:120]}")
        for match in PARENT_STEPS.finditer(line):
            steps = len(match.group(1)) // 3
            if steps > depth:
                found.append(f"{where}: {steps} parent steps from depth {depth}")
        if path.suffix == ".py":
            for match in FILE_PARENTS.finditer(line):
                if int(match.group(1)) > depth:
                    found.append(f"{where}: parents[{match.group(1)}] from depth {depth}")
    return found


def test_no_file_refers_outside_the_repository() -> None:
    this_file = Path(__file__).resolve()
    problems = [
        problem
        for path in tracked_files()
        if path.resolve() != this_file  # the patterns above name what they look for
        for problem in escapes(path)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("relative", "line", "caught"),
    [
        ("README.md", "see ../shared/reference/service-interface.md", True),
        ("docs/x.md", "the rules (design.md §5)", True),
        ("src/promolab/x.py", '"""Signing (semantics §7)."""', True),
        ("docs/x.md", "[up](../README.md)", False),
        ("docs/x.md", "[out](../../elsewhere.md)", True),
        ("tests/models/x.py", "Path(__file__).parents[2] / 'data'", False),
        ("tests/models/x.py", "Path(__file__).parents[3] / 'data'", True),
        ("src/promolab/x.py", "Path(__file__).resolve().parents[3]", True),
        ("notebooks/README.md", "`../.venv/bin/python ../scripts/build.py`", False),
        ("scripts/x.py", "open('../../data.json')", True),
    ],
)
def test_the_check_catches_what_it_should(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: str, line: str, caught: bool
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"first line\n{line}\n", encoding="utf-8")
    assert bool(escapes(path)) is caught


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_clone_with_nothing_beside_it_passes(tmp_path: Path) -> None:
    """Clone HEAD into an empty directory: the tests that read the repository's files
    (the models against the stored examples, the sample data, the scenario files)
    pass there.

    The clone's own ``src`` comes first on the import path, so the package under test
    is the clone's, not this checkout's editable install (checked below). Uncommitted
    changes are not in the clone: in CI, HEAD is exactly what is tested. This is the
    quick check a developer's ``make test`` makes; ``.ci/run`` runs the whole suite in
    such a clone (and in a path with a hyphen and a space).
    """
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "alone" / "repo"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    assert sorted(p.name for p in clone.parent.iterdir()) == ["repo"]
    env = {**os.environ, "PYTHONPATH": str(clone / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    where = subprocess.run(
        [sys.executable, "-c", "import promolab; print(promolab.__file__)"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(clone), where

    def run_pytest(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args]
        return subprocess.run(
            command, cwd=clone, env=env, capture_output=True, text=True, check=False
        )

    ran = run_pytest("-m", "not slow", "tests/models", "tests/test_samples.py",
                     "tests/sim/test_scenario_loading.py", "tests/sim/test_scenario_errors.py")
    assert ran.returncode == 0, ran.stdout[-5000:] + ran.stderr[-3000:]
    assert " passed" in ran.stdout.splitlines()[-1]
