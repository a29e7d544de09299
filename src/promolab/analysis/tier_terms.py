"""A tier's terms read and rewritten: its minimum order amount.

The what-if widgets (a slider on the threshold) and the optimizer (a grid of
thresholds) both rewrite a tier's `order.amount` minimum; one implementation
here, so the two never disagree on which rule is "the" threshold or how a
tier without one gets it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["min_amount_of", "with_min_amount"]

_MIN_OPERATORS = ("$more_than", "$more_than_or_equal")


def _threshold(rule: Mapping[str, Any]) -> tuple[str, int] | None:
    """(operator, cents) of a simple `order.amount` minimum rule, else None."""
    if rule.get("name") != "order.amount" or rule.get("property"):
        return None
    conditions = rule.get("conditions") or {}
    if len(conditions) != 1:
        return None
    ((operator, values),) = conditions.items()
    if operator not in _MIN_OPERATORS or not isinstance(values, list | tuple) or len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return operator, int(value)


def _rules_body(rules: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict((rules or {}).get("rules") or {})


def _minimum_rule(rules: Mapping[str, Any] | None) -> tuple[str, str, int] | None:
    """(key, operator, cents) of THE minimum-amount rule, when the tier's rules
    have exactly one and it is required (the logic is that rule alone or an
    `and` of rules)."""
    body = _rules_body(rules)
    found = [(k, *t) for k, r in body.items() if k != "logic" and isinstance(r, Mapping) and (t := _threshold(r))]
    if len(found) != 1:
        return None
    key = found[0][0]
    logic = str(body.get("logic", key))
    keys_in_logic = re.findall(r"[A-Za-z0-9_]+", logic)
    words = {w.lower() for w in keys_in_logic if not w.isdigit() and w not in body}
    if key not in keys_in_logic or words - {"and"}:
        return None
    return found[0]


def min_amount_of(rules: Mapping[str, Any] | None) -> int | None:
    """The minimum order amount (cents) a tier's rules require, when they hold
    one simple `order.amount` threshold that every order must pass."""
    found = _minimum_rule(rules)
    return None if found is None else found[2]


def with_min_amount(rules: Mapping[str, Any] | None, cents: int | None) -> dict[str, Any] | None:
    """The rules with the minimum order amount set to `cents`.

    The tier's own threshold rule keeps its operator (`$more_than` stays
    strict); a tier without one gets an `order.amount $more_than_or_equal`
    rule `and`-ed to its logic. None (or 0 on a tier without a threshold)
    leaves the rules unchanged.
    """
    copy = {k: v for k, v in (rules or {}).items()} if rules else None
    if cents is None:
        return copy
    found = _minimum_rule(rules)
    body = _rules_body(rules)
    if found is not None:
        key, operator, _ = found
        body[key] = {**body[key], "conditions": {operator: [int(cents)]}}
    else:
        if cents == 0:
            return copy
        numeric = [int(k) for k in body if k.isdigit()]
        key = str(max(numeric, default=0) + 1)
        old = body.get("logic")
        body[key] = {"name": "order.amount", "conditions": {"$more_than_or_equal": [int(cents)]}}
        body["logic"] = f"({old}) and {key}" if old else key
    return {**(copy or {}), "rules": body}
