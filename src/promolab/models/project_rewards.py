"""Rewards as the service's v1 rewards endpoints show them (`rew_...` style objects).

The interface's rewards are the loyalty v2 API's (`models.Reward`: type
MATERIAL or DIGITAL); the v1 read endpoints a pull uses show the same
rewards in the v1 shape: `type` CAMPAIGN, COIN or MATERIAL, what the reward
gives in `parameters`, its `stock` and how many were `redeemed`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import WireModel
from .common import Metadata, NonNegativeInt64, Timestamp

__all__ = ["ProjectReward", "ProjectRewardList"]


class ProjectReward(WireModel):
    id: str
    name: str
    type: Literal["CAMPAIGN", "COIN", "MATERIAL"]
    parameters: dict[str, Any] = Field(default_factory=dict)
    stock: NonNegativeInt64 | None = None
    redeemed: NonNegativeInt64 | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    metadata: Metadata | None = None
    object: Literal["reward"] = "reward"


class ProjectRewardList(WireModel):
    """A page of rewards; `total` counts every match."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[ProjectReward]
    total: NonNegativeInt64
