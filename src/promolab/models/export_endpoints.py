"""The exports' endpoints: create one, list them, get one, download its CSV.

The create is a write (journaled, replayed); the others read. The download
is the simulator's own route for what the service serves from its download
host (docs/decisions.md, "Exports"): its answer is the CSV text.
"""

from __future__ import annotations

from typing import Any

from .endpoint import Endpoint, Param
from .exports import Export, ExportList, ExportRequest
from .list_params import LIMIT, PAGE

__all__ = [
    "CREATE_EXPORT",
    "DOWNLOAD_EXPORT",
    "ENDPOINTS",
    "GET_EXPORT",
    "LIST_EXPORTS",
]

_EXPORT_ID = Param("exportId", "export_id")

CREATE_EXPORT: Endpoint[Export] = Endpoint(
    "create_export", "POST", "/v1/exports", "app", "createExport",
    "Export vouchers, redemptions, customers, orders or transactions as CSV", Export, ExportRequest,
    error_statuses=(400, 401), tags=("exports",),
)
LIST_EXPORTS: Endpoint[ExportList] = Endpoint(
    "list_exports", "GET", "/v1/exports", "app", "listExports", "List exports", ExportList,
    query=(LIMIT, PAGE, Param("order", "order", "string", "Sort by this field; a leading - sorts descending.",
                              enum=("created_at", "-created_at", "status", "-status"), default="-created_at")),
    tags=("exports",), idempotent=True,
)
GET_EXPORT: Endpoint[Export] = Endpoint(
    "get_export", "GET", "/v1/exports/{exportId}", "app", "getExport", "Get an export", Export,
    path_params=(_EXPORT_ID,), tags=("exports",), idempotent=True,
)
DOWNLOAD_EXPORT: Endpoint[str] = Endpoint(
    "download_export", "GET", "/v1/exports/{exportId}/download", "app", "downloadExport",
    "Download an export's CSV (its result.url)", str, path_params=(_EXPORT_ID,), tags=("exports",),
    idempotent=True, media_type="text/csv",
)

#: The exports' operations, in the order the service's documents list them.
ENDPOINTS: tuple[Endpoint[Any], ...] = (CREATE_EXPORT, LIST_EXPORTS, GET_EXPORT, DOWNLOAD_EXPORT)
