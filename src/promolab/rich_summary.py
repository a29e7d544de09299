"""What a notebook shows for a result object: a titled table of facts, and
tables of text cells, as HTML (`_repr_html_`).

A notebook cell that ends with a `Simulator`, a sweep, a forecast, a replay
or a comparison used to show `<... object at 0x7f...>`; Jupyter calls
`_repr_html_` when an object has one. Each of those classes says what to show
(`Summary`: facts and tables whose cells are already text for people, money
through `promolab.display`); this module writes the HTML once, escaped, with
long tables cut to `MAX_ROWS` and the cut said.

Imports nothing of promolab but `display`, and not pandas (a frame is read
through `columns` and `itertuples`), so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from .display import DEFAULT_CURRENCY

__all__ = ["MAX_ROWS", "Summary", "Table", "currency_of"]

#: Rows shown of a table; the rest are counted in a last line.
MAX_ROWS = 20


@dataclass(frozen=True, slots=True)
class Table:
    """A captioned table of text cells."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, caption: str, frame: Any) -> Table:
        """A frame of text cells (a `summary_table()`, say) as a table; its index is not shown."""
        header = tuple(str(c) for c in frame.columns)
        return cls(caption, header, tuple(tuple(str(v) for v in row) for row in frame.itertuples(index=False)))

    def html(self) -> str:
        shown, more = self.rows[:MAX_ROWS], len(self.rows) - MAX_ROWS
        head = "".join(f"<th>{escape(h)}</th>" for h in self.header)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in shown)
        if more > 0:
            body += f'<tr><td colspan="{len(self.header)}">... {more:,} more rows</td></tr>'
        return (f"<table><caption>{escape(self.caption)}</caption><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table>")


@dataclass(frozen=True, slots=True)
class Summary:
    """A title, facts (label, value) and tables: what `_repr_html_` shows."""

    title: str
    facts: Sequence[tuple[str, str]] = ()
    tables: Iterable[Table] = field(default_factory=tuple)

    def html(self) -> str:
        facts = "".join(f'<tr><th style="text-align:left">{escape(label)}</th>'
                        f'<td style="text-align:left">{escape(value)}</td></tr>' for label, value in self.facts)
        parts = [f"<table><caption><strong>{escape(self.title)}</strong></caption><tbody>{facts}</tbody></table>"]
        parts += [table.html() for table in self.tables]
        return '<div class="promolab-summary">' + "".join(parts) + "</div>"


def currency_of(result: object) -> str:
    """What `result`'s amounts are in: its `currency` where it keeps one (a
    simulator knows its scenario's), else DEFAULT_CURRENCY."""
    currency = getattr(result, "currency", None)
    return currency if isinstance(currency, str) and currency else DEFAULT_CURRENCY
