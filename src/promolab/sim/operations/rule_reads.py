"""Reading validation rules and their assignments.

The simulator holds rules inline on their owners (tiers, code campaigns,
vouchers); the objects these lists page are synthesized from the owners
by `sim/validation_rule_objects.py`, the one place that decides their ids
and shape. Each list declares its `Listing` (sim/listing.py); paging,
ordering and the envelope are the listing's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...models import rule_reads
from ..fast_validate import validated
from ..listing import Listing, at_or_after, at_or_before, equals
from ..operation import bind
from ..refusals import NotFound
from ..validation_rule_objects import (
    RuleOwner,
    assignment_body,
    campaign_owner,
    rule_body,
    rule_owners,
    tier_owner,
    voucher_owner,
)

if TYPE_CHECKING:
    from ..simulator import Simulator


def _created(owner: RuleOwner) -> datetime | None:
    return owner.created_at


#: A rule is never changed after its owner was made, so `updated_at` sorts
#: as `created_at` does (docs/decisions.md, "Validation rules of a pull").
_BY_TIME: Mapping[str, Callable[[RuleOwner], Any]] = {"created_at": _created, "updated_at": _created}

RULES: Listing[RuleOwner] = Listing(
    rule_reads.LIST_VALIDATION_RULES, "data",
    sort={**_BY_TIME, "name": lambda owner: owner.name},
    filters={"start_date": at_or_after(_created), "end_date": at_or_before(_created)},
)
ASSIGNMENTS: Listing[RuleOwner] = Listing(
    rule_reads.LIST_VALIDATION_RULES_ASSIGNMENTS, "data",
    sort=_BY_TIME,
    filters={"related_object_id": equals(lambda owner: owner.id), "rule": equals(lambda owner: owner.rule_id)},
)


def list_validation_rules(sim: Simulator, /, **query: object) -> models.ValidationRuleList:
    return validated(models.ValidationRuleList, RULES.answer(rule_owners(sim.state), query, rule_body))


def _owner_of(sim: Simulator, rule_id: str) -> RuleOwner | None:
    """The owner whose rule is `rule_id` (`val_<owner id>`): a campaign, a tier or a voucher, in that order."""
    if not rule_id.startswith("val_"):
        return None
    owner_id = rule_id.removeprefix("val_")
    state = sim.state
    campaign, tier, voucher = state.campaigns.get(owner_id), state.tiers.get(owner_id), state.vouchers.get(owner_id)
    return ((campaign_owner(campaign) if campaign is not None else None)
            or (tier_owner(tier) if tier is not None else None)
            or (voucher_owner(voucher) if voucher is not None else None))


def get_validation_rule(sim: Simulator, *, rule_id: str) -> models.ValidationRule:
    owner = _owner_of(sim, rule_id)
    if owner is None:
        raise NotFound("validation_rules", rule_id)
    return validated(models.ValidationRule, rule_body(owner))


def list_validation_rules_assignments(sim: Simulator, /, **query: object) -> models.ValidationRuleAssignmentList:
    """Every assignment, or those of one object (`related_object_id`) or one rule (`rule`);
    an id that names nothing gives an empty page, as a filter does."""
    body = ASSIGNMENTS.answer(rule_owners(sim.state), query, assignment_body)
    return validated(models.ValidationRuleAssignmentList, body)


LIST_VALIDATION_RULES = bind(rule_reads.LIST_VALIDATION_RULES, list_validation_rules, write=False)
GET_VALIDATION_RULE = bind(rule_reads.GET_VALIDATION_RULE, get_validation_rule, write=False)
LIST_VALIDATION_RULES_ASSIGNMENTS = bind(rule_reads.LIST_VALIDATION_RULES_ASSIGNMENTS,
                                         list_validation_rules_assignments, write=False)

#: This family's operations, in the order of `rule_reads.READS`.
READS = (LIST_VALIDATION_RULES, GET_VALIDATION_RULE, LIST_VALIDATION_RULES_ASSIGNMENTS)
