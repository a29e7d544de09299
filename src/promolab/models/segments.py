"""Customer segments as the service's read endpoints show them.

A customer's segments are listed short (`id`, `name`, `object`); one segment
read by id carries its type. The simulator's segments are static lists of
customers (`type: static`, no `filter`), and the scenario gives them no
creation time, so `created_at` is left out (the service's schema does not
require it; docs/decisions.md).
"""

from __future__ import annotations

from typing import Any, Literal

from ._base import WireModel
from .common import NonNegativeInt64, Timestamp

__all__ = ["CustomerSegmentList", "Segment", "SimpleSegment"]


class SimpleSegment(WireModel):
    id: str
    name: str
    object: Literal["segment"] = "segment"


class Segment(WireModel):
    id: str
    name: str
    created_at: Timestamp | None = None
    type: Literal["auto-update", "passive", "static"] = "static"
    filter: dict[str, Any] | None = None
    object: Literal["segment"] = "segment"

    __omit_if_none__ = frozenset({"created_at"})


class CustomerSegmentList(WireModel):
    """Every segment the customer is in."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[SimpleSegment]
    total: NonNegativeInt64
