"""Bounded parsing: scenario text (YAML or JSON) or a mapping into a plain document.

A scenario is untrusted input, and the parsers alone do not bound the work it
can cause: a YAML alias bomb of a few hundred bytes stands for billions of
values (whatever walks the document then runs out of memory), a
self-referencing alias makes a cyclic document, ten thousand `[` overflow
the recursion of the parsers, a 5,000-digit integer or a timestamp like
`2026-13-45` raises a bare ValueError from inside PyYAML, and PyYAML keeps
the last of two equal keys without a word. So every source is checked against
the limits below *before* anything is built from it, and each refusal is a
`ScenarioError` naming the place:

- YAML is first read as an event stream (`_scan_yaml`: libyaml's parser, no
  document built), counting every value with each use of an alias counting
  its anchor's whole content, measuring the nesting depth the same way, and
  refusing an alias to a node that is still open (a cycle). Only a stream
  within the limits is then composed and constructed, by a constructor that
  refuses duplicate keys, over-long integers and unreadable values with
  their line.
- JSON has no aliases; one pass over its tokens (`_scan_json`) checks depth,
  size, integer length and duplicate keys before `json.loads` (whose own
  failures there would be a RecursionError or a ValueError without a place).
- A mapping given in Python is walked (`check_document`): shared containers
  count at each use, a container inside itself is refused with its path.

The limits are documented in docs/scenarios.md (*Limits*).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import yaml

from .issues import ScenarioError, format_loc

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_INT_DIGITS",
    "MAX_NODES",
    "check_document",
    "parse_text",
    "read_text",
]

#: Largest scenario file read (bytes). The demo is 18 KB; a file mirroring a
#: project with tens of thousands of customers is a few MB.
MAX_FILE_BYTES = 16 * 1024 * 1024
#: Most values (mappings, lists, keys, scalars) a document may stand for, an
#: alias counting its anchor's whole content at each use. The demo has 1,783;
#: loading 500,000 takes a few seconds and a few hundred MB.
MAX_NODES = 500_000
#: Deepest nesting of mappings and lists, the document being level 1 (the demo's is 11).
MAX_DEPTH = 100
#: Longest integer, in digits: Python's own default limit for converting
#: text to int, so every accepted integer can be printed again.
MAX_INT_DIGITS = 4300
_INT_LIMIT = 10**MAX_INT_DIGITS

_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"
_TOO_MANY = f"more than {MAX_NODES:,} values"
_TOO_MANY_YAML = f"{_TOO_MANY}, counting each use of an alias as its anchor's whole content"
_TOO_MANY_SHARED = f"{_TOO_MANY}, counting a shared list or mapping at each use"
_TOO_LONG_INT = f"integer longer than {MAX_INT_DIGITS} digits"
_MERGE_TAG = "tag:yaml.org,2002:merge"

#: libyaml's parser when available: the same events, several times faster.
#: PyYAML built without libyaml has no CSafeLoader: the pure-Python loader
#: stands in (`_load_yaml` then has no second parser to ask).
if TYPE_CHECKING:
    _CLoaderBase = yaml.CSafeLoader
else:
    _CLoaderBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Refused(Exception):
    """A limit or a value refused while reading the text, at a position."""

    def __init__(self, line: int, column: int, problem: str) -> None:
        super().__init__(problem)
        self.where = f"line {line}, column {column}"
        self.problem = problem

    @classmethod
    def at_mark(cls, mark: Any, problem: str) -> _Refused:
        return cls(mark.line + 1, mark.column + 1, problem)

    @classmethod
    def at_offset(cls, text: str, offset: int, problem: str) -> _Refused:
        line_start = text.rfind("\n", 0, offset) + 1
        return cls(text.count("\n", 0, offset) + 1, offset - line_start + 1, problem)


# -- files ------------------------------------------------------------------


def read_text(path: Path, origin: str) -> str:
    """The file's text: at most MAX_FILE_BYTES, UTF-8 (refusals name the place)."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioError(origin, "", f"cannot read file ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError(origin, "", f"file too large: more than {MAX_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8", "replace")) + 1
        where = f"line {line}, column {column}"
        raise ScenarioError(origin, where, f"not valid UTF-8: byte 0x{data[exc.start]:02x}") from None


def parse_text(text: str, origin: str, *, json_format: bool) -> Any:
    """Parse scenario text within the limits; syntax errors and refusals are
    `ScenarioError`s naming the line and column."""
    try:
        if json_format:
            _scan_json(text)
            try:
                return json.loads(text)
            except json.JSONDecodeError as exc:
                raise ScenarioError(origin, f"line {exc.lineno}, column {exc.colno}", f"not valid JSON: {exc.msg}") from None
        return _load_yaml(text)
    except _Refused as exc:
        raise ScenarioError(origin, exc.where, exc.problem) from None
    except yaml.YAMLError as exc:
        # The mark is where the parser gave up; without one, fall back to the text.
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) if mark is not None else None
        raise ScenarioError(origin, where, f"not valid YAML: {problem or exc}") from None


