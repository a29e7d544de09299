"""Validation rules as the service keeps them, synthesized from the owners that hold them inline.

The simulator keeps a tier's, a campaign's or a voucher's rules where the
pricing engine reads them: on the owner, as its `validation_rules` mapping
(`{"rules": {..., "logic": ...}, "error": {...}}`) and its `applicable_to`
scope. The service keeps them as objects of their own (`val_...`), each
assigned to the object it governs (`asgm_...`), and a pull reads them
through the rule and assignment lists (`models.rule_reads`).
This module is the one place that turns an owner into those objects, and
a read rule back into an owner's inline mappings (`inline_terms`), so the
read endpoints, the answers that name a rule (a tier's, a campaign's or a
voucher's `validation_rule_assignments`) and the pull agree on every id.

Decided in docs/decisions.md ("Validation rules of a pull"): one rule per
owner that has a rule or a scope, `val_<owner id>`, assigned once,
`asgm_<owner id>`; both created when the owner was; the owner's `rules`
and `applicable_to` as the owner holds them, each scope entry with its
`effect` (the schema requires it; the engine has only `APPLY_TO_EVERY`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from .render._time import iso

if TYPE_CHECKING:
    from .records import Campaign, PromotionTier, Voucher
    from .state import State

__all__ = [
    "NO_SCOPE",
    "InlineTerms",
    "OwnerKind",
    "RuleOwner",
    "assignment_body",
    "assignment_id",
    "campaign_owner",
    "inline_terms",
    "rule_assignments",
    "rule_body",
    "rule_id",
    "rule_owners",
    "tier_owner",
    "voucher_owner",
]

#: `related_object_type` of an assignment: what kind of object holds the rule.
OwnerKind = Literal["campaign", "promotion_tier", "voucher"]

#: The scope the service shows on a rule without one.
NO_SCOPE: Mapping[str, Any] = {"excluded": [], "included": [], "included_all": False}
#: The only effect of a scope entry the engine has (and its default).
_EVERY = "APPLY_TO_EVERY"


def rule_id(owner_id: str) -> str:
    """The id of the rule an owner holds inline."""
    return f"val_{owner_id}"


def assignment_id(owner_id: str) -> str:
    """The id of the assignment of that rule to its owner."""
    return f"asgm_{owner_id}"


@dataclass(frozen=True, slots=True)
class RuleOwner:
    """A tier, campaign or voucher that holds a rule or a scope, with what its rule object shows."""

    kind: OwnerKind
    id: str
    #: The rule's name: the tier's or campaign's name, the voucher's code.
    name: str
    context_type: str
    created_at: datetime | None
    validation_rules: Mapping[str, Any] | None
    applicable_to: Mapping[str, Any] | None

    @property
    def rule_id(self) -> str:
        return rule_id(self.id)

    @property
    def assignment_id(self) -> str:
        return assignment_id(self.id)


def _has_rules(validation_rules: Mapping[str, Any] | None) -> bool:
    rules = (validation_rules or {}).get("rules")
    return isinstance(rules, Mapping) and any(key != "logic" for key in rules)


def _has_scope(applicable_to: Mapping[str, Any] | None) -> bool:
    return applicable_to is not None and bool(applicable_to.get("included") or applicable_to.get("excluded"))


def _owner(kind: OwnerKind, record: Campaign | PromotionTier | Voucher, name: str,
           context_type: str) -> RuleOwner | None:
    """The owner, or None when it holds neither a rule nor a scope (rules
    with no rule in them, an empty scope: the engine checks nothing for them,
    so no rule object stands for them)."""
    if not (_has_rules(record.validation_rules) or _has_scope(record.applicable_to)):
        return None
    return RuleOwner(kind, record.id, name, context_type, record.created_at, record.validation_rules,
                     record.applicable_to)


def tier_owner(tier: PromotionTier) -> RuleOwner | None:
    return _owner("promotion_tier", tier, tier.name, "campaign.promotion")


def campaign_owner(campaign: Campaign) -> RuleOwner | None:
    """A code campaign's rules and scope (a PROMOTION campaign has none of its own: its tiers do)."""
    return _owner("campaign", campaign, campaign.name, f"campaign.{campaign.type.lower()}")


def voucher_owner(voucher: Voucher) -> RuleOwner | None:
    """A voucher's own rules and scope (a code without them follows its campaign's rule)."""
    return _owner("voucher", voucher, voucher.code, f"voucher.{voucher.type.lower()}")


