"""The v1 rewards read endpoints: the project's rewards in the v1 shape.

Each answer validates against the service's published schema (tests/data/)
and parses with promolab's model; the v2 rewards map to v1 types and
parameters as docs/decisions.md says; `assignment_id` filters; a deleted
reward is gone; a purchase granted counts in `redeemed`.
"""

from __future__ import annotations

import pytest
from test_reads_catalogue import assert_documented

from promolab import Simulator, models
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME

LIST, GET = BY_NAME["list_rewards"], BY_NAME["get_reward"]


@pytest.mark.parametrize(("template", "path", "model"), [
    ("/v1/rewards", "/v1/rewards?limit=100", models.ProjectRewardList),
    ("/v1/rewards/{rewardId}", "/v1/rewards/lrew_beans_1kg", models.ProjectReward),
    ("/v1/rewards/{rewardId}", "/v1/rewards/lrew_gift_25", models.ProjectReward),
])
def test_an_answer_is_what_the_service_documents_and_parses(
    sim: Simulator, template: str, path: str, model: type[models.WireModel]
) -> None:
    assert_documented(sim, template, path, model)


@pytest.mark.parametrize(("reward_id", "kind", "parameters", "stock"), [
    ("lrew_mug", "MATERIAL", {"product": {"id": "prod_mug", "sku_id": None}}, 28),  # 25 + 3 in two programs
    ("lrew_beans_1kg", "MATERIAL", {"product": {"id": "prod_beans_ethiopia", "sku_id": "sku_ethiopia_1000"}}, 1),
    ("lrew_coupon", "CAMPAIGN", {"campaign": {"id": "camp_newsletter", "type": "DISCOUNT_COUPONS"}}, None),
    ("lrew_gift_25", "CAMPAIGN", {"campaign": {"id": "camp_gift", "balance": 2500, "type": "GIFT_VOUCHERS"}}, 5),
])
def test_each_reward_in_the_v1_shape(sim: Simulator, reward_id: str, kind: str, parameters: dict[str, object],
                                     stock: int | None) -> None:
    reward = sim.apply(GET, reward_id=reward_id)
    assert (reward.type, reward.parameters, reward.stock, reward.redeemed) == (kind, parameters, stock, 0)


def test_the_list_pages_filters_and_forgets_deleted_ones(sim: Simulator) -> None:
    everything = [r.id for r in sim.apply(LIST, limit=100).data]
    assert everything == list(sim.state.rewards)
    assert [r.id for r in sim.apply(LIST, limit=2, page=2).data] == everything[2:4]
    assert [r.id for r in sim.apply(LIST, assignment_id="lrewa_gift").data] == ["lrew_gift_25"]
    assert sim.apply(LIST, assignment_id="lrewa_nope").total == 0
    with sim.client() as client:
        client.delete_reward("lrew_retired")
        assert "lrew_retired" not in [r.id for r in client.list_rewards(limit=100).data]
        with pytest.raises(Exception, match="404"):
            client.get_reward("lrew_retired")
    with pytest.raises(InvalidQueryParams, match="Query parameter page "):
        sim.apply(LIST, page=101)


def test_a_granted_purchase_counts_as_redeemed_and_takes_stock(sim: Simulator) -> None:
    with sim.client() as client:
        client.purchase_reward("lprg_coffee_club", "lmbr_alice", "lrew_mug")
        sim.advance(60)
        mug = client.get_reward("lrew_mug")
    assert (mug.redeemed, mug.stock) == (1, 27)
