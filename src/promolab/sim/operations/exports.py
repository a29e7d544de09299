"""Exports: the create makes one, the list and get read them, the download serves its CSV.

1. The body is parsed with `ExportRequest` (400 `invalid_payload`); its
   fields, order and filters are checked whole (`export_csv.plan`: 400
   `invalid_export_fields` or `invalid_export_params`) before anything is read.
2. The rows are the state as of the creation (`export_rows.ROWS`), kept,
   ordered and written once into the record's CSV: later writes and clock
   advances do not change its bytes, and a replay of the journal makes it
   again, byte for byte, at the same instant.
3. The create answers `SCHEDULED` with no result, as the service does; the
   work takes no simulated time, so the export is `DONE` from its creation
   on and every read shows its `result.url` (docs/decisions.md, "Exports").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import models
from ...models import export_endpoints
from ..export_csv import plan, write_csv
from ..listing import Listing
from ..operation import bind
from ..records import ExportRecord
from ..refusals import NotFound
from ..render.exports import render_export
from ..request_parsing import parse
from .export_rows import ROWS

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["create_export", "download_export", "get_export", "list_exports"]


def create_export(sim: Simulator, *, request: object) -> models.Export:
    body = parse(models.ExportRequest, request)
    given = body.parameters or models.ExportParameters()
    campaign_id = given.campaign_id
    chosen = plan(body.exported_object, given.fields, given.order, given.filters, campaign_id)
    rows = ROWS[chosen.kind.name](sim)
    parameters: dict[str, object] = {"order": chosen.order, "fields": list(chosen.fields), "filters": chosen.filters}
    if campaign_id is not None:
        parameters["campaign_id"] = campaign_id
    record = ExportRecord(id=sim.ids.next("export"), created_at=sim.now, exported_object=chosen.kind.name,
                          parameters=parameters, csv=write_csv(chosen.fields, chosen.select(rows)))
    sim.state.exports[record.id] = record
    return render_export(record, "SCHEDULED")


EXPORTS: Listing[ExportRecord] = Listing(
    export_endpoints.LIST_EXPORTS, "exports",
    sort={"created_at": lambda r: r.created_at, "status": lambda r: "DONE"},
)


def list_exports(sim: Simulator, /, **query: object) -> models.ExportList:
    page = EXPORTS.page(sim.state.exports.values(), query)
    return models.ExportList.model_validate(
        EXPORTS.envelope(page, [render_export(r, "DONE").model_dump(mode="json", by_alias=True) for r in page.items]))


def _found(sim: Simulator, export_id: str) -> ExportRecord:
    record = sim.state.exports.get(export_id)
    if record is None:
        raise NotFound("export", export_id)
    return record


def get_export(sim: Simulator, *, export_id: str) -> models.Export:
    return render_export(_found(sim, export_id), "DONE")


def download_export(sim: Simulator, *, export_id: str) -> str:
    """The CSV as it was written when the export was made."""
    return _found(sim, export_id).csv


CREATE_EXPORT = bind(export_endpoints.CREATE_EXPORT, create_export, write=True)
LIST_EXPORTS = bind(export_endpoints.LIST_EXPORTS, list_exports, write=False)
GET_EXPORT = bind(export_endpoints.GET_EXPORT, get_export, write=False)
DOWNLOAD_EXPORT = bind(export_endpoints.DOWNLOAD_EXPORT, download_export, write=False)

#: This family's operations, in the order of `export_endpoints.ENDPOINTS`.
OPERATIONS = (CREATE_EXPORT, LIST_EXPORTS, GET_EXPORT, DOWNLOAD_EXPORT)
