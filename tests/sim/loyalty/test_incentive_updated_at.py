"""An incentive's `updated_at` says when it last changed.

In promolab an incentive changes only when an earning rule uses one unit of
its stock (a custom event that credits points). A reward purchase takes stock
from the reward's assignment in the program, which no incentive shows, so it
leaves every incentive as it was. Read through `GET /v2/loyalties/incentives/{id}`.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from promolab import Simulator
from promolab.http import SimulatorTransport
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.purchases import PURCHASE_REWARD

LOYALTY = {
    "X-App-Id": "kestrel-app", "X-App-Token": "kestrel-app-token", "Authorization": "Bearer kestrel-access-token",
}
PROGRAM = "lprg_coffee_club"


def _incentives(sim: Simulator) -> dict[str, dict[str, Any]]:
    with httpx.Client(base_url="http://promolab.local", transport=SimulatorTransport(sim)) as http:
        return {
            iid: http.get(f"/v2/loyalties/incentives/{iid}", headers=LOYALTY).json()
            for iid in sim.state.incentives
        }


def _event(name: str, source_id: str, **metadata: Any) -> Any:
    def act(sim: Simulator) -> None:
        sim.apply(TRACK_EVENT, request={"event": name, "customer": {"source_id": source_id}, "metadata": metadata})

    return act


def _refused_event(sim: Simulator) -> None:
    with pytest.raises(Exception, match="rating"):
        sim.apply(TRACK_EVENT, request={"event": "review_written", "customer": {"source_id": "bob"},
                                        "metadata": {"rating": 9}})


def _purchase_settled(reward_id: str, member_id: str) -> Any:
    def act(sim: Simulator) -> None:
        sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id=member_id, request={"reward_id": reward_id})
        sim.advance(2)  # approved: the assignment's stock loses a unit

    return act


#: (case, what happens, {incentive: stock used}). The incentives listed change
#: (stock down, updated_at = the instant of the change); every other keeps
#: its stock and a null updated_at.
CASES: list[tuple[str, Any, dict[str, int]]] = [
    ("a review earns 50 points", _event("review_written", "bob", rating=5), {"linc_0a11ce01": 1}),
    ("an order earns points and stars", _event("order_placed", "alice", amount=2500),
     {"linc_0a11ce02": 1, "linc_0a11ce03": 1}),
    ("an order of a customer without stars earns points only", _event("order_placed", "frank", amount=2500),
     {"linc_0a11ce02": 1}),
    ("an inactive member earns nothing", _event("review_written", "carol", rating=4), {}),
    ("a customer of no program earns nothing", _event("review_written", "erin", rating=4), {}),
    ("a refused event changes nothing", _refused_event, {}),
    ("a reward purchase takes the assignment's stock, not an incentive's", _purchase_settled("lrew_mug", "lmbr_alice"),
     {}),
    ("a free reward too", _purchase_settled("lrew_sticker", "lmbr_frank"), {}),
]


@pytest.mark.parametrize(("act", "used"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_updated_at_is_the_instant_of_the_last_stock_change(
    sim: Simulator, act: Any, used: dict[str, int]
) -> None:
    before = _incentives(sim)
    assert all(body["updated_at"] is None for body in before.values())
    sim.advance(90)  # later than creation, so the instant is the change's own
    changed_at = sim.client().control.clock()["now"]
    act(sim)
    after = _incentives(sim)
    for iid, body in after.items():
        if iid in used:
            assert body["stock"] == before[iid]["stock"] - used[iid]
            assert body["updated_at"] == changed_at, iid
            assert body["updated_at"] != body["created_at"]
        else:
            assert body == before[iid], iid


def test_a_later_change_moves_updated_at_again(sim: Simulator) -> None:
    sim.advance(60)
    sim.apply(TRACK_EVENT, request={"event": "review_written", "customer": {"source_id": "bob"},
                                    "metadata": {"rating": 5}})
    first = _incentives(sim)["linc_0a11ce01"]["updated_at"]
    sim.advance(3600)
    sim.apply(TRACK_EVENT, request={"event": "review_written", "customer": {"source_id": "alice"},
                                    "metadata": {"rating": 4}})
    second = _incentives(sim)["linc_0a11ce01"]
    assert second["updated_at"] == sim.client().control.clock()["now"] != first
    assert second["stock"] == 100000 - 2
