"""Small helpers shared by the loyalty tests."""

from __future__ import annotations

from typing import Any

import pytest

from promolab import Simulator
from promolab.sim.operations.purchases import PURCHASE_REWARD
from promolab.sim.refusals import SimError

PROGRAM = "lprg_coffee_club"


def buy(sim: Simulator, member: str, reward: str, program: str = PROGRAM) -> Any:
    return sim.apply(PURCHASE_REWARD, program_id=program, member_id=member, request={"reward_id": reward})


def refused(sim: Simulator, member: str, reward: str, program: str = PROGRAM, body: Any = None) -> SimError:
    """Run a purchase that must fail, and check that it changed nothing."""
    before = sim.dump_json()
    with pytest.raises(SimError) as info:
        request = {"reward_id": reward} if body is None else body
        sim.apply(PURCHASE_REWARD, program_id=program, member_id=member, request=request)
    assert sim.dump_json() == before
    return info.value


def balance(sim: Simulator, card_id: str) -> int:
    return sim.state.cards[card_id].balance


def stock(sim: Simulator, assignment_id: str) -> int | None:
    return sim.state.reward_assignments[assignment_id].stock
