"""Reading a scenario is bounded: alias bombs, deep nesting, long integers,
recursive aliases, bad UTF-8 and duplicate keys are refused as `ScenarioError`
naming the place (docs/scenarios.md, *Limits*), never a bare Python error, a
Rust panic or gigabytes of memory.

Every bad file is built here. The cases that would exhaust memory without the
limits (the alias bombs) only run in a child process under an address-space
limit, so that a regression fails the test instead of the machine; so do the
CLI checks (exit status 2, no traceback).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import ScenarioError, Simulator
from promolab.sim.scenario import read_scenario
from promolab.sim.scenario.parsing import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_INT_DIGITS,
    MAX_NODES,
    parse_text,
)

TOO_DEEP = "nested deeper than 100 levels"
TOO_MANY_YAML = "more than 500,000 values, counting each use of an alias as its anchor's whole content"
TOO_MANY_SHARED = "more than 500,000 values, counting a shared list or mapping at each use"
TOO_LONG_INT = "integer longer than 4300 digits"
RECURSIVE = "a node that contains it (a recursive structure)"


def alias_bomb(levels: int = 9, width: int = 10, indent: str = "      ") -> str:
    """`levels` chained anchors, each a list of `width` aliases of the one
    before: `width ** levels` values written in a few hundred bytes."""
    lines = [f"{indent}a: &a [{', '.join(['x'] * width)}]"]
    for level in range(1, levels):
        name, previous = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{indent}{name}: &{name} [{', '.join([f'*{previous}'] * width)}]")
    return "\n".join(lines) + "\n"


#: The shapes of the issue: 9 chained levels of `&a [*a x10]` under
#: customers[0].metadata (~540 bytes), and the same at the top level.
METADATA_BOMB = "customers:\n  - source_id: ann\n    metadata:\n" + alias_bomb()
TOP_LEVEL_BOMB = alias_bomb(indent="")


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


#: name -> (file name, content, `line L, column C` or "", problem).
#: Each is refused by `Simulator.from_scenario` with `<file>: <where>: <problem>`.
FILE_CASES: dict[str, tuple[str, bytes, str, str]] = {
    "alias bomb in customers[0].metadata": (
        "bomb.yaml", METADATA_BOMB.encode(), "line 9, column 26", TOO_MANY_YAML),
    "alias bomb at the top level": (
        "bomb.yaml", TOP_LEVEL_BOMB.encode(), "line 6, column 20", TOO_MANY_YAML),
    "10,000 nested [": (
        "deep.yaml", b"seed: " + b"[" * 10_000 + b"\n", "line 1, column 106", TOO_DEEP),
    "10,000 nested [ in JSON": (
        "deep.json", b'{"seed": ' + b"[" * 10_000, "line 1, column 109", TOO_DEEP),
    "an alias nesting its anchor past the limit": (
        "deep.yaml", f"a: &a {nested(60)}\nb: {'[' * 50}*a{']' * 50}\n".encode(), "line 2, column 54", TOO_DEEP),
    "a 5,000-digit integer": (
        "long.yaml", b"seed: " + b"7" * 5000 + b"\n", "line 1, column 7", TOO_LONG_INT),
    "a 5,000-digit integer in JSON": (
        "long.json", b'{"seed": ' + b"7" * 5000 + b"}", "line 1, column 10", TOO_LONG_INT),
    "a hex integer of more than 4300 decimal digits": (
        "long.yaml", b"seed: 0x" + b"f" * 4000 + b"\n", "line 1, column 7", TOO_LONG_INT),
    "a self-referencing alias": (
        "self.yaml", b"customers:\n  - &c\n    source_id: ann\n    metadata: {self: *c}\n",
        "line 4, column 22", f"alias *c refers to {RECURSIVE}"),
    "a merge key merging its own mapping": (
        "self.yaml", b"a: &a {<<: *a}\n", "line 1, column 12", f"alias *a refers to {RECURSIVE}"),
    "invalid UTF-8": (
        "latin1.yaml", b"description: \xff\xfe bad\n", "line 1, column 14", "not valid UTF-8: byte 0xff"),
    "invalid UTF-8 after valid multi-byte text": (
        "latin1.yaml", "seed: 1\ndescription: café ".encode() + b"\xe9t\xe9\n", "line 2, column 19",
        "not valid UTF-8: byte 0xe9"),
    "a duplicate top-level key": (
        "dup.yaml", b"seed: 1\nseed: 2\n", "line 2, column 1", "duplicate key 'seed' (first on line 1)"),
    "a duplicate nested key": (
        "dup.yaml", b"customers:\n  - source_id: a\n    name: A\n    source_id: b\n", "line 4, column 5",
        "duplicate key 'source_id' (first on line 2)"),
    "a duplicate key in a flow mapping": (
        "dup.yaml", b"clock: {start: 2026-01-01T00:00:00Z, start: 2026-02-01T00:00:00Z}\n", "line 1, column 38",
        "duplicate key 'start' (first on line 1)"),
    "a duplicate key in JSON": (
        "dup.json", b'{"seed": 1,\n "seed": 2}', "line 2, column 2", "duplicate key 'seed' (first on line 1)"),
    "a timestamp with month 13": (
        "clock.yaml", b"clock: {start: 2026-13-45}\n", "line 1, column 16",
        "not a valid timestamp: month must be in 1..12"),
    "a file over 16 MiB": (
        "huge.yaml", b"#" * (MAX_FILE_BYTES + 1), "", "file too large: more than 16,777,216 bytes"),
}

#: Would take gigabytes without the limits: only run in a bounded child process.
EXPLOSIVE = {"alias bomb in customers[0].metadata", "alias bomb at the top level"}


def test_the_limits_are_the_documented_ones() -> None:
    assert (MAX_FILE_BYTES, MAX_NODES, MAX_DEPTH, MAX_INT_DIGITS) == (16 * 1024 * 1024, 500_000, 100, 4300)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "scenarios.md").read_text(encoding="utf-8")
    for line in ("| file size | 16 MiB |", "| values in the document | 500,000 |",
                 "| nesting of mappings and lists | 100 levels |", "| integer length | 4300 digits |"):
        assert line in docs


def test_the_bomb_is_the_shape_of_the_issue() -> None:
    assert 500 <= len(METADATA_BOMB) <= 700
    assert "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]" in METADATA_BOMB


@pytest.mark.parametrize(
    ("name", "content", "where", "problem"),
    [(*case[:2], *case[2:]) for key, case in FILE_CASES.items() if key not in EXPLOSIVE],
    ids=[key for key in FILE_CASES if key not in EXPLOSIVE],
)
def test_a_file_over_the_limits_is_refused_with_its_place(
    tmp_path: Path, name: str, content: bytes, where: str, problem: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(path)
    exc = info.value
    assert (exc.origin, exc.path, exc.problem) == (str(path), where, problem)
    assert str(exc) == f"{path}: {where}: {problem}" if where else f"{path}: {problem}"


# -- mappings given in Python -----------------------------------------------


def self_referencing() -> dict[str, Any]:
    customer: dict[str, Any] = {"source_id": "ann", "metadata": {}}
    customer["metadata"]["self"] = customer
    return {"customers": [customer]}


def shared_lists(levels: int) -> dict[str, Any]:
    """The alias bomb as Python builds it: one list shared ten times per level."""
    value: list[Any] = [0] * 10
    for _ in range(levels):
        value = [value] * 10
    return {"customers": [{"source_id": "ann", "metadata": {"a": value}}]}


def nested_lists(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


#: name -> (document factory, path, problem)
MAPPING_CASES: dict[str, tuple[Callable[[], dict[str, Any]], str, str]] = {
    "a mapping that contains itself": (
        self_referencing, "customers[0].metadata.self", "contains itself (a recursive structure)"),
    "shared lists standing for a million values": (
        lambda: shared_lists(5), "customers[0].metadata.a[4]", TOO_MANY_SHARED),
    "lists nested 200 deep": (
        lambda: {"customers": [{"metadata": {"x": nested_lists(200)}}]},
        "customers[0].metadata.x" + "[0]" * 96, TOO_DEEP),
    "a 5,000-digit integer": (lambda: {"seed": 10**5000}, "seed", TOO_LONG_INT),
}


@pytest.mark.parametrize(("factory", "path", "problem"), MAPPING_CASES.values(), ids=list(MAPPING_CASES))
def test_a_mapping_over_the_limits_is_refused_with_its_path(
    factory: Callable[[], dict[str, Any]], path: str, problem: str
) -> None:
    started = time.perf_counter()
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(factory())
    assert time.perf_counter() - started < 5
    assert (info.value.origin, info.value.path, info.value.problem) == ("<scenario>", path, problem)


# -- the limits are exact and the same for YAML, JSON and mappings ----------


def metadata_lists(depth: int) -> dict[str, Any]:
    """A document whose deepest list is at `depth` (the document is level 1,
    customers 2, the customer 3, its metadata 4)."""
    return {"customers": [{"source_id": "ann", "metadata": {"x": nested_lists(depth - 4)}}]}


def forms(document: dict[str, Any], tmp_path: Path, yaml_text: str | None = None) -> dict[str, Any]:
    """The same document as a YAML file, a JSON file and a mapping."""
    yaml_path, json_path = tmp_path / "doc.yaml", tmp_path / "doc.json"
    yaml_path.write_text(yaml_text if yaml_text is not None else json.dumps(document), encoding="utf-8")
    json_path.write_text(json.dumps(document), encoding="utf-8")
    return {"yaml": yaml_path, "json": json_path, "mapping": document}


@pytest.mark.parametrize("form", ["yaml", "json", "mapping"])
def test_the_depth_limit_is_exact_in_every_form(tmp_path: Path, form: str) -> None:
    at_limit = forms(metadata_lists(MAX_DEPTH), tmp_path)[form]
    assert Simulator.from_scenario(at_limit).state.customers
    over = forms(metadata_lists(MAX_DEPTH + 1), tmp_path)[form]
    with pytest.raises(ScenarioError) as info:
        Simulator.from_scenario(over)
    assert info.value.problem == TOO_DEEP


def counted(total: int) -> tuple[dict[str, Any], str]:
    """A document of exactly `total` values (keys, lists, scalars) made of one
    list of 999 zeros used 499 times, as a mapping (one shared list) and as
    YAML (an anchor and aliases). Padding keys bring it to `total`."""
    shared = [0] * 999
    document: dict[str, Any] = {"b": [shared] * 499}
    rest = total - (3 + 499 * 1000)  # the document, key b, its list, 499 x (list + 999)
    assert rest >= 3
    pads, odd = divmod(rest - 3, 2)
    for i in range(pads):
        document[f"p{i}"] = 0
    document["last"] = [0] * (1 + odd)  # key + list + items: 3 or 4 values
    items = ", ".join(["0"] * 999)
    lines = [f"b: [&a [{items}], " + ", ".join(["*a"] * 498) + "]"]
    lines += [f"p{i}: 0" for i in range(pads)] + [f"last: [{', '.join(['0'] * (1 + odd))}]"]
    return document, "\n".join(lines) + "\n"


@pytest.mark.parametrize("form", ["yaml", "json", "mapping"])
def test_the_value_budget_is_exact_in_every_form(tmp_path: Path, form: str) -> None:
    """500,000 values pass and 500,001 do not, counting aliases (YAML) and
    shared lists (mappings) at each use like the values JSON writes out."""
    document, text = counted(MAX_NODES)
    assert read_scenario(forms(document, tmp_path, text)[form])[0].keys() == document.keys()
    document, text = counted(MAX_NODES + 1)
    with pytest.raises(ScenarioError) as info:
        read_scenario(forms(document, tmp_path, text)[form])
    assert info.value.problem.startswith("more than 500,000 values")


def test_merged_keys_may_be_overridden() -> None:
    """`<<` merges are not duplicates: a key of the mapping itself overrides
    a merged one. `mid`, nested one level down, is built after `last`, whose
    merge flattens it first: its keys are still checked as written."""
    text = "base: &b {xx: 1, yy: 2}\nnest: {mid: &m {<<: *b, xx: 3}}\nlast: {<<: *m, yy: 4}\n"
    document = parse_text(text, "<t>", json_format=False)
    assert document == {"base": {"xx": 1, "yy": 2}, "nest": {"mid": {"xx": 3, "yy": 2}}, "last": {"xx": 3, "yy": 4}}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=st.lists(st.sampled_from(["seed", "description", "a", "b"]), min_size=1, max_size=6))
def test_a_repeated_key_is_refused_naming_both_lines(keys: list[str]) -> None:
    """YAML and JSON alike: a mapping is accepted exactly when its keys are
    distinct; otherwise the first repeat is refused, naming the line of its
    first occurrence."""
    yaml_text = "".join(f"{key}: {i}\n" for i, key in enumerate(keys))
    json_text = "{\n" + ",\n".join(f'"{key}": {i}' for i, key in enumerate(keys)) + "\n}"
    repeat = next((i for i, key in enumerate(keys) if key in keys[:i]), None)
    for text, json_format, first_line in ((yaml_text, False, 1), (json_text, True, 2)):  # the line of keys[0]
        if repeat is None:
            assert parse_text(text, "<t>", json_format=json_format) == {key: i for i, key in enumerate(keys)}
            continue
        with pytest.raises(ScenarioError) as info:
            parse_text(text, "<t>", json_format=json_format)
        first = first_line + keys.index(keys[repeat])
        assert info.value.problem == f"duplicate key {keys[repeat]!r} (first on line {first})"
        assert info.value.path.startswith(f"line {first_line + repeat}, column ")


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="[]{}:,&*!<>- \n\t'\"#ax0123456789.e_", max_size=200))
def test_any_text_gives_a_document_or_a_scenario_error(text: str) -> None:
    for json_format in (False, True):
        try:
            parse_text(text, "<t>", json_format=json_format)
        except ScenarioError:
            pass


# -- in a bounded child process: the Python API and the CLI -------------------

#: Address space of a child: far above what refusing takes (~100 MB), far
#: below what the bombs would take without the limits (> 3 GB).
CHILD_MEMORY = 1536 * 1024 * 1024


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def run_child(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                          preexec_fn=_bounded, env=env, check=False)


API_PROBE = """
import json, sys, time
from promolab import Simulator
started = time.perf_counter()
try:
    Simulator.from_scenario(sys.argv[1])
    outcome = {"type": None}
