"""Why not: for each redeemable of a stacked request, whether it applied and what stopped it.

The service's answer says a redeemable was INAPPLICABLE or SKIPPED with a
key; an analyst or a tester wants the rule or limit behind it and what it
saw (`order.amount must be more than 10000 (the order's amount was 9450
after the 1 redeemable(s) tried before it)`). That explanation is the
engine's (`StackedRedeemable.why`); it is never mixed into the wire answer.
It is served by the control API (endpoints `SIM_WHY_NOT`, and
`SIM_WHY_NOT_QUALIFIED` for what a qualification left out) and shown as
DataFrames by the analysis layer (`analysis.why_not_frame`,
`analysis.why_not_qualified_frame`).

Reading it prices the request exactly as a validation would, and changes
nothing (no id is drawn, no session held).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .operations.qualifications import qualification_exclusions
from .operations.stacked_validation import priced_stack

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["NOT_QUALIFIED_COLUMNS", "WHY_NOT_COLUMNS", "why_not", "why_not_qualified"]

#: The fields of each row of `why_not_qualified`, in order.
NOT_QUALIFIED_COLUMNS = ("id", "object", "key", "message")
#: The fields of each row, in order.
WHY_NOT_COLUMNS = ("position", "tried", "id", "object", "kind", "status", "applied", "key", "message", "why")


def why_not(sim: Simulator, request: Any) -> list[dict[str, Any]]:
    """One row per redeemable sent (a promotion stack: per tier), in the
    request's order: `tried` is its place in the application order, `kind`
    its stacking kind (EXCLUSIVE / COMMON / JOINT), `applied` the cents it
    took off; `key`, `message` and `why` are None for an applied one."""
    result = priced_stack(sim, request).result
    tried = {position: k for k, position in enumerate(result.tried)}
    return [
        {
            "position": r.entry.position, "tried": tried[r.entry.position], "id": r.entry.id,
            "object": r.entry.object, "kind": r.kind, "status": r.status, "applied": r.applied,
            "key": r.reason_key, "message": r.reason, "why": r.why,
        }
        for r in result.redeemables
    ]


def why_not_qualified(sim: Simulator, request: Any) -> list[dict[str, Any]]:
    """For a qualifications request: every redeemable its scenario considered
    and did not return, with the check that excluded it (`key`, `message`),
    in the order they were judged (tiers, then codes). Changes nothing."""
    return [{name: row[name] for name in NOT_QUALIFIED_COLUMNS} for row in qualification_exclusions(sim, request)]
