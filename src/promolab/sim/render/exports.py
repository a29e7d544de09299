"""An export record -> the export object."""

from __future__ import annotations

from typing import Literal

from ... import models
from ...models import export_endpoints
from ..records import ExportRecord

__all__ = ["download_path", "render_export"]


def download_path(export_id: str) -> str:
    """Where the export's CSV is served: a path of the simulator (docs/decisions.md, "Exports")."""
    return export_endpoints.DOWNLOAD_EXPORT.url_path(export_id=export_id)


def render_export(record: ExportRecord, status: Literal["SCHEDULED", "DONE"]) -> models.Export:
    """`SCHEDULED` with no result (the create's answer), or `DONE` with the download's url."""
    return models.Export.model_validate({
        "id": record.id, "object": "export", "created_at": record.created_at, "status": status, "channel": "API",
        "exported_object": record.exported_object, "parameters": record.parameters,
        "result": None if status == "SCHEDULED" else {"url": download_path(record.id)}, "user_id": None,
    })
