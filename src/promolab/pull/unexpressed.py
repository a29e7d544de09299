"""What a pulled project holds that a scenario cannot say, one row each.

A pull never drops a value silently and never fails on one: each value of
the target's objects that the scenario format has no place for becomes an
`Unexpressed` row (which object, its id, the field, why), and the rows go
to the report beside the scenario file (`<stem>.report.csv`). Which fields
a family carries and which the service derives (a customer's `summary`, an
object's `created_at`) is declared by the family's mapping; `leftovers`
reads every other field, the extra ones a target sends included.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = ["REPORT_COLUMNS", "Unexpressed", "leftovers", "spec", "write_report"]


@dataclass(frozen=True, slots=True, order=True)
class Unexpressed:
    """One value of the target the scenario does not hold."""

    object: str
    id: str
    field: str
    why: str


REPORT_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Unexpressed))


def _unset(value: Any) -> bool:
    """A value the scenario format defaults to anyway: nothing to write."""
    return value is None or value == {} or value == []


def _empty(value: Any) -> bool:
    return _unset(value) or value == ""


def spec(values: dict[str, Any]) -> dict[str, Any]:
    """A scenario entry without the values its format defaults anyway."""
    return {key: value for key, value in values.items() if not _unset(value)}


def leftovers(kind: str, obj: BaseModel, kept: Iterable[str], derived: Iterable[str]) -> list[Unexpressed]:
    """A row for each field of `obj` with a value that is neither `kept` by
    the scenario nor `derived` by the service from what is kept."""
    skip = {*kept, *derived, "object"}
    values = obj.model_dump(mode="json", exclude=skip)
    return [Unexpressed(kind, str(getattr(obj, "id", "")), name, f"a scenario's {kind} has no {name}")
            for name, value in values.items() if not _empty(value)]


def write_report(rows: Sequence[Unexpressed], path: Path) -> None:
    """The report as CSV (UTF-8, one header line), rows in a stable order."""
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(REPORT_COLUMNS)
        writer.writerows(astuple(row) for row in sorted(rows))
