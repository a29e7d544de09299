"""The report of a shadow run: a tidy frame of differences, a summary, HTML.

`ShadowReport.differences` has one row per (line, operation, field path)
where the simulator differs from the real service:

| column | holds |
|---|---|
| `line`, `op` | the script line and its operation |
| `path` | the field (`field_paths`); empty for a `status` row |
| `kind` | `status`, `missing`, `extra`, `type` or `value` (`diff`) |
| `expected`, `got` | the real and the simulator's value, as compact JSON text (NA where absent) |
| `difference` | for two integers: got - expected (cents for money, else the number's own unit) |
| `money` | the field is an amount of money |
| `shown` | the difference for a person: `$11.30 -> $13.56 (+$2.26)`, money with its currency |

`lines` has one row per script line (both statuses, how many differences),
`summary()` the counts by operation, field path (list positions read as
`[*]`) and kind. Money stays integer minor units in the data; `display` is
what writes it for people.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..display import DEFAULT_CURRENCY, format_money
from .diff import KINDS, Difference
from .field_paths import general

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd

    from .cassette import Exchange

__all__ = ["DIFFERENCE_COLUMNS", "ShadowReport"]

DIFFERENCE_COLUMNS = ("line", "op", "path", "kind", "expected", "got", "difference", "money", "shown")
_ABSENT_TEXT = "(absent)"
_SHOWN_WIDTH = 120
_STYLE = ("<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}"
          "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;font-size:13px}"
          "th{background:#f3f3f3}</style>")
_LEGEND = "Expected: the real service; got: the simulator."


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(d: Difference, currency: str) -> str:
    if d.kind == "status":
        return f"{d.expected} -> {d.got}"
    if d.kind == "value" and _is_int(d.expected) and _is_int(d.got):
        change = d.got - d.expected
        if d.money:
            return (f"{format_money(d.expected, currency)} -> {format_money(d.got, currency)} "
                    f"({format_money(change, currency, signed=True)})")
        return f"{d.expected} -> {d.got} ({change:+d})"
    expected = _ABSENT_TEXT if d.kind == "extra" else _json(d.expected)
    got = _ABSENT_TEXT if d.kind == "missing" else _json(d.got)
    text = f"{expected} -> {got}"
    return text if len(text) <= _SHOWN_WIDTH else text[: _SHOWN_WIDTH - 3] + "..."


@dataclass
class ShadowReport:
    """Where the simulator drifts from the real service, line by line."""

    differences: pd.DataFrame
    lines: pd.DataFrame
    currency: str = DEFAULT_CURRENCY

    @classmethod
    def build(cls, compared: list[tuple[Exchange, list[Difference]]], currency: str = DEFAULT_CURRENCY) -> ShadowReport:
        import pandas as pd  # here: `promolab shadow --help` (every command's parser) stays light

        rows = []
        line_rows = []
        for exchange, found in compared:
            for d in found:
                rows.append((exchange.line, exchange.op, d.path, d.kind,
                             None if d.kind == "extra" else _json(d.expected),
                             None if d.kind == "missing" else _json(d.got),
                             d.got - d.expected if d.kind == "value" and _is_int(d.expected) and _is_int(d.got)
                             else None,
                             d.money, _shown(d, currency)))
            line_rows.append((exchange.line, exchange.op, exchange.clock, exchange.real.status,
                              exchange.sim.status, len(found)))
        differences = pd.DataFrame(rows, columns=list(DIFFERENCE_COLUMNS))
        differences = differences.astype({"line": "int64", "op": "string", "path": "string", "expected": "string",
                                          "got": "string", "difference": "Int64", "money": "bool",
                                          "shown": "string"})
        differences["kind"] = pd.Categorical(differences["kind"], categories=list(KINDS))
        lines = pd.DataFrame(line_rows, columns=["line", "op", "clock", "real_status", "sim_status", "differences"])
        lines = lines.astype({"line": "int64", "op": "string", "clock": "string", "real_status": "Int64",
                              "sim_status": "Int64", "differences": "int64"})
        return cls(differences, lines, currency)

    def __len__(self) -> int:
        return len(self.differences)

    def summary(self) -> pd.DataFrame:
        """Counts by operation, field path (positions as `[*]`) and kind, with the lines."""
        frame = self.differences.assign(path=self.differences["path"].map(general, na_action="ignore"))
        grouped = frame.groupby(["op", "path", "kind"], observed=True, sort=True)["line"]
        summary = grouped.agg(count="size", lines=lambda s: ", ".join(str(n) for n in sorted(set(s))))
        return summary.reset_index().astype({"op": "string", "path": "string", "count": "int64", "lines": "string"})

    def text(self) -> str:
        """A few lines for a terminal."""
        n_lines = len(self.lines)
        drifting = int((self.lines["differences"] > 0).sum())
        head = f"{n_lines} lines compared: {drifting} differ, {len(self)} difference(s)"
        if not len(self):
            return head
        summary = self.summary()
        paths = [p or "(status)" for p in summary["path"]]
        op_width, path_width = max(map(len, summary["op"])), max(map(len, paths))
        out = [head]
        for row, path in zip(summary.itertuples(index=False), paths, strict=True):
            out.append(f"  {row.op:<{op_width}}  {path:<{path_width}}  {row.kind:<7} {row.count:>4}  "
                       f"line{'s' if ',' in row.lines else ''} {row.lines}")
        return "\n".join(out)

    def to_html(self, title: str = "Shadow run") -> str:
        """A standalone HTML page: the summary, every difference, every line."""
        esc = html.escape
        shown = self.differences.drop(columns=["money"])
        parts = [
            "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{esc(title)}</title>",
            _STYLE,
            f"</head><body><h1>{esc(title)}</h1>",
            f"<p>{esc(self.text().splitlines()[0])}. {_LEGEND} Money in {esc(self.currency)}.</p>",
            "<h2>By operation and field</h2>",
            self.summary().to_html(index=False, escape=True, na_rep=""),
            "<h2>Differences</h2>",
            shown.to_html(index=False, escape=True, na_rep=""),
            "<h2>Lines</h2>",
            self.lines.to_html(index=False, escape=True, na_rep=""),
            "</body></html>",
        ]
        return "\n".join(parts) + "\n"

    def write_html(self, path: Path, title: str = "Shadow run") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_html(title), encoding="utf-8")
