"""The layers import downward only, and no package has an import cycle.

The contracts live in pyproject.toml (`[tool.importlinter]`) and are checked by
import-linter, a well-kept tool made for this, rather than by a hand-written
import walker. docs/architecture.md explains the layers.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_the_import_contracts_hold() -> None:
    ran = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0, ran.stdout[-6000:] + ran.stderr[-2000:]
    assert re.search(r"Contracts: [1-9]\d* kept, 0 broken", ran.stdout), ran.stdout[-2000:]


def test_every_package_of_src_is_under_a_contract() -> None:
    """A new top-level package or module must be placed in the layers (or in a
    forbidden contract) rather than escape every check."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    named: set[str] = set()
    for contract in config["contracts"]:
        for key in ("layers", "source_modules"):
            for entry in contract.get(key, []):
                named.update(name.strip() for name in entry.split("|"))
    package = ROOT / "src" / "promolab"
    top = {
        f"promolab.{path.stem}"
        for path in package.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and path.stem != "__init__")
    }
    unplaced = top - named - {"promolab.webhooks"}  # a re-export of sim.webhooks.signing for receivers
    assert not unplaced, f"not in any import contract: {sorted(unplaced)}"


def test_every_engine_module_but_its_renderer_is_a_computing_one() -> None:
    """The engine's contract that computing never imports rendering lists the
    computing modules: a new engine module must be placed on one side."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c.get("forbidden_modules") == ["promolab.engine.render"]]
    engine = ROOT / "src" / "promolab" / "engine"
    modules = {
        f"promolab.engine.{path.stem}"
        for path in engine.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists()) or (path.suffix == ".py" and path.stem != "__init__")
    }
    assert set(contract["source_modules"]) == modules - {"promolab.engine.render"}


# -- the shape of the house (docs/architecture.md) -----------------------------------------------
SOURCES = sorted((ROOT / "src" / "promolab").rglob("*.py"))


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_each_endpoint_path_is_written_in_the_catalogue_only() -> None:
    """A path of the interface or the control API is spelled out only in the
    models' endpoint modules (`models/endpoints.py` and the families it
    gathers, each declaring its own paths); everything else reads it from
    there (an error message, the router, the client, the OpenAPI document)."""
    from promolab.models.endpoints import ENDPOINTS

    declaring = {p.relative_to(ROOT).as_posix() for p in SOURCES
                 if p.parent.name == "models" and "Endpoint(" in _source(p)}
    assert "src/promolab/models/endpoints.py" in declaring
    for endpoint in ENDPOINTS:
        holders = {p.relative_to(ROOT).as_posix() for p in SOURCES if endpoint.path in _source(p)}
        if endpoint.path == "/openapi.json":  # our own document, named in prose by several modules
            continue
        assert holders and holders <= declaring, (endpoint.path, sorted(holders - declaring))


def test_no_module_is_longer_than_a_newcomer_reads_at_once() -> None:
    long = {p.relative_to(ROOT).as_posix(): n for p in SOURCES if (n := len(_source(p).splitlines())) > 450}
    assert not long, long


def test_few_type_ignores_and_each_says_why() -> None:
    ignores = [
        (p.relative_to(ROOT).as_posix(), line)
        for p in SOURCES
        for line in _source(p).splitlines()
        if "type: ignore" in line
    ]
    assert len(ignores) <= 5, ignores
    unexplained = [(path, line) for path, line in ignores if not re.search(r"type: ignore\[[\w-]+\]\s+#\s*\S", line)]
    assert not unexplained, unexplained


@pytest.mark.parametrize(
    "vague", ["types", "logic", "units", "wire", "rulebase", "inputs", "validated", "processing", "events", "utils", "helpers", "misc"]
)
def test_no_module_has_a_name_that_says_nothing(vague: str) -> None:
    assert not [p for p in SOURCES if p.stem == vague], vague


# -- no function with more than 8 parameters ----------------------------------------------------
MOST_PARAMETERS = 8

#: Functions still over the limit, each with why; the test fails when one of
#: them is brought under it too (strike it from here) and for any other.
STILL_OVER: dict[str, str] = {}


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> int:
    """Positional-only, positional and keyword-only parameters, as a caller
    fills them: a method's leading `self` / `cls` is not counted, nor are
    `*args` / `**kwargs` (they name no parameter)."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names)


def _functions(tree: ast.AST) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda]]:
    """Every function with its qualified name (`Class.method`, `outer.inner`, `<lambda>`)."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.Lambda):
                found.append((prefix + "<lambda>", child))
                visit(child, prefix)
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _over_the_limit(paths: list[Path], root: Path = ROOT) -> dict[str, int]:
    """`path::qualified name` -> its parameter count, for each function over the limit."""
    over: dict[str, int] = {}
    for path in paths:
        tree = ast.parse(_source(path), filename=str(path))
        for name, node in _functions(tree):
            if (count := parameter_count(node)) > MOST_PARAMETERS:
                over[f"{path.relative_to(root).as_posix()}::{name}"] = count
    return over


def test_no_function_takes_more_than_eight_parameters() -> None:
    """More than eight parameters is a settings, plan or context object
    waiting to be named (docs/architecture.md)."""
    over = _over_the_limit(SOURCES)
    new = {name: n for name, n in over.items() if name not in STILL_OVER}
    assert not new, f"more than {MOST_PARAMETERS} parameters (take a settings or context object): {new}"
    fixed = sorted(set(STILL_OVER) - set(over))
    assert not fixed, f"under the limit now: strike them from STILL_OVER: {fixed}"


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ("def f(a, b, c, d, e, f, g, h): pass", 8),
        ("def f(a, /, b, *, c, d, e, f, g, h, i): pass", 9),  # positional-only and keyword-only count
        ("class C:\n    def m(self, a, b, c, d, e, f, g, h, i): pass", 9),  # self does not
        ("def f(*args, a, b, c, d, e, f, g, h, **kwargs): pass", 8),  # *args / **kwargs do not
        ("g = lambda a, b, c, d, e, f, g, h, i: a", 9),
    ],
)
def test_parameters_are_counted_as_a_caller_fills_them(source: str, count: int) -> None:
    tree = ast.parse(source)
    assert [parameter_count(node) for _, node in _functions(tree)] == [count]


def test_a_function_over_the_limit_is_named(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text(
        "class K:\n    async def run(self, a, b, c, d, e, f, g, h, *, i): pass\n"
        "    def fine(self, a, b, c, d, e, f, g, h): pass\n", encoding="utf-8")
    assert _over_the_limit([module], root=tmp_path) == {"probe.py::K.run": 9}
