"""Restarting from a journal (what `promolab serve --journal` does after a crash)."""

from __future__ import annotations

from pathlib import Path

from promolab import Simulator
from promolab.sim.journal import replay_journal
from promolab.sim.operations.purchases import PURCHASE_REWARD


def test_journal_restart_replays_a_zero_second_advance(tmp_path: Path) -> None:
    """A recorded advance(0) that settled a purchase due now must settle it
    again when a served simulator restarts from its journal."""
    scenario = Path(__file__).resolve().parents[2] / "data" / "scenarios" / "demo.yaml"
    journal = tmp_path / "journal.jsonl"
    sim = Simulator.from_scenario(scenario)
    sim.state.settings.purchase_delay_seconds = 0
    sim.record_to(journal)
    sim.apply(PURCHASE_REWARD, program_id="lprg_coffee_club", member_id="lmbr_alice",
              request={"reward_id": "lrew_mug"})
    sim.advance(0)
    sim.record_to(None)
    assert [t.status for t in sim.state.card_transactions.values()][-1] == "APPROVED"

    restarted = Simulator.from_scenario(scenario)
    restarted.state.settings.purchase_delay_seconds = 0
    replay_journal(restarted, journal)
    assert restarted.dump_json() == sim.dump_json()
