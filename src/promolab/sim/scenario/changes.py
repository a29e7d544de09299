"""`with_changes`: a scenario with a few values changed, checked like a file.

The question an analyst asks of a scenario is "what if this tier gave 12%
instead of 10%?", and the answer is a forecast or a sweep of the changed
scenario against the original. Written by hand that is a deep copy of the
document and a loop over campaigns to find the tier; a typo in a key then
changes nothing and the comparison shows no difference. Here each change
names what it changes by id (`tiers.<tier id>.discount.percent_off`) and a
path that names nothing, or a value the scenario format refuses, raises a
`ScenarioError` naming the change, before any simulator exists.

The paths (docs/scenarios.md, *Changed copies*):

- `tiers.<tier id>.<field>[.<key or index>...]`: a promotion tier of any campaign;
- `campaigns.<campaign id>.<field>[...]`: a campaign;
- `stacking_rules.<field>[...]`: the project's stacking rules.

A path is a dotted string, or a tuple of its parts when a key holds a dot
(metadata keys may). The first field after the id may be any field the
format knows for that entity, given or not (`tiers.x.validation_rules`);
below it every key must exist already (set the enclosing value whole to add
one), because a key that is not there is far more often a typo than a wish.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...models import StackingRulesChange
from ..ids import IdGenerator
from . import schema
from .issues import ScenarioError, ScenarioIssue, format_loc
from .loader import load_scenario, read_scenario
from .tables import with_tables

__all__ = ["ChangePath", "with_changes"]

#: A change's path: `"tiers.promo_vip_10pct.discount.percent_off"`, or its parts.
ChangePath = str | tuple[str | int, ...]

#: What a change may start with, and the fields each entity has in the format.
_ENTITIES: dict[str, frozenset[str]] = {
    "tiers": frozenset(schema.PromotionTierSpec.model_fields),
    "campaigns": frozenset(schema.CampaignSpec.model_fields),
    "stacking_rules": frozenset(StackingRulesChange.model_fields),
}
#: Any instant does: the check loads the changed scenario only to refuse it.
_CHECK_INSTANT = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class _Applied:
    """One change as applied: how the caller wrote it, where it landed."""

    shown: str
    loc: tuple[int | str, ...]
    value: Any

    @property
    def document_path(self) -> str:
        return format_loc(self.loc)


def with_changes(
    scenario: str | Path | Mapping[str, Any], changes: Mapping[ChangePath, Any]
) -> dict[str, Any]:
    """A new scenario document: `scenario` (a file or a document, left as it
    was) with each path of `changes` set to its value, checked by loading it.

    `Simulator.from_scenario(with_changes(...))` is the changed project; give
    both to `compare_scenarios` or sweep both. Raises `ScenarioError` naming
    the change for a path that names nothing, and for a value the scenario
    format refuses (with the loader's reason)."""
    document, origin = read_scenario(scenario)
    document = with_tables(document, origin)  # the copy holds its tables' rows: it stands alone
    label = f"{origin} (changed)"
    if not changes:
        raise ScenarioError(label, "", "no changes given: a changed copy needs at least one path and value")
    changed = copy.deepcopy(dict(document))  # a plain document: the file's lines are not the copy's
    applied = [_apply(changed, path, value, label) for path, value in changes.items()]
    try:
        load_scenario(changed, ids=IdGenerator(0), now=_CHECK_INSTANT, origin=label)
    except ScenarioError as exc:
        raise ScenarioError.of(label, [_blame(issue, applied) for issue in exc.issues]) from None
    return changed


def _parts(path: ChangePath, label: str) -> tuple[str, tuple[str | int, ...]]:
    parts: tuple[str | int, ...] = tuple(path.split(".")) if isinstance(path, str) else tuple(path)
    shown = ".".join(str(p) for p in parts)
    if any(p == "" for p in parts):
        raise ScenarioError(label, shown, "an empty part in the path (two dots, or a dot at an end)")
    return shown, parts


def _apply(document: dict[str, Any], path: ChangePath, value: Any, label: str) -> _Applied:
    shown, parts = _parts(path, label)
    kind, rest = str(parts[0]), parts[1:]
    if kind not in _ENTITIES:
        raise ScenarioError(label, shown, f"a change starts with {_choices(kind, _ENTITIES)}, not {kind!r}")
    node, loc, rest = _entity(document, kind, rest, shown, label)
    if not rest:
        raise ScenarioError(label, shown, f"name a field to change after {'.'.join(map(str, parts))}: "
                                          f"one of {', '.join(sorted(_ENTITIES[kind]))}")
    field, below = str(rest[0]), rest[1:]
    if field not in _ENTITIES[kind]:
        raise ScenarioError(label, shown, f"the {_what(kind)} has no field {field!r}; {_near(field, _ENTITIES[kind])}")
    if kind != "stacking_rules" and field == "id":
        raise ScenarioError(label, shown, f"the id names the {_what(kind)}: a change of it is another entity")
    if not below:
        node[field] = copy.deepcopy(value)
        return _Applied(shown, (*loc, field), value)
    if field not in node:
        raise ScenarioError(label, shown, f"the {_what(kind)} has no {field!r} given: set {'.'.join(map(str, parts[:-len(below)]))} whole")
    container: Any = node[field]
    loc = (*loc, field)
    first_below = len(parts) - len(below)
    for i, step in enumerate(below):
        where = ".".join(map(str, parts[: first_below + i]))  # the change's own words, not the document's
        key = _step(container, step, where, shown, label)
        if i == len(below) - 1:
            container[key] = copy.deepcopy(value)
        else:
            container = container[key]
        loc = (*loc, key)
    return _Applied(shown, loc, value)


def _entity(
    document: dict[str, Any], kind: str, rest: tuple[str | int, ...], shown: str, label: str
) -> tuple[dict[str, Any], tuple[int | str, ...], tuple[str | int, ...]]:
    """The entity's mapping in the document, its location, and the path below it."""
    if kind == "stacking_rules":
        project = document.setdefault("project", {})
        if not isinstance(project, dict):
            raise ScenarioError(label, shown, "the scenario's project is not a mapping")
        rules = project.get("stacking_rules")
        if rules is None:
            rules = project["stacking_rules"] = {}
        return rules, ("project", "stacking_rules"), rest
    if not rest:
        raise ScenarioError(label, shown, f"name the {_what(kind)} by its id after {kind!r}")
    wanted, rest = str(rest[0]), rest[1:]
    found: dict[str, tuple[dict[str, Any], tuple[int | str, ...]]] = {}
    for c, campaign in enumerate(document.get("campaigns") or []):
        if kind == "campaigns":
            found.setdefault(str(campaign.get("id")), (campaign, ("campaigns", c)))
            continue
        for t, tier in enumerate(campaign.get("tiers") or []):
            found.setdefault(str(tier.get("id")), (tier, ("campaigns", c, "tiers", t)))
    if wanted not in found:
        known = sorted(k for k in found if k != "None")
        raise ScenarioError(label, shown, f"no {_what(kind)} with id {wanted!r}; {_near(wanted, known)}")
    node, loc = found[wanted]
    return node, loc, rest


def _step(container: Any, step: str | int, where: str, shown: str, label: str) -> str | int:
    """The key or index `step` names in `container` (at `where`), which must hold it already."""
    if isinstance(container, dict):
        key = str(step)
        if key not in container:
            raise ScenarioError(label, shown, f"{where} has no key {key!r}; {_near(key, list(container))} "
                                              f"(set {where} whole to add one)")
        return key
    if isinstance(container, list):
        try:
            index = int(step)
        except ValueError:
            raise ScenarioError(label, shown, f"{where} is a list: {step!r} is not an index") from None
        if not 0 <= index < len(container):
            raise ScenarioError(label, shown, f"{where} has {len(container)} entries: no index {index}")
        return index
    raise ScenarioError(label, shown, f"{where} is {container!r}, which holds no {step!r}")


def _blame(issue: ScenarioIssue, applied: Sequence[_Applied]) -> ScenarioIssue:
    """The loader's problem told as the change's that caused it: the change
    whose place shares the most of the issue's path (two parts at least:
    the same tier, the same stacking rules). The loader may report a refused
    value below it (a discount's variant: `discount.PERCENT.percent_off`),
    at the entity, or at a field checked against it (`applicable_redeemables_limit`
    must not exceed a changed `redeemables_limit`)."""
    at = _segments(issue.path)
    best, shared = None, 1
    for change in applied:
        common = 0
        for mine, theirs in zip(_segments(change.document_path), at, strict=False):
            if mine != theirs:
                break
            common += 1
        if common > shared:
            best, shared = change, common
    if best is None:
        return issue
    return ScenarioIssue(best.shown, f"{best.value!r} refused: {issue.problem} (at {issue.path})")


def _segments(path: str) -> list[str]:
    """`campaigns[2].tiers[0].discount` -> `campaigns, 2, tiers, 0, discount`."""
    return re.findall(r"[^.\[\]]+", path)


def _what(kind: str) -> str:
    return {"tiers": "tier", "campaigns": "campaign", "stacking_rules": "stacking rules"}[kind]


def _choices(given: str, options: Mapping[str, Any] | Sequence[str]) -> str:
    return ", ".join(repr(o) for o in options) + f" ({_near(given, list(options))})"


def _near(given: str, known: Sequence[str] | frozenset[str]) -> str:
    close = difflib.get_close_matches(given, list(known), n=1)
    if close:
        return f"did you mean {close[0]!r}?"
    listed = sorted(known)
    return "known: " + (", ".join(listed[:12]) + (", ..." if len(listed) > 12 else "") if listed else "none")
