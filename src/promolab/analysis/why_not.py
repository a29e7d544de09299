"""Why not, as a DataFrame: each redeemable of a stacked request, applied or what stopped it.

The rows are the simulator's (`sim.why_not`: the engine's explanation, never
part of the service's answer); the frame gives them stable columns and
dtypes, so a notebook can filter, group and join them like any other frame.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..sim import NOT_QUALIFIED_COLUMNS, WHY_NOT_COLUMNS, Simulator, why_not, why_not_qualified
from .figures import figures

__all__ = ["NOT_QUALIFIED_COLUMNS", "WHY_NOT_COLUMNS", "why_not_frame", "why_not_qualified_frame"]

_DTYPES = {
    "position": "int64", "tried": "int64", "id": "string", "object": "string", "kind": "string",
    "status": "string", "applied": "int64", "key": "string", "message": "string", "why": "string",
}  # fmt: skip


def why_not_frame(sim: Simulator, request: Any) -> pd.DataFrame:
    """One row per redeemable of the stacked validation `request` (a dict or
    `models.StackedValidationRequest`), in the request's order: `status`,
    `applied` (cents), and for one not applied the service's `key` and
    `message` and the explanation `why`. Prices like a validation and
    changes nothing."""
    if hasattr(request, "model_dump"):
        request = request.model_dump(mode="json", exclude_unset=True)
    rows = why_not(sim, request)
    frame = pd.DataFrame(rows, columns=list(WHY_NOT_COLUMNS))
    return figures(frame.astype(_DTYPES), sim.currency)


def why_not_qualified_frame(sim: Simulator, request: Any) -> pd.DataFrame:
    """One row per redeemable a qualifications `request` considered and did
    not return (`id`, `object`, `key`, `message`), in the order they were
    judged. Changes nothing."""
    if hasattr(request, "model_dump"):
        request = request.model_dump(mode="json", exclude_unset=True)
    rows = why_not_qualified(sim, request)
    return pd.DataFrame(rows, columns=list(NOT_QUALIFIED_COLUMNS)).astype("string")