# -- YAML -------------------------------------------------------------------


class _StrictConstructor(yaml.constructor.SafeConstructor):
    """PyYAML's safe constructor, refusing what it would accept silently or
    fail on with a bare Python error: two equal keys in a mapping (PyYAML
    keeps the last), integers longer than MAX_INT_DIGITS, and values its
    constructors cannot read (`2026-13-45`, `!!int abc`). A mixin, first
    among the bases of a loader (`_CLoader`, `_PyLoader`)."""

    #: Mappings whose keys were checked: a merge (`<<: *a`) flattens its
    #: source in place, so each mapping is checked once, before that. Made on
    #: first use, not in an `__init__`: the mixin's `super().__init__(stream)`
    #: would reach the loader's only through a concrete loader's MRO, which
    #: the type checker does not follow.
    _keys_checked: set[int] | None = None

    def flatten_mapping(self, node: Any) -> None:
        checked = self._keys_checked
        if checked is None:
            checked = self._keys_checked = set()
        if id(node) not in checked:
            checked.add(id(node))
            first_line: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:  # `<<` may be overridden by later keys
                    continue
                key = self.construct_object(key_node)
                try:
                    line = first_line.get(key)
                except TypeError:  # unhashable: construct_mapping reports it
                    continue
                if line is not None:
                    raise _Refused.at_mark(key_node.start_mark, f"duplicate key {key!r} (first on line {line})")
                first_line[key] = key_node.start_mark.line + 1
        super().flatten_mapping(node)

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, AttributeError, LookupError, OverflowError) as exc:
            kind = str(node.tag).rsplit(":", 1)[-1]
            raise _Refused.at_mark(node.start_mark, f"not a valid {kind}: {exc}") from None

    # `self: Self`, not the class: PyYAML's stubs type a constructor's first
    # argument as the loader it runs in (registered below).
    def construct_yaml_int(self: Self, node: Any) -> int:
        # The written digits bound the conversion's cost; the value bounds
        # what is built (hex and base 60 write big numbers in few digits).
        if len(str(node.value).replace("_", "").lstrip("+-")) > MAX_INT_DIGITS:
            raise _Refused.at_mark(node.start_mark, _TOO_LONG_INT)
        value: int = super().construct_yaml_int(node)
        if abs(value) >= _INT_LIMIT:
            raise _Refused.at_mark(node.start_mark, _TOO_LONG_INT)
        return value


_StrictConstructor.add_constructor("tag:yaml.org,2002:int", _StrictConstructor.construct_yaml_int)


class _CLoader(_StrictConstructor, _CLoaderBase):
    """libyaml's parser with the strict constructor."""


class _PyLoader(_StrictConstructor, yaml.SafeLoader):
    """The pure-Python parser with the strict constructor: its syntax error
    messages (and marks) are the ones documented and tested."""


def _load_yaml(text: str) -> Any:
    """Check, then load, with libyaml; on a syntax error do both again with the
    pure-Python parser, whose message is reported (or libyaml's, should the
    pure-Python parser accept the text)."""
    try:
        return _load_yaml_with(text, _CLoader)
    except yaml.YAMLError:
        if not yaml.__with_libyaml__:  # `_CLoader` was the pure-Python parser
            raise
        _load_yaml_with(text, _PyLoader)  # raises its own error, the documented one
        raise


def _load_yaml_with(text: str, loader_class: Any) -> Any:
    _scan_yaml(text, loader_class)
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _scan_yaml(text: str, loader_class: Any) -> None:
    """Refuse a stream over the limits, reading only its events.

    Counts every value, an alias counting its anchor's whole content (so the
    count is what the document stands for, not what it is written with); the
    depth at an alias is where it stands plus its anchor's own depth. An
    alias to an anchor whose node is still open would make the document
    contain itself: refused. Memory is the stack of open collections and
    one (size, height) per anchor.
    """
    loader = loader_class(text)
    try:
        #: Open collections: [count when it opened, height of its children, anchor].
        stack: list[list[Any]] = []
        #: anchor -> (values, nesting height) of its node; None while open.
        anchors: dict[str, tuple[int, int] | None] = {}
        count = 0
        while loader.check_event():
            event = loader.get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                count += 1
                if event.anchor is not None:
                    anchors[event.anchor] = (1, 0)
            elif kind is yaml.SequenceStartEvent or kind is yaml.MappingStartEvent:
                if len(stack) >= MAX_DEPTH:
                    raise _Refused.at_mark(event.start_mark, _TOO_DEEP)
                count += 1
                stack.append([count - 1, 0, event.anchor])
                if event.anchor is not None:
                    anchors[event.anchor] = None
            elif kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
                started, children, anchor = stack.pop()
                height = children + 1
                if anchor is not None:
                    anchors[anchor] = (count - started, height)
                if stack:
                    stack[-1][1] = max(stack[-1][1], height)
            elif kind is yaml.AliasEvent:
                if event.anchor not in anchors:
                    count += 1  # undefined: the composer reports it with its place
                    continue
                target = anchors[event.anchor]
                if target is None:
                    raise _Refused.at_mark(
                        event.start_mark,
                        f"alias *{event.anchor} refers to a node that contains it (a recursive structure)")
                size, height = target
                if len(stack) + height > MAX_DEPTH:
                    raise _Refused.at_mark(event.start_mark, _TOO_DEEP)
                count += size
                if stack:
                    stack[-1][1] = max(stack[-1][1], height)
            elif kind is yaml.DocumentStartEvent:
                anchors.clear()  # anchors are per document
                continue
            else:
                continue
            if count > MAX_NODES:
                raise _Refused.at_mark(event.start_mark, _TOO_MANY_YAML)
    finally:
        loader.dispose()


