"""Exports: a CSV of a project's vouchers, redemptions, customers, orders or transactions.

An export is asked for (`ExportRequest`), answered at once as `SCHEDULED`
(`Export` with `result` null, as the service's create answer is), and read
back (`Export`, `ExportList`) with the `result.url` its CSV is downloaded
from. What each exported object's CSV holds is `sim/export_csv.py`'s.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import RequestModel, WireModel
from .common import NonNegativeInt64, Timestamp

__all__ = ["Export", "ExportList", "ExportParameters", "ExportRequest", "ExportResult", "ExportedObject"]

#: What the service exports (`exported_object`), in the order its documents list them.
ExportedObject = Literal[
    "voucher", "redemption", "customer", "publication", "order", "points_expiration", "voucher_transactions",
]


class ExportParameters(RequestModel):
    """Which columns (`fields`, the CSV's header in this order), which rows
    (`filters`: `{"junction": "and", "<field>": {"conditions": {"$is": ...}}}`)
    and in which order (`order`, a leading `-` descending)."""

    __omit_if_none__ = frozenset({"order", "fields", "filters", "campaign_id"})

    order: str | None = None
    fields: list[str] | None = None
    filters: dict[str, Any] | None = None
    #: Vouchers only: those of this campaign.
    campaign_id: str | None = None


class ExportRequest(RequestModel):
    __omit_if_none__ = frozenset({"parameters"})

    exported_object: ExportedObject
    parameters: ExportParameters | None = None


class ExportResult(WireModel):
    #: Where the CSV is downloaded from: a path of the simulator, resolved
    #: against the base URL the caller reached it at (docs/decisions.md, "Exports").
    url: str


class Export(WireModel):
    """An export as the service shows it (`parameters` as they apply: the
    fields and order filled with their defaults)."""

    id: str
    object: Literal["export"] = "export"
    created_at: Timestamp
    status: Literal["SCHEDULED", "IN_PROGRESS", "DONE", "ERROR"]
    channel: str
    exported_object: ExportedObject
    parameters: dict[str, Any]
    result: ExportResult | None
    user_id: str | None


class ExportList(WireModel):
    """A page of the project's exports; `total` counts every one."""

    object: Literal["list"] = "list"
    data_ref: Literal["exports"] = "exports"
    exports: list[Export] = Field(default_factory=list)
    total: NonNegativeInt64
