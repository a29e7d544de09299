"""What the client's export methods send: make an export, read it, download its CSV.

Like `_read_builders.py`, each function turns a method's arguments into a
`Prepared` call (`models.export_endpoints`); the download's answer is the
CSV text (the endpoint's `media_type`), not a model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import models
from ..models import export_endpoints as e
from ._read_builders import _read
from ._requests import Prepared, body_of

__all__ = ["create_export", "download_export", "get_export", "list_exports"]


def create_export(request: models.ExportRequest | Mapping[str, Any] | None = None, *,
                  exported_object: models.ExportedObject | None = None, fields: Sequence[str] | None = None,
                  order: str | None = None, filters: Mapping[str, Any] | None = None) -> Prepared[models.Export]:
    """Export `exported_object` (voucher, redemption, customer, order,
    voucher_transactions, points_expiration) as CSV: its `fields` (the header, in this order;
    default the service's), `order`, `filters`. Answers `SCHEDULED`; read it
    back with `get_export` for its `result.url`, or `download_export`."""
    parameters = {k: v for k, v in {"fields": None if fields is None else list(fields), "order": order,
                                    "filters": filters}.items() if v is not None}
    body = body_of(request, {"exported_object": exported_object, "parameters": parameters or None})
    return Prepared(e.CREATE_EXPORT, e.CREATE_EXPORT.path, body)


def list_exports(*, limit: int | None = None, page: int | None = None,
                 order: str | None = None) -> Prepared[models.ExportList]:
    """A page of the project's exports (`order`: created_at or status, `-` descending; newest first by default)."""
    return _read(e.LIST_EXPORTS, {}, limit=limit, page=page, order=order)


def get_export(export_id: str) -> Prepared[models.Export]:
    """One export, with the `result.url` of its CSV."""
    return _read(e.GET_EXPORT, {"export_id": export_id})


def download_export(export_id: str) -> Prepared[str]:
    """The export's CSV, as text (the bytes its `result.url` serves, UTF-8)."""
    return _read(e.DOWNLOAD_EXPORT, {"export_id": export_id})
