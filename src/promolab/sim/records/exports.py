"""An export as the simulator keeps it: what was asked, and the CSV made at its creation."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ._base import Instant, Record

__all__ = ["ExportRecord"]


class ExportRecord(Record):
    id: str
    created_at: Instant
    exported_object: str
    #: The parameters as they apply (defaults filled): what the export object shows.
    parameters: dict[str, Any] = Field(default_factory=dict)
    #: The file, written once when the export was made: later writes and
    #: advances of the clock do not change a finished export's bytes.
    csv: str
