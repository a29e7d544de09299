"""The read endpoints of a pull for validation rules and their assignments.

Query declared here (from `list_params`), carried out by `sim/listing.py`;
what each answers is in docs/reads.md, which ids the simulator gives the
rules it holds inline in docs/decisions.md ("Validation rules of a pull").
"""

from __future__ import annotations

from typing import Any

from .endpoint import Endpoint, Param
from .list_params import CREATED_BETWEEN, LIMIT, PAGE, order_param
from .validation_rules import ValidationRule, ValidationRuleAssignmentList, ValidationRuleList

__all__ = [
    "GET_VALIDATION_RULE",
    "LIST_VALIDATION_RULES",
    "LIST_VALIDATION_RULES_ASSIGNMENTS",
    "READS",
]

LIST_VALIDATION_RULES: Endpoint[ValidationRuleList] = Endpoint(
    "list_validation_rules", "GET", "/v1/validation-rules", "app", "listValidationRules", "List validation rules",
    ValidationRuleList, query=(LIMIT, PAGE, order_param("created_at", "updated_at", "name"), *CREATED_BETWEEN),
    tags=("validation rules",), idempotent=True,
)
GET_VALIDATION_RULE: Endpoint[ValidationRule] = Endpoint(
    "get_validation_rule", "GET", "/v1/validation-rules/{validationRuleId}", "app", "getValidationRule",
    "Get a validation rule", ValidationRule, path_params=(Param("validationRuleId", "rule_id"),),
    tags=("validation rules",), idempotent=True,
)
LIST_VALIDATION_RULES_ASSIGNMENTS: Endpoint[ValidationRuleAssignmentList] = Endpoint(
    "list_validation_rules_assignments", "GET", "/v1/validation-rules-assignments", "app",
    "listValidationRulesAssignments", "List validation rules' assignments", ValidationRuleAssignmentList,
    query=(
        Param("related_object_id", "related_object_id", "string", "Only the assignments of this object (id)."),
        Param("rule", "rule", "string", "Only the assignments of this rule (id)."),
        PAGE, LIMIT, order_param("created_at"),
    ), tags=("validation rules",), idempotent=True,
)

#: The read endpoints of validation rules, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (LIST_VALIDATION_RULES, GET_VALIDATION_RULE, LIST_VALIDATION_RULES_ASSIGNMENTS)
