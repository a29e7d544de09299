"""Campaign/voucher categories, as expanded with ``options.expand: ["category"]``."""

from __future__ import annotations

from typing import Literal

from ._base import WireModel
from .common import NonNegativeInt64, Timestamp

__all__ = ["Category"]


class Category(WireModel):
    __omit_if_none__ = frozenset({"updated_at"})

    id: str
    name: str
    hierarchy: NonNegativeInt64
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["category"] = "category"
