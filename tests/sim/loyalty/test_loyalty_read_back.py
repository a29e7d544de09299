"""Reading purchases back: `sim.transactions()` and the member view."""

from __future__ import annotations

import pandas as pd

from promolab import Simulator
from promolab.sim.loyalty_view import member_view

from ._helpers import buy


def _scenario(sim: Simulator) -> tuple[str, str, str]:
    approved = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    rejected = buy(sim, "lmbr_frank", "lrew_mug").transaction.id
    sim.state.members["lmbr_frank"].status = "INACTIVE"
    sim.advance(2)
    pending = buy(sim, "lmbr_alice", "lrew_mug").transaction.id
    return approved, rejected, pending


def test_transactions_frame(sim: Simulator) -> None:
    approved, rejected, pending = _scenario(sim)
    frame = sim.transactions()
    assert list(frame["id"]) == [approved, rejected, pending]
    assert list(frame["status"]) == ["APPROVED", "REJECTED", "PENDING"]
    assert list(frame["points"]) == [-500, -500, -500]
    assert str(frame["points"].dtype) == "Int64"
    assert isinstance(frame["status"].dtype, pd.CategoricalDtype)
    assert list(frame["rejection_reason"].fillna("-")) == ["-", "non_active_member", "-"]
    assert frame.loc[1, "rejection_details"] == "Member lmbr_frank is INACTIVE"
    assert list(frame["reward_assignment_id"]) == ["lrewa_mug"] * 3
    assert frame["due_at"].isna().tolist() == [True, True, False]
    assert frame.loc[2, "due_at"] == pd.Timestamp("2026-03-06T10:00:04Z")
    assert isinstance(frame["created_at"].dtype, pd.DatetimeTZDtype) and str(frame["created_at"].dt.tz) == "UTC"
    # Per-status sums: what an analyst does first.
    totals = frame.groupby("status", observed=False)["points"].sum()
    assert totals["APPROVED"] == -500 and totals["PROCESSING"] == 0


def test_empty_transactions_frame_keeps_its_columns(sim: Simulator) -> None:
    frame = sim.transactions()
    assert frame.empty
    assert {"due_at", "reward_assignment_id", "rejection_details", "rejection_reason"} <= set(frame.columns)


def test_member_view_shows_available_points_and_rewards(sim: Simulator) -> None:
    approved, _, pending = _scenario(sim)
    view = member_view(sim, "lmbr_alice")
    cards = {c["id"]: c for c in view["cards"]}
    assert cards["lcrd_alice_beans"] == {
        "id": "lcrd_alice_beans", "card_definition_id": "lcdef_beans", "card_type": "POINTS",
        "balance": 1300, "reserved": 500, "available": 800,
    }
    assert cards["lcrd_alice_stars"]["available"] == 12
    assert [t["id"] for t in view["transactions"]] == [approved, pending]
    assert [g["transaction_id"] for g in view["rewards"]] == [approved]
    frank = member_view(sim, "lmbr_frank")
    assert frank["status"] == "INACTIVE"
    assert frank["transactions"][0]["details"]["rejection"] == {
        "reason": "non_active_member", "details": "Member lmbr_frank is INACTIVE",
    }
    assert frank["cards"][0]["available"] == 620
