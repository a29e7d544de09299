"""The validation rules of a pulled project, written back into the objects they govern.

The service keeps a rule as an object of its own (`val_...`) assigned to
tiers, campaigns and codes (`asgm_...`); a scenario holds a rule inline, on
its owner, where the pricing engine reads it. So the rules and their
assignments are read whole and each assignment gives its owner the rule's
`validation_rules` and `applicable_to` (`sim.inline_terms`: the inverse of
how the simulator serves them). An owner can hold one rule inline: a second
one assigned to it is reported, as is an assignment naming a rule the list
does not hold, or an owner the scenario has no place for (an earning rule,
a distribution).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import rule_reads
from ..sim import InlineTerms, inline_terms
from .reader import Reader
from .unexpressed import Unexpressed
from .walk import walk

__all__ = ["Rules", "read_rules"]

#: The owners a scenario writes a rule into.
_OWNERS = frozenset({"promotion_tier", "campaign", "voucher"})


@dataclass(frozen=True, slots=True)
class Rules:
    """Each owner's inline terms (by the owner's id), and what could not be written back."""

    terms: dict[str, InlineTerms]
    unexpressed: list[Unexpressed]


def read_rules(reader: Reader) -> Rules:
    rules = {rule.id: rule for rule in walk(reader, rule_reads.LIST_VALIDATION_RULES)}
    terms: dict[str, InlineTerms] = {}
    out: list[Unexpressed] = []
    for assignment in walk(reader, rule_reads.LIST_VALIDATION_RULES_ASSIGNMENTS):
        owner, kind = assignment.related_object_id, assignment.related_object_type
        rule = rules.get(assignment.rule_id)
        if rule is None:
            out.append(Unexpressed(kind, owner, "validation_rules",
                                   f"its rule {assignment.rule_id} is not in the rules list"))
        elif kind not in _OWNERS:
            out.append(Unexpressed(kind, owner, "validation_rules",
                                   f"a scenario's {kind} has no rules of its own: {rule.id} left out"))
        elif owner in terms:
            out.append(Unexpressed(kind, owner, "validation_rules",
                                   f"a scenario's {kind} holds one rule: {rule.id} (a second) left out"))
        else:
            terms[owner] = inline_terms(rule.model_dump(mode="json", exclude_none=True))
    return Rules(terms, out)