except Exception as exc:
    outcome = {"type": type(exc).__name__, "message": str(exc)}
outcome["seconds"] = time.perf_counter() - started
print(json.dumps(outcome))
"""


@pytest.mark.parametrize("case", sorted(EXPLOSIVE))
def test_an_alias_bomb_is_refused_by_the_python_api_in_well_under_a_second(tmp_path: Path, case: str) -> None:
    name, content, where, problem = FILE_CASES[case]
    path = tmp_path / name
    path.write_bytes(content)
    child = run_child(["-c", API_PROBE, str(path)])
    assert child.returncode == 0, child.stderr[-2000:]
    outcome = json.loads(child.stdout)
    assert (outcome["type"], outcome["message"]) == ("ScenarioError", f"{path}: {where}: {problem}")
    assert outcome["seconds"] < 1.0


#: The issue's cases on the command line, plus a file with several errors.
CLI_CASES = [
    "alias bomb in customers[0].metadata", "alias bomb at the top level", "10,000 nested [",
    "a 5,000-digit integer", "a self-referencing alias", "invalid UTF-8", "a duplicate top-level key",
]
SEVERAL = ("several.yaml", b"catalog: {}\nseed: seven\ncustomers: [{source_id: a, emial: a@example.com}]\n")


@pytest.mark.parametrize("case", [*CLI_CASES, "several errors"])
def test_cli_validate_exits_2_with_the_message_and_no_traceback(tmp_path: Path, case: str) -> None:
    if case == "several errors":
        name, content = SEVERAL
        path = tmp_path / name
        expected = (f"promolab: scenario refused: {path}: 3 errors\n"  # in the file's order, each with its line
                    "  catalog (line 1, column 10): unknown key; did you mean 'catalogue'?\n"
                    "  seed (line 2, column 7): Input should be a valid integer, unable to parse string as an integer"
                    " (got 'seven')\n"
                    "  customers[0].emial (line 3, column 35): unknown key; did you mean 'email'?\n")
    else:
        name, content, where, problem = FILE_CASES[case]
        path = tmp_path / name
        expected = f"promolab: scenario refused: {path}: {where}: {problem}\n"
    path.write_bytes(content)
    child = run_child(["-m", "promolab.cli", "validate", "--scenario", str(path)])
    assert "Traceback" not in child.stderr
    assert (child.returncode, child.stderr, child.stdout) == (2, expected, "")
