"""Deleting rewards (endpoint 3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import models
from ...models import endpoints
from ..operation import bind
from ..refusals import NotFound, ResourceInUse
from ..render import render_reward

if TYPE_CHECKING:
    from ..simulator import Simulator


def delete_reward(sim: Simulator, *, reward_id: str) -> models.Reward:
    """A reward still offered by a program cannot go (400 resource_in_use,
    naming the assignments); otherwise it becomes DELETED and stays readable.
    Deleting it again is harmless: the same DELETED reward comes back, with
    its first deletion time (`updated_at`) unchanged, so the answer says so."""
    record = sim.state.rewards.get(reward_id)
    if record is None:
        raise NotFound("reward", reward_id)
    if record.status != "DELETED":
        in_use = [a.id for a in sim.state.reward_assignments.values() if a.reward_id == reward_id]
        if in_use:
            raise ResourceInUse("reward", reward_id, "reward_assignment", in_use)
        record.status = "DELETED"
        record.updated_at = sim.now
    return render_reward(record)


DELETE_REWARD = bind(endpoints.DELETE_REWARD, delete_reward, write=True)
