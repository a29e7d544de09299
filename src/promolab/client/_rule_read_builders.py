"""What the client's read methods send for validation rules and their assignments.

Like `_read_builders.py` (whose `_read` and `Instant` these reuse), each
function turns a method's arguments into a `Prepared` call, the query named
as `models.rule_reads` declares it, values left out when None.
"""

from __future__ import annotations

from .. import models
from ..models import rule_reads as e
from ._read_builders import Instant, _read
from ._requests import Prepared

__all__ = ["get_validation_rule", "list_validation_rules", "list_validation_rules_assignments"]


def list_validation_rules(*, limit: int | None = None, page: int | None = None, order: str | None = None,
                          start_date: Instant = None, end_date: Instant = None) -> Prepared[models.ValidationRuleList]:
    """A page of validation rules (`order`: `created_at`, `updated_at` or `name`, default `-created_at`)."""
    return _read(e.LIST_VALIDATION_RULES, {}, limit=limit, page=page, order=order, start_date=start_date,
                 end_date=end_date)


def get_validation_rule(rule_id: str) -> Prepared[models.ValidationRule]:
    """One validation rule by id (`val_...`)."""
    return _read(e.GET_VALIDATION_RULE, {"rule_id": rule_id})


def list_validation_rules_assignments(*, related_object_id: str | None = None, rule: str | None = None,
                                      page: int | None = None, limit: int | None = None,
                                      order: str | None = None) -> Prepared[models.ValidationRuleAssignmentList]:
    """A page of assignments: all, those of one object (`related_object_id`), or of one rule (`rule`, its id)."""
    return _read(e.LIST_VALIDATION_RULES_ASSIGNMENTS, {}, related_object_id=related_object_id, rule=rule, page=page,
                 limit=limit, order=order)
