"""Validation rules and their assignments, as the service's read endpoints show them.

The service keeps a rule as an object of its own (`val_...`) assigned to
the campaigns, tiers and vouchers it governs (`asgm_...`); the simulator
holds the same rules inline on their owner and synthesizes these objects
from it (`sim/validation_rule_objects.py`, docs/decisions.md "Validation
rules of a pull"). `rules` and `applicable_to` stay the service's plain
mappings, as the owner's records keep them, so that a pull can write them
back into an owner as they came.
"""

from __future__ import annotations

from typing import Any, Literal

from ._base import WireModel
from .common import NonNegativeInt64, Timestamp

__all__ = [
    "ValidationRule",
    "ValidationRuleAssignment",
    "ValidationRuleAssignmentList",
    "ValidationRuleError",
    "ValidationRuleList",
    "ValidationRuleType",
]

ValidationRuleType = Literal["expression", "basic", "advanced", "complex"]


class ValidationRuleError(WireModel):
    """The message shown when the rule fails (the rule's own, else the service's)."""

    __omit_if_none__ = frozenset({"message"})

    message: str | None = None


class ValidationRule(WireModel):
    """A rule set (`rules`, with its `logic`) and a scope (`applicable_to`)."""

    __omit_if_none__ = frozenset({"error", "updated_at", "assignments_count"})

    id: str
    name: str
    rules: dict[str, Any]
    error: ValidationRuleError | None = None
    applicable_to: dict[str, Any]
    created_at: Timestamp
    updated_at: Timestamp | None = None
    type: ValidationRuleType
    context_type: str
    assignments_count: NonNegativeInt64 | None = None
    object: Literal["validation_rules"] = "validation_rules"


class ValidationRuleList(WireModel):
    """A page of the project's validation rules; `total` counts every one."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[ValidationRule]
    total: NonNegativeInt64


class ValidationRuleAssignment(WireModel):
    """Which object a rule governs."""

    id: str
    rule_id: str
    related_object_id: str
    related_object_type: Literal[
        "voucher", "campaign", "earning_rule", "reward_assignment", "promotion_tier", "distribution"
    ]
    created_at: Timestamp
    object: Literal["validation_rules_assignment"] = "validation_rules_assignment"


class ValidationRuleAssignmentList(WireModel):
    """A page of assignments; `total` counts every match."""

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[ValidationRuleAssignment]
    total: NonNegativeInt64
