"""A journal that cannot be written stops the simulator from acknowledging writes."""

from __future__ import annotations

from typing import Any

import pytest

from promolab import Simulator
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
    sim.delete_reward("lrew_retired")
    assert disk.lines == ["delete_reward"]

    disk.fail = True
    with pytest.raises(JournalUnavailable) as refused:
        sim.delete_webhook("proj_kestrel", "wh_crm")
    assert refused.value.status == 503 and refused.value.key == "journal_unavailable"

    disk.fail = False  # even once the disk is back, the gap stays: no more writes
    with pytest.raises(JournalUnavailable):
        sim.add_gift_balance("GIFT-ALICE-50", 100)
    with pytest.raises(JournalUnavailable):
        sim.advance(60)
    assert disk.lines == ["delete_reward"]
    # Reads still answer.
    assert sim.get_incentive("linc_0a11ce01").id == "linc_0a11ce01"


def test_starting_a_new_journal_clears_the_failure(sim: Simulator) -> None:
    disk = _FullDisk()
    disk.fail = True
    sim._journal = disk  # type: ignore[assignment]
    with pytest.raises(JournalUnavailable):
        sim.delete_reward("lrew_retired")
    lines: list[str] = []
    sim.record_to(lines)
    sim.delete_webhook("proj_kestrel", "wh_crm")
    assert len(lines) == 1
