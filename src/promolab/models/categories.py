"""Campaign/voucher categories, as expanded with ``options.expand: ["category"]``.

Stacked validations and qualifications list a redeemable's categories with
their stacking type (`CategoryWithStackingRulesType`): EXCLUSIVE ("never
stackable") or JOINT ("always stackable") as the project's stacking rules
make it, left out for a common category (as in the service's examples)."""

from __future__ import annotations

from typing import Literal

from ._base import WireModel
from .common import NonNegativeInt64, Timestamp

__all__ = ["Category", "CategoryList", "CategoryWithStackingRulesType", "StackingRulesType"]


class Category(WireModel):
    __omit_if_none__ = frozenset({"updated_at"})

    id: str
    name: str
    hierarchy: NonNegativeInt64
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["category"] = "category"


class CategoryList(WireModel):
    """Every category of the project (the list takes no paging)."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[Category]
    total: NonNegativeInt64


StackingRulesType = Literal["JOINT", "EXCLUSIVE"]


class CategoryWithStackingRulesType(Category):
    __omit_if_none__ = frozenset({"updated_at", "stacking_rules_type"})

    stacking_rules_type: StackingRulesType | None = None
