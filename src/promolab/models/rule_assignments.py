"""Validation rules as an object lists them: the assignments of rules to it.

A campaign, a voucher (and, in the validation-rule reads, a tier) shows its
rules as `validation_rules_assignments`; the simulator gives each owner with
rules one assignment `asgm_<owner id>` of one rule `val_<owner id>`
(docs/decisions.md, "Campaigns").
"""

from __future__ import annotations

from typing import Literal

from ._base import WireModel
from .common import NonNegativeInt64, Timestamp

__all__ = ["ValidationRulesAssignment", "ValidationRulesAssignmentList"]


class ValidationRulesAssignment(WireModel):
    """A validation rule assigned to an object (`asgm_<owner id>` of rule `val_<owner id>`, docs/decisions.md)."""

    id: str
    rule_id: str
    related_object_id: str
    related_object_type: Literal["voucher", "campaign", "earning_rule", "reward_assignment", "promotion_tier",
                                 "distribution"]
    created_at: Timestamp
    object: Literal["validation_rules_assignment"] = "validation_rules_assignment"


class ValidationRulesAssignmentList(WireModel):
    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[ValidationRulesAssignment]
    total: NonNegativeInt64
