"""Where each value of a scenario file is written: its line and column.

A refusal after the text is parsed names a path inside the document
(`campaigns[2].tiers[0].applicable_to.included[1].id`); a user editing the
file also wants the line, as a syntax error already gives it. The parsed
document has no positions (PyYAML's constructed values forget them), so the
text is composed again, into nodes that keep their marks, and only when
there is something to report: a file that loads pays nothing for it.

`SourceDocument` is the parsed document with the text it came from, so that
whoever later refuses it (the loader, after a `read_scenario` made by
another caller) can still find the lines. A document given as a mapping has
no text and its issues no line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from .issues import ScenarioIssue, format_loc

__all__ = ["CheckedDocument", "SourceDocument", "in_file_order", "locate_issues"]

Position = tuple[int, int]


class CheckedDocument(dict[str, Any]):
    """A scenario document `read_scenario` has checked against the parsing
    limits (size, depth, values): loading it does not walk it again (on a
    pulled project of 100,000 codes the walk is seconds)."""


class SourceDocument(CheckedDocument):
    """A parsed scenario document and the text it was parsed from."""

    def __init__(self, document: dict[str, Any], text: str) -> None:
        super().__init__(document)
        self.text = text


def _positions(text: str) -> dict[str, Position]:
    """Every value's path (as `format_loc` writes it) -> (line, column), 1-based.

    A mapping's keys are read as their text (a rule's `"1"` and `1` alike);
    values that come from a merge key (`<<: *base`) have no entry of their
    own, and a lookup falls back to the nearest enclosing value."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:  # JSON that is not YAML (a tab, say): no lines, the paths still say where
        return {}
    found: dict[str, Position] = {}
    stack: list[tuple[Any, tuple[int | str, ...]]] = [(root, ())] if root is not None else []
    while stack:
        node, loc = stack.pop()
        found[format_loc(loc)] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    stack.append((value, (*loc, str(key.value))))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, (*loc, i)) for i, item in enumerate(node.value))
    return found


def _enclosing(path: str) -> str:
    """`a.b[2].c` -> `a.b[2]` -> `a.b` -> `a` -> ``."""
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


def _nearest(path: str, table: dict[str, Any]) -> Any:
    while path and path not in table:
        path = _enclosing(path)
    return table.get(path) if path else None


def locate_issues(document: Any, issues: Sequence[ScenarioIssue]) -> list[ScenarioIssue]:
    """`issues` with the line and column of their path in `document`'s text
    (unchanged when the document has no text or an issue already has a line)."""
    text = getattr(document, "text", None)
    if not isinstance(text, str) or not issues:
        return list(issues)
    positions = _positions(text)
    out = []
    for issue in issues:
        where = _nearest(issue.path, positions)
        if where is None or issue.line is not None:
            out.append(issue)
        else:
            out.append(ScenarioIssue(issue.path, issue.problem, line=where[0], column=where[1]))
    return out


def _preorder(document: Any) -> dict[str, int]:
    """Every path of the parsed document -> its rank in reading order."""
    ranks: dict[str, int] = {}
    stack: list[tuple[Any, tuple[int | str, ...]]] = [(document, ())]
    while stack:
        node, loc = stack.pop()
        ranks[format_loc(loc)] = len(ranks)
        if isinstance(node, dict):
            stack.extend((value, (*loc, str(key))) for key, value in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((item, (*loc, i)) for i, item in reversed(list(enumerate(node))))
    return ranks


def in_file_order(document: Any, issues: Sequence[ScenarioIssue]) -> list[ScenarioIssue]:
    """`issues` in the order a reader meets their places: by line and column
    when they have them, else by the document's own order (a mapping given
    in Python), so that both report one file's mistakes alike; issues at one
    place keep their order."""
    ranks = _preorder(document) if issues else {}

    def key(issue: ScenarioIssue) -> tuple[int, int, int]:
        rank = _nearest(issue.path, ranks)
        return (issue.line or 0, issue.column or 0, rank if rank is not None else -1)

    return sorted(issues, key=key)