def rule_owners(state: State) -> Iterator[RuleOwner]:
    """Every owner of a rule, in the state's order: campaigns, then tiers, then vouchers."""
    for campaign in state.campaigns.values():
        if (owner := campaign_owner(campaign)) is not None:
            yield owner
    for tier in state.tiers.values():
        if (owner := tier_owner(tier)) is not None:
            yield owner
    for voucher in state.vouchers.values():
        # most codes hold nothing of their own (a pool's 100,000): skipped without a call
        if (voucher.validation_rules is not None or voucher.applicable_to is not None) and (
                owner := voucher_owner(voucher)) is not None:
            yield owner


def _rules(validation_rules: Mapping[str, Any] | None) -> dict[str, Any]:
    """The owner's `rules`, with a `logic` written beside them (which the
    engine reads too) moved inside, where the service keeps it."""
    given = validation_rules or {}
    rules = given.get("rules")
    out: dict[str, Any] = copy.deepcopy(dict(rules)) if isinstance(rules, Mapping) else {}
    beside = given.get("logic")
    if "logic" not in out and isinstance(beside, str):
        out["logic"] = beside
    return out


def _with_effect(entry: Any) -> Any:
    if isinstance(entry, Mapping) and "effect" not in entry:
        return {**copy.deepcopy(dict(entry)), "effect": _EVERY}
    return copy.deepcopy(entry)


def _scope(applicable_to: Mapping[str, Any] | None) -> dict[str, Any]:
    """The owner's scope as it holds it, each entry with its effect; the
    service's empty scope when it has none."""
    if not _has_scope(applicable_to):
        return copy.deepcopy(dict(NO_SCOPE))
    assert applicable_to is not None
    return {key: [_with_effect(e) for e in value] if key in ("included", "excluded") and isinstance(value, list)
            else copy.deepcopy(value) for key, value in applicable_to.items()}


def rule_body(owner: RuleOwner) -> dict[str, Any]:
    """The owner's rule as the rule reads answer it (the service's field order).

    `type` is `advanced` for a rule with conditions, `basic` for a scope
    alone; each rule has its one assignment."""
    body: dict[str, Any] = {"id": owner.rule_id, "name": owner.name, "rules": _rules(owner.validation_rules)}
    error = (owner.validation_rules or {}).get("error")
    if isinstance(error, Mapping):
        body["error"] = copy.deepcopy(dict(error))
    body["applicable_to"] = _scope(owner.applicable_to)
    body["created_at"] = iso(owner.created_at)
    body["type"] = "advanced" if _has_rules(owner.validation_rules) else "basic"
    body["context_type"] = owner.context_type
    body["assignments_count"] = 1
    body["object"] = "validation_rules"
    return body


def assignment_body(owner: RuleOwner) -> dict[str, Any]:
    """The rule's assignment to its owner, as the assignments list answers it."""
    return {
        "id": owner.assignment_id,
        "rule_id": owner.rule_id,
        "related_object_id": owner.id,
        "related_object_type": owner.kind,
        "created_at": iso(owner.created_at),
        "object": "validation_rules_assignment",
    }


def rule_assignments(owner: RuleOwner | None) -> dict[str, Any]:
    """An owner's rules as a campaign or a voucher lists them (`validation_rules_assignments`):
    its one assignment, as the assignments list serves it (same id, same instant), or an empty
    list for an owner without terms (`None` from `campaign_owner` / `voucher_owner`)."""
    data = [] if owner is None else [assignment_body(owner)]
    return {"object": "list", "data_ref": "data", "data": data, "total": len(data)}


@dataclass(frozen=True, slots=True)
class InlineTerms:
    """What an owner holds inline for a rule read from the service: its
    `validation_rules` and `applicable_to` (None: it holds none)."""

    validation_rules: dict[str, Any] | None
    applicable_to: dict[str, Any] | None


def inline_terms(rule: Mapping[str, Any]) -> InlineTerms:
    """A rule object (as `rule_body` writes it, or as the service does) as
    an owner's inline mappings, for a pull to write into the owner: the same
    checks, the same scope. A rule without conditions gives no
    `validation_rules`; the service's empty scope gives no `applicable_to`,
    and its `included_all: false` (which says nothing) is left out."""
    rules = rule.get("rules")
    validation_rules: dict[str, Any] | None = None
    if isinstance(rules, Mapping) and any(key != "logic" for key in rules):
        validation_rules = {"rules": copy.deepcopy(dict(rules))}
        error = rule.get("error")
        if isinstance(error, Mapping):
            validation_rules["error"] = copy.deepcopy(dict(error))
    scope = rule.get("applicable_to")
    applicable_to: dict[str, Any] | None = None
    if isinstance(scope, Mapping) and (_has_scope(scope) or scope.get("included_all")):
        applicable_to = {k: copy.deepcopy(v) for k, v in scope.items() if not (k == "included_all" and v is False)}
    return InlineTerms(validation_rules, applicable_to)
