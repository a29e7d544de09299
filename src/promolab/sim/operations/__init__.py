"""Operations of the simulator, one module per family, listed here once.

Each family module defines its functions and binds each to its endpoint
(`bind(endpoints.X, function, write=...)`); `OPERATIONS` is the explicit list
of them all, nothing is registered by importing a module. The name of an
operation is what the journal records and what a replay line says.
"""

from __future__ import annotations

from typing import Any

from ..operation import Operation
from . import (
    balance,
    campaign_reads,
    catalogue,
    custom_events,
    customer_profiles,
    exports,
    history,
    incentives,
    journal_header,
    loyalty_reads,
    project_rewards,
    promotion_reads,
    publishing,
    purchases,
    qualifications,
    redemptions,
    rewards,
    rule_reads,
    segments,
    sessions,
    snapshots,
    stacked_validation,
    stacking_rules,
    validation,
    webhook_configs,
)

__all__ = ["BY_NAME", "OPERATIONS", "operation_named"]

#: Every operation a simulator runs: the interface's, those beyond it, then
#: the simulator's own.
OPERATIONS: tuple[Operation[..., Any], ...] = (
    incentives.GET_INCENTIVE,
    purchases.PURCHASE_REWARD,
    rewards.DELETE_REWARD,
    webhook_configs.DELETE_WEBHOOK,
    publishing.PUBLISH,
    validation.VALIDATE,
    custom_events.TRACK_EVENT,
    balance.ADD_GIFT_BALANCE,
    stacking_rules.CREATE_STACKING_RULES,
    stacking_rules.LIST_STACKING_RULES,
    stacking_rules.GET_STACKING_RULES,
    stacking_rules.UPDATE_STACKING_RULES,
    stacking_rules.DELETE_STACKING_RULES,
    stacked_validation.VALIDATE_STACKED,
    qualifications.QUALIFICATIONS,
    redemptions.REDEEM_STACKED,
    redemptions.ROLLBACK_REDEMPTION,
    sessions.RELEASE_SESSION,
    *catalogue.READS,
    *customer_profiles.READS,
    *segments.READS,
    *project_rewards.READS,
    *history.READS,
    *rule_reads.READS,
    *loyalty_reads.READS,
    *campaign_reads.READS,
    *promotion_reads.READS,
    *exports.OPERATIONS,
    snapshots.RESET,
    snapshots.RESTORE,
    journal_header.CHECK_HEADER,
)

#: name -> operation, for journal and replay lines.
BY_NAME: dict[str, Operation[..., Any]] = {op.name: op for op in OPERATIONS}
if len(BY_NAME) != len(OPERATIONS):
    raise RuntimeError("two operations share a name")


def operation_named(name: str) -> Operation[..., Any]:
    """The operation called `name`; `KeyError` lists the known ones."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown operation {name!r}; known: {', '.join(sorted(BY_NAME))}") from None
