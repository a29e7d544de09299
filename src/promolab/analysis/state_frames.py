"""The simulator's ledgers (its state's records) as tidy DataFrames.

Here rather than in `sim`: the simulator holds state and answers requests;
turning its state into pandas objects is analysis (and keeps pandas out of
`sim`). `promolab.Simulator.transactions()` / `.webhook_deliveries()` and the
replay's delivery log are built here.

Columns and dtypes are fixed (docs/analysis.md): money and points are
`Int64` (nullable integers, never floats), enums are categoricals with the
full category list of the interface (so group-bys show empty categories),
timestamps are timezone-aware UTC.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ..sim import DeliveryAttempt, Simulator

__all__ = ["card_transactions_frame", "deliveries_frame", "typed_frame"]

TRANSACTION_TYPES = [
    "ADMIN_CREDIT", "ADMIN_DEBIT", "ADMIN_POINTS_EXPIRATION", "POINTS_EARNED", "POINTS_SPENT_ON_REWARD",
    "POINTS_REFUNDED", "POINTS_RETURNED", "POINTS_EXPIRED", "PENDING_POINTS_ADDED",
    "PENDING_POINTS_ACTIVATED", "PENDING_POINTS_CANCELED",
]
TRANSACTION_STATUSES = ["PENDING", "PROCESSING", "APPROVED", "REJECTED"]
DELIVERY_OUTCOMES = ["delivered", "failed", "timeout", "error"]


def typed_frame(
    rows: list[dict[str, Any]],
    *,
    columns: list[str],
    ints: tuple[str, ...] = (),
    times: tuple[str, ...] = (),
    categories: dict[str, list[str]] | None = None,
) -> pd.DataFrame:
    """Build a frame with a fixed column order and dtypes, also when empty."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=columns)
    for col in ints:
        frame[col] = pd.array(frame[col].tolist(), dtype="Int64")
    for col in times:
        frame[col] = pd.to_datetime(frame[col], utc=True)
    for col, cats in (categories or {}).items():
        frame[col] = pd.Categorical(frame[col], categories=cats)
    for col in columns:
        if col not in ints and col not in times and col not in (categories or {}):
            frame[col] = frame[col].astype("string")
    return frame


def card_transactions_frame(sim: Simulator) -> pd.DataFrame:
    rows = []
    for t in sim.state.card_transactions.values():
        rejection = t.details.get("rejection") or {}
        rows.append({
            "id": t.id, "created_at": t.created_at, "updated_at": t.updated_at, "program_id": t.program_id,
            "member_id": t.member_id, "card_id": t.card_id, "card_definition_id": t.card_definition_id,
            "type": t.type, "status": t.status, "points": t.points,
            "reward_id": t.details.get("reward_id"), "reason": t.details.get("reason"),
            "rejection_reason": rejection.get("reason"), "rejection_details": rejection.get("details"),
            "due_at": t.due_at, "reward_assignment_id": t.reward_assignment_id,
        })
    return typed_frame(
        rows,
        columns=["id", "created_at", "updated_at", "program_id", "member_id", "card_id", "card_definition_id",
                 "type", "status", "points", "reward_id", "reason", "rejection_reason", "rejection_details",
                 "due_at", "reward_assignment_id"],
        ints=("points",),
        times=("created_at", "updated_at", "due_at"),
        categories={"type": TRANSACTION_TYPES, "status": TRANSACTION_STATUSES},
    )


def deliveries_frame(source: Simulator | Sequence[DeliveryAttempt]) -> pd.DataFrame:
    """The delivery log of a simulator, or of the attempts given (a replay's)."""
    attempts = source if isinstance(source, Sequence) else source.state.webhook_deliveries
    rows = [d.model_dump() for d in attempts]
    return typed_frame(
        rows,
        columns=["sendout_id", "webhook_id", "event_type", "attempt", "attempted_at", "outcome", "status_code",
                 "error", "next_attempt_at", "target", "signature"],
        ints=("attempt", "status_code"),
        times=("attempted_at", "next_attempt_at"),
        categories={"outcome": DELIVERY_OUTCOMES},
    )
