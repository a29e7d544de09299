"""Reading rewards through the v1 endpoints: the project's rewards in the v1 shape.

The simulator keeps the loyalty v2 API's rewards (`state.rewards`); the v1
list and read show each as the v1 API does (docs/decisions.md, "Lists"):
a MATERIAL reward names its product (and SKU) in `parameters.product`; a
DIGITAL one, a code or a gift card of a campaign, is a CAMPAIGN reward
naming that campaign (and the gift card's balance). `stock` is what its
assignments still hold (null when any is unlimited) and `redeemed` how many
members were granted it. A DELETED reward is gone from v1 (404, not listed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import models
from ...models import read_endpoints
from ..fast_validate import validated
from ..listing import Listing
from ..operation import bind
from ..records import Reward
from ..refusals import NotFound
from ..render._time import iso

if TYPE_CHECKING:
    from ..simulator import Simulator
    from ..state import State


def _parameters(record: Reward) -> tuple[str, dict[str, Any]]:
    if record.type == "MATERIAL":
        material = record.material or {}
        sku = material.get("sku")
        if sku is not None:
            return "MATERIAL", {"product": {"id": sku.get("product_id"), "sku_id": sku["id"]}}
        return "MATERIAL", {"product": {"id": material.get("product", {}).get("id"), "sku_id": None}}
    digital = record.digital or {}
    if "gift_vouchers" in digital:
        gift = digital["gift_vouchers"]
        return "CAMPAIGN", {"campaign": {"id": gift["campaign_id"], "balance": gift["balance"], "type": "GIFT_VOUCHERS"}}
    return "CAMPAIGN", {"campaign": {"id": digital.get("discount_coupons", {}).get("campaign_id"),
                                     "type": "DISCOUNT_COUPONS"}}


def _reward_body(state: State, record: Reward) -> dict[str, Any]:
    kind, parameters = _parameters(record)
    stocks = [a.stock for a in state.reward_assignments.values() if a.reward_id == record.id]
    stock = None if not stocks or any(s is None for s in stocks) else sum(s for s in stocks if s is not None)
    redeemed = sum(1 for g in state.granted_rewards.values() if g.reward_id == record.id)
    return {
        "id": record.id, "name": record.name, "type": kind, "parameters": parameters, "stock": stock,
        "redeemed": redeemed, "attributes": {}, "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at), "metadata": record.metadata, "object": "reward",
    }


#: `assignment_id` reads the assignments, so the operation applies it before listing.
REWARDS: Listing[Reward] = Listing(read_endpoints.LIST_REWARDS, "data", prefiltered=frozenset({"assignment_id"}))


def list_rewards(sim: Simulator, /, **query: object) -> models.ProjectRewardList:
    state = sim.state
    rewards = [r for r in state.rewards.values() if r.status != "DELETED"]
    assignment_id = query.get("assignment_id")
    if isinstance(assignment_id, str):
        assignment = state.reward_assignments.get(assignment_id)
        rewards = [r for r in rewards if assignment is not None and r.id == assignment.reward_id]
    return validated(models.ProjectRewardList, REWARDS.answer(rewards, query, lambda r: _reward_body(state, r)))


def get_reward(sim: Simulator, *, reward_id: str) -> models.ProjectReward:
    record = sim.state.rewards.get(reward_id)
    if record is None or record.status == "DELETED":
        raise NotFound("reward", reward_id)
    return validated(models.ProjectReward, _reward_body(sim.state, record))


LIST_REWARDS = bind(read_endpoints.LIST_REWARDS, list_rewards, write=False)
GET_REWARD = bind(read_endpoints.GET_REWARD, get_reward, write=False)

#: This family's operations, in the order of `read_endpoints.READS`.
READS = (LIST_REWARDS, GET_REWARD)
