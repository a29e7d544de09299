"""A journal that cannot be written stops the simulator from acknowledging writes."""

from __future__ import annotations

from typing import Any

import pytest

from promolab import Simulator
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.incentives import GET_INCENTIVE
from promolab.sim.operations.rewards import DELETE_REWARD
from promolab.sim.operations.webhook_configs import DELETE_WEBHOOK
from promolab.sim.refusals import JournalUnavailable


class _FullDisk:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.fail = False

    def record(self, at: str, op: str, args: dict[str, Any]) -> None:
        if self.fail:
            raise OSError(28, "No space left on device")
        self.lines.append(op)

    def close(self) -> None:
        pass


def test_a_failed_journal_write_is_not_acknowledged_and_stops_writes(sim: Simulator) -> None:
    disk = _FullDisk()
    sim._journal = disk  # type: ignore[assignment]
    sim.apply(DELETE_REWARD, reward_id="lrew_retired")
    assert disk.lines == ["delete_reward"]

    disk.fail = True
    with pytest.raises(JournalUnavailable) as refused:
        sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_crm")
    assert refused.value.status == 503 and refused.value.key == "journal_unavailable"

    disk.fail = False  # even once the disk is back, the gap stays: no more writes
    with pytest.raises(JournalUnavailable):
        sim.apply(ADD_GIFT_BALANCE, code="GIFT-ALICE-50", request={"amount": 100})
    with pytest.raises(JournalUnavailable):
        sim.advance(60)
    assert disk.lines == ["delete_reward"]
    # Reads still answer.
    assert sim.apply(GET_INCENTIVE, incentive_id="linc_0a11ce01").id == "linc_0a11ce01"


def test_starting_a_new_journal_clears_the_failure(sim: Simulator) -> None:
    disk = _FullDisk()
    disk.fail = True
    sim._journal = disk  # type: ignore[assignment]
    with pytest.raises(JournalUnavailable):
        sim.apply(DELETE_REWARD, reward_id="lrew_retired")
    lines: list[str] = []
    sim.record_to(lines)
    sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_crm")
    assert len(lines) == 1
