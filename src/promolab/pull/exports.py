"""Reading a whole list through an export: create it once, wait for it, download and check its CSV.

A list whose first page declares more objects than its pages reach (the
service's 99 pages of 100, and all of a scenario's objects made at one
instant, so no date window gets past them) is read as the service
recommends for large dumps: its create (`CREATE_EXPORT`) with the columns the pull
needs, its status asked for until `DONE` (a bounded number of times:
`Limits.export_polls`; `ERROR`, or never `DONE`, is a `PullError`), then
its `result.url` downloaded as one file, bounded like a page but larger
(`Limits.max_export_bytes`, `export_deadline`).

The target is not trusted here either: the file must be on the target's
own host (the credentials go nowhere else), its header must be exactly the
columns asked for, every row as long as the header, and it must hold as
many rows as the list's first page declared. What each cell must be is
`export_objects`' to check.

A resumed pull creates no second export of a list: the export's id is
kept in the state file as soon as it is created, and its file once it is
downloaded, so `--resume` goes on from whichever it has.
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass

from .. import models
from ..models import export_endpoints
from .errors import PullError
from .reader import Reader, Sent

__all__ = ["ExportAsk", "exported_rows"]


@dataclass(frozen=True, slots=True)
class ExportAsk:
    """One export a pull asks for: what, which columns (the CSV's header, in this order), which order."""

    exported_object: models.ExportedObject
    fields: tuple[str, ...]
    #: Oldest first, as the pages are walked: the scenario holds the objects in the order they were made.
    order: str = "created_at"

    @property
    def key(self) -> str:
        """What the state file keeps the export's id under."""
        return f"export {self.exported_object} {self.order} {','.join(self.fields)}"


def _created(reader: Reader, ask: ExportAsk) -> str:
    """The id of this list's export: the one a resumed pull created before, else a new one."""
    kept = reader.state.get(ask.key) if reader.state is not None else None
    if kept is not None and isinstance(kept.get("id"), str):
        return str(kept["id"])
    payload = {"exported_object": ask.exported_object,
               "parameters": {"fields": list(ask.fields), "order": ask.order}}
    sent = Sent(export_endpoints.CREATE_EXPORT, export_endpoints.CREATE_EXPORT.url_path(), payload=payload)
    export = reader.fresh(sent, models.Export)
    if export.exported_object != ask.exported_object or not export.id:
        raise PullError(f"create_export: the target made an export of {export.exported_object!r} "
                        f"(id {export.id!r}), not of {ask.exported_object!r}")
    if reader.state is not None:
        reader.state.put(ask.key, {"id": export.id})
    return export.id


def _download_path(reader: Reader, export: models.Export) -> str:
    """Where the finished export's file is, as a path under the target's base URL: a file elsewhere
    would be asked for with the target's credentials, so it is refused."""
    url = export.result.url if export.result is not None else ""
    base = reader.target.base_url.rstrip("/")
    if url.startswith("/") and not url.startswith("//"):
        return url
    if url.startswith(base + "/"):
        return url[len(base):]
    raise PullError(f"get_export {export.id}: its file is at {url[:200]!r}, not on the target "
                    f"({base}): the pull sends its credentials nowhere else")


def _finished(reader: Reader, export_id: str) -> str:
    """The path of the export's file, once the target says it is DONE."""
    endpoint = export_endpoints.GET_EXPORT
    sent = Sent(endpoint, endpoint.url_path(export_id=export_id))
    limits = reader.limits
    for poll in range(max(limits.export_polls, 1)):  # asked once at least
        export = reader.fresh(sent, models.Export)
        if export.status == "ERROR":
            raise PullError(f"get_export {export_id}: the target's export failed (status ERROR)")
        if export.status == "DONE":
            return _download_path(reader, export)
        if poll + 1 < limits.export_polls:
            time.sleep(limits.export_poll_every)
    raise PullError(f"get_export {export_id}: not DONE after {limits.export_polls} looks "
                    f"{limits.export_poll_every:g} s apart (still {export.status})")


def _file(reader: Reader, export_id: str) -> str:
    """The export's CSV text: the one a resumed pull downloaded before, else downloaded now and kept."""
    key = f"export-file {export_id}"
    kept = reader.state.get(key) if reader.state is not None else None
    if kept is not None and isinstance(kept.get("csv"), str):
        return str(kept["csv"])
    text = reader.text(Sent(export_endpoints.DOWNLOAD_EXPORT, _finished(reader, export_id)))
    if reader.state is not None:
        reader.state.put(key, {"csv": text})
    return text


def exported_rows(reader: Reader, ask: ExportAsk, total: int) -> list[dict[str, str]]:
    """The rows of the list `ask` exports (each a column -> cell text), checked whole: the header
    is the columns asked for, each row as long, `total` rows in all (what the list's first page said)."""
    export_id = _created(reader, ask)
    text = _file(reader, export_id)
    where = f"download_export {export_id}"
    try:
        lines = csv.reader(io.StringIO(text, newline=""), strict=True)
        header = next(lines, None)
        if header is None:
            raise PullError(f"{where}: the file is empty (no header)")
        if tuple(header) != ask.fields:
            raise PullError(f"{where}: the header is {','.join(header)[:300]!r}, not the columns asked for "
                            f"({','.join(ask.fields)})")
        rows: list[dict[str, str]] = []
        for number, cells in enumerate(lines, start=1):
            if len(cells) != len(header):
                raise PullError(f"{where}: row {number:,} has {len(cells)} cells, the header {len(header)}")
            rows.append(dict(zip(header, cells, strict=True)))
    except csv.Error as exc:
        raise PullError(f"{where}: not a CSV file: {exc}") from None
    if len(rows) != total:
        raise PullError(f"{where}: the file holds {len(rows):,} {ask.exported_object}s, the list's first page "
                        f"said {total:,}")
    return rows