# -- JSON -------------------------------------------------------------------

#: The tokens that matter to the limits: strings (a key when a colon
#: follows), brackets, numbers (`frac` when not an integer) and literals.
#: Whitespace, commas and colons between them are skipped by `finditer`.
_JSON_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"(?P<colon>\s*:)?'
    r"|[\[{]|[\]}]"
    r"|-?\d+(?P<frac>[.eE][-+.\deE]*)?"
    r"|true|false|null|NaN|-?Infinity"
)


def _scan_json(text: str) -> None:
    """Refuse JSON over the limits or with a duplicate key, naming the line;
    one pass over the tokens, memory the stack of open containers."""
    #: Per open container: the keys seen so far with their offsets (an
    #: object) or None (an array).
    stack: list[dict[str, int] | None] = []
    count = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in "[{":
            if len(stack) >= MAX_DEPTH:
                raise _Refused.at_offset(text, match.start(), _TOO_DEEP)
            stack.append({} if first == "{" else None)
        elif first in "]}":
            if stack:
                stack.pop()
            continue
        elif match.group("colon") is not None and stack and stack[-1] is not None:
            end = token.rindex('"') + 1
            key = json.loads(token[:end]) if "\\" in token else token[1 : end - 1]
            seen = stack[-1]
            if key in seen:
                first_line = text.count("\n", 0, seen[key]) + 1
                raise _Refused.at_offset(text, match.start(), f"duplicate key {key!r} (first on line {first_line})")
            seen[key] = match.start()
        elif first in "-0123456789" and match.group("frac") is None and len(token.lstrip("-")) > MAX_INT_DIGITS:
            raise _Refused.at_offset(text, match.start(), _TOO_LONG_INT)
        count += 1
        if count > MAX_NODES:
            raise _Refused.at_offset(text, match.start(), _TOO_MANY)


# -- documents given in Python ----------------------------------------------


def check_document(document: Mapping[str, Any], origin: str) -> None:
    """Refuse a mapping over the limits, or containing itself, naming the path.

    Shared containers (the same list under two keys) count at each use, as
    YAML aliases do; each is walked once (its size and height are kept).
    """
    _Walk(origin).visit(document, 0)


class _Walk:
    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.count = 0
        #: id -> (values, height) of containers already walked.
        self.done: dict[int, tuple[int, int]] = {}
        #: ids of the containers being walked (a cycle comes back to one).
        self.open: set[int] = set()
        #: The path to the current value, formatted only for an error.
        self.loc: list[int | str] = []

    def refuse(self, problem: str) -> ScenarioError:
        return ScenarioError(self.origin, format_loc(tuple(self.loc)), problem)

    def visit(self, value: Any, depth: int) -> int:
        """Count `value` (at `depth` enclosing containers); return its height."""
        if isinstance(value, Mapping):
            items: Any = value.items()
        elif isinstance(value, list | tuple):
            items = enumerate(value)
        else:
            self.add(1)
            if type(value) is int and value.bit_length() > 14_000 and abs(value) >= _INT_LIMIT:
                raise self.refuse(_TOO_LONG_INT)
            return 0
        key = id(value)
        if key in self.open:
            raise self.refuse("contains itself (a recursive structure)")
        known = self.done.get(key)
        if known is not None:
            size, height = known
            if depth + height > MAX_DEPTH:
                raise self.refuse(_TOO_DEEP)
            self.add(size)
            return height
        if depth >= MAX_DEPTH:
            raise self.refuse(_TOO_DEEP)
        started = self.count
        self.add(1)
        self.open.add(key)
        children = 0
        keyed = isinstance(value, Mapping)
        for part, item in items:
            if keyed:
                self.add(1)
            self.loc.append(part if isinstance(part, int) and not keyed else str(part))
            children = max(children, self.visit(item, depth + 1))
            self.loc.pop()
        self.open.discard(key)
        self.done[key] = (self.count - started, children + 1)
        return children + 1

    def add(self, values: int) -> None:
        self.count += values
        if self.count > MAX_NODES:
            raise self.refuse(_TOO_MANY_SHARED)
