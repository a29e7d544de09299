"""What a comparison is asked: the policies as stacking rules, the redeemables as a request names them.

A policy is the project's stacking rules with some settings changed (a
mapping of the fields that differ), or a whole `StackingRules`. Each is
checked like the management API checks a change (the model's own
validation), so a policy the service would refuse is refused here, naming
the policy. The redeemables are parsed with the request model and checked
with the simulator's own request-level checks (`check_redeemables`): a
request the service would refuse (too many for a policy's
`redeemables_limit`, one named twice) is refused here too, rather than
reported as priced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pydantic

from ... import models
from ...sim import SimError, check_redeemables, stacking_rules_in_force

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["DEFAULT_POLICIES", "parse_redeemables", "policy_rules"]

#: The policies compared when none are given: the project's rules, and each
#: setting that changes amounts flipped alone.
DEFAULT_POLICIES: dict[str, dict[str, Any]] = {
    "project": {},
    "partial": {"redeemables_application_mode": "PARTIAL"},
    "initial": {"discount_calculation_mode": "INITIAL_AMOUNT"},
    "once": {"redeemables_products_application_mode": "ONCE"},
    "hierarchy": {"redeemables_sorting_rule": "CATEGORY_HIERARCHY"},
}


def policy_rules(sim: Simulator, policies: Mapping[str, Any] | None) -> dict[str, models.StackingRules]:
    """Each policy's full stacking rules: the project's with the policy's changes."""
    base = stacking_rules_in_force(sim)
    chosen = DEFAULT_POLICIES if policies is None else policies
    if not chosen:
        raise ValueError("policies: at least one policy is needed")
    out: dict[str, models.StackingRules] = {}
    fields = set(models.StackingRules.model_fields)
    for name, change in chosen.items():
        if isinstance(change, models.StackingRules):
            out[str(name)] = models.StackingRules.model_validate(change.settings())
            continue
        if not isinstance(change, Mapping):
            raise TypeError(f"policy {name!r}: a mapping of stacking-rules settings or a StackingRules")
        unknown = sorted(set(change) - fields)
        if unknown:
            raise ValueError(f"policy {name!r}: unknown stacking-rules setting(s) {', '.join(map(str, unknown))}")
        try:
            out[str(name)] = models.StackingRules.model_validate({**base.settings(), **change})
        except pydantic.ValidationError as exc:
            raise ValueError(f"policy {name!r}: {exc.errors()[0]['msg']} ({exc.errors()[0]['loc']})") from None
    return out


def parse_redeemables(
    redeemables: Sequence[Any], rules: Mapping[str, models.StackingRules]
) -> list[models.RedeemableInput]:
    """The redeemables as the request model reads them, refused as the service
    would refuse the request under any of the policies."""
    if isinstance(redeemables, str | Mapping) or not redeemables:
        raise ValueError("redeemables: a non-empty list of {'object': ..., 'id': ...} mappings")
    parsed = [r if isinstance(r, models.RedeemableInput) else models.RedeemableInput.model_validate(r)
              for r in redeemables]
    for name, policy in rules.items():
        try:
            check_redeemables(parsed, policy)
        except SimError as exc:
            raise ValueError(f"policy {name!r} refuses the request: {exc.details}") from None
    return parsed
