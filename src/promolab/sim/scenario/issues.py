"""The one error a scenario can raise: where (file, path) and what, every problem at once.

A user fixing a scenario should see all its mistakes in one run, not one per
run: `ScenarioError` carries every problem found by the stage that refused the
file (see docs/scenarios.md, *Errors*), and an unknown key comes with the
nearest allowed one, because most unknown keys are typos.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = [
    "MAX_SHOWN",
    "SHOWN_VALUE_CHARS",
    "ScenarioError",
    "ScenarioIssue",
    "format_loc",
    "join_path",
    "shown_value",
    "validation_issues",
]

#: The message lists at most this many problems (`.issues` keeps them all):
#: a file with thousands of mistakes should not print thousands of lines.
MAX_SHOWN = 50


@dataclass(frozen=True, slots=True)
class ScenarioIssue:
    """One problem: `path` inside the document (dotted, or `line L, column C`
    in the text, or "" when the whole document is at fault) and what is wrong;
    `line` and `column` (1-based) where the path's value is written in the
    file, when the document was read from one (`positions.locate_issues`)."""

    path: str
    problem: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where = f"{where} (line {self.line}, column {self.column})"
        return f"{where}: {self.problem}" if where else self.problem


class ScenarioError(ValueError):
    """A scenario was refused. Nothing of it was loaded.

    With one problem the message reads `<file>: <path>: <problem>` so that a
    user can jump to the place; with several, `<file>: N errors` and then one
    indented `<path>: <problem>` line each. `.issues` holds every problem;
    `.path` and `.problem` are the first one's (`.path` is the dotted path
    inside the document, `campaigns[0].tiers[1].discount.amount_off`); each
    issue has the `line` and `column` of its path when the document was read
    from a file.
    """

    def __init__(
        self, origin: str, path: str, problem: str, *, more: Sequence[ScenarioIssue] = (), line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.origin = origin
        self.path = path
        self.problem = problem
        self.issues: tuple[ScenarioIssue, ...] = (ScenarioIssue(path, problem, line, column), *more)
        super().__init__(_message(origin, self.issues))

    @classmethod
    def of(cls, origin: str, issues: Sequence[ScenarioIssue]) -> ScenarioError:
        """The error of several problems (at least one), in the order given."""
        first, *rest = issues
        return cls(origin, first.path, first.problem, more=rest, line=first.line, column=first.column)

    def __reduce__(self) -> tuple[Any, ...]:
        # The default rebuilds from `args` (the message alone), which does not
        # fit __init__: keep the error picklable (process pools, dask workers).
        return (ScenarioError.of, (self.origin, self.issues))


def _message(origin: str, issues: Sequence[ScenarioIssue]) -> str:
    if len(issues) == 1:
        return f"{origin}: {issues[0]}"
    lines = [f"{origin}: {len(issues)} errors"]
    lines += [f"  {issue}" for issue in issues[:MAX_SHOWN]]
    if len(issues) > MAX_SHOWN:
        lines.append(f"  ... and {len(issues) - MAX_SHOWN} more")
    return "\n".join(lines)


def format_loc(loc: tuple[int | str, ...]) -> str:
    """`("campaigns", 0, "tiers", 1, "name")` -> `campaigns[0].tiers[1].name`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def join_path(prefix: str, sub: str) -> str:
    """`campaigns[0].tiers[1]` + `discount.amount_off`; either may be empty."""
    if not prefix or not sub:
        return prefix or sub
    return f"{prefix}{sub}" if sub.startswith("[") else f"{prefix}.{sub}"


def validation_issues(exc: ValidationError, prefix: str = "", model: type[BaseModel] | None = None) -> list[ScenarioIssue]:
    """Every error of a pydantic validation, each at its path under `prefix`.

    An unknown key (pydantic's `Extra inputs are not permitted`) reads
    `unknown key; did you mean 'x'?` with the nearest key `model` allows at
    that place, or the list of allowed keys when none is near.
    """
    issues: dict[ScenarioIssue, None] = {}  # ordered; a union may report a problem per member
    for error in exc.errors(include_url=False, include_context=False):
        loc = tuple(error["loc"])
        if error["type"] == "extra_forbidden":
            problem = _unknown_key(model, loc)
        elif error["type"] == "missing" or error.get("input") is None or any(part in _SECRET_KEYS for part in loc):
            problem = error["msg"]
        else:
            shown = shown_value(error["input"])
            problem = error["msg"] if shown in error["msg"] else f"{error['msg']} (got {shown})"
        issues[ScenarioIssue(join_path(prefix, format_loc(loc)), problem)] = None
    return list(issues)


#: Keys under which a refused value is not repeated in the message: the
#: message is printed and logged, a secret is not.
_SECRET_KEYS = frozenset({"credentials", "secret", "secret_key", "token", "management_token"})

#: A value shown in a message is cut to this many characters.
SHOWN_VALUE_CHARS = 60


def shown_value(value: Any) -> str:
    """`value` as a message shows it: its repr, at most SHOWN_VALUE_CHARS
    characters (a whole mapping pasted at the wrong place would fill the
    screen)."""
    text = repr(value)
    if len(text) <= SHOWN_VALUE_CHARS:
        return text
    return text[: SHOWN_VALUE_CHARS - 1] + "…"


def _unknown_key(model: type[BaseModel] | None, loc: tuple[int | str, ...]) -> str:
    allowed = _allowed_keys(model, loc[:-1]) if model is not None and loc else None
    if not allowed:
        return "unknown key"
    near = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
    if near:
        return f"unknown key; did you mean {near[0]!r}?"
    return f"unknown key; expected one of: {', '.join(allowed)}"


def _allowed_keys(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str] | None:
    """The field names of the model found by following `loc` from `model`
    through fields, list items and dict values; None where it leads elsewhere."""
    current: Any = model
    for part in loc:
        current = _step(current, part)
        if current is None:
            return None
    for candidate in _alternatives(current):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return list(candidate.model_fields)
    return None


def _alternatives(annotation: Any) -> list[Any]:
    """`X | None`, `Annotated[X, ...]` -> the concrete types it may hold."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _alternatives(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [t for arg in typing.get_args(annotation) if arg is not type(None) for t in _alternatives(arg)]
    return [annotation]


def _step(annotation: Any, part: int | str) -> Any:
    for candidate in _alternatives(annotation):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            if isinstance(part, str) and part in candidate.model_fields:
                return candidate.model_fields[part].annotation
            continue
        origin = typing.get_origin(candidate)
        args = typing.get_args(candidate)
        if origin in (list, tuple) and isinstance(part, int) and args:
            return args[0]
        if origin is dict and len(args) == 2:
            return args[1]
    return None
