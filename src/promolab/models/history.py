"""What a project has redeemed, as lists: its orders and its redemptions (with rollbacks).

The orders are those redemptions were made on (`StoredOrder`, `ord_...`);
the redemptions list holds every redemption (parents and children) and
every rollback, as the service's list does (`object` tells them apart).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ._base import WireModel
from .common import NonNegativeInt64
from .redemptions import Redemption, RedemptionRollback, StoredOrder

__all__ = ["OrderList", "RedemptionList"]


class OrderList(WireModel):
    """A page of the project's orders; `total` counts every one."""

    object: Literal["list"] = "list"
    data_ref: Literal["orders"] = "orders"
    orders: list[StoredOrder]
    total: NonNegativeInt64


class RedemptionList(WireModel):
    """A page of redemptions and rollbacks; `total` counts every match."""

    object: Literal["list"] = "list"
    data_ref: Literal["redemptions"] = "redemptions"
    redemptions: list[Annotated[Redemption | RedemptionRollback, Field(discriminator="object")]]
    total: NonNegativeInt64
