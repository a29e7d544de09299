"""Every reference a scenario makes, checked against what it defines: one table.

A scenario names its entities by id from many places: a collection lists
products, a tier's `applicable_to` and its validation rules name products,
SKUs, collections and segments, a stack names tiers, a program's cards name
card definitions. A name the scenario does not define would load silently and
then match nothing (`id: prod_mugg` in an `applicable_to` discounts no line),
so the loader checks every reference here, after the document passes the
schema and before anything is built, and reports every dangling one at once,
each at its path with the nearest defined id of its kind.

Two tables say it all:

- `KINDS`: each kind of entity -> the document paths that define its ids.
- `PLACES`: each path that references entities -> the kinds it may name, or a
  reader (`Reader`) that finds the references inside a structured value (an
  `applicable_to`, a validation-rule object).

A path pattern is dotted, `[*]` stands for every item of a list and `*` for
every value of a mapping. A new kind or a new place is one line of a table
(docs/scenarios.md, *References*): a code's scope, for one, is
`Place("campaigns[*].vouchers[*].applicable_to", APPLICABLE_TO)`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from .issues import ScenarioIssue, format_loc

__all__ = ["APPLICABLE_TO", "KINDS", "PLACES", "RULES", "Dangling", "Place", "Ref", "dangling_references"]

Loc = tuple[int | str, ...]

#: Each kind of entity a scenario defines -> the paths of its ids.
KINDS: dict[str, tuple[str, ...]] = {
    "product": ("catalogue.products[*].id",),
    "product source_id": ("catalogue.products[*].source_id",),
    "SKU": ("catalogue.products[*].skus[*].id",),
    "SKU source_id": ("catalogue.products[*].skus[*].source_id",),
    "collection": ("catalogue.collections[*].id",),
    "customer": ("customers[*].id", "customers[*].source_id"),
    "segment": ("segments[*].id",),
    "campaign": ("campaigns[*].id",),
    "promotion tier": ("campaigns[*].tiers[*].id",),
    "category": ("categories[*].id",),
    "event": ("event_schema[*].name",),
    "reward": ("loyalty.rewards[*].id",),
    "incentive": ("loyalty.incentives[*].id",),
    "program": ("loyalty.programs[*].id",),
    "card definition": ("loyalty.programs[*].card_definitions[*].id",),
}


class Ref(NamedTuple):
    """One reference found inside a value: where (below the place), the kinds
    it may name (the first names it in the message) and the id it gives. A
    tuple: a scenario of 40,000 customers makes as many."""

    loc: Loc
    kinds: tuple[str, ...]
    id: Any


#: Finds the references inside the value at a place.
Reader = Callable[[Any], Iterator[Ref]]

#: What an `applicable_to` entry's `object` names, by its `id` and by its `source_id`.
_SCOPE_OBJECTS = {
    "product": ("product", "product source_id"),
    "sku": ("SKU", "SKU source_id"),
    "products_collection": ("collection", None),
}


def _applicable_to(value: Any) -> Iterator[Ref]:
    """`{included: [entry...], excluded: [entry...]}` (engine/scope.py): each
    entry's `id` (or `source_id`) by its `object`, and a SKU entry's product."""
    if not isinstance(value, Mapping):
        return
    for side in ("included", "excluded"):
        entries = value.get(side)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(entry, Mapping) or entry.get("object") not in _SCOPE_OBJECTS:
                continue  # the tier's compilation refuses it, with its own message
            by_id, by_source = _SCOPE_OBJECTS[entry["object"]]
            if entry.get("id") is not None:
                yield Ref((side, i, "id"), (by_id,), entry["id"])
            elif by_source is not None and entry.get("source_id") is not None:
                yield Ref((side, i, "source_id"), (by_source,), entry["source_id"])
            if entry.get("product_id") is not None:
                yield Ref((side, i, "product_id"), ("product",), entry["product_id"])
            if entry.get("product_source_id") is not None:
                yield Ref((side, i, "product_source_id"), ("product source_id",), entry["product_source_id"])


#: The rule families whose conditions name entities (engine/rules.py,
#: engine/item_rules.py) -> the kind of a plain id (None: read from the id's
#: prefix, or any catalogue kind).
_RULE_TARGETS: dict[str, str | None] = {
    "order.items.any": None,
    "order.items.every": None,
    "order.items.none": None,
    "product.id": "product",
    "sku.id": "SKU",
    "products_collection.id": "collection",
    "customer.segment": "segment",
}
_TARGET_OPERATORS = ("$in", "$is", "$not_in", "$is_not")
_PREFIXES = (("sku_", "SKU"), ("pc_", "collection"), ("prod_", "product"))
_ANY_CATALOGUE = ("product", "SKU", "collection")
_TARGET_OBJECTS = {"product": "product", "sku": "SKU", "products_collection": "collection"}
_TARGET_SOURCES = {"product": "product source_id", "sku": "SKU source_id"}


def _target(loc: Loc, target: Any, family_kind: str | None) -> Iterator[Ref]:
    """A rule's target: a plain id, or `{id | source_id, object?}`, with the
    engine's reading of its kind (the object, the family, the id's prefix)."""
    if isinstance(target, Mapping):
        obj = target.get("object")
        kind = _TARGET_OBJECTS.get(obj, family_kind) if obj is not None else family_kind
        if target.get("id") is not None:
            yield Ref((*loc, "id"), _kinds_of(target["id"], kind), target["id"])
        elif target.get("source_id") is not None and obj in _TARGET_SOURCES:
            yield Ref((*loc, "source_id"), (_TARGET_SOURCES[obj],), target["source_id"])
    elif target is not None:
        yield Ref(loc, _kinds_of(target, family_kind), target)


def _kinds_of(target: Any, kind: str | None) -> tuple[str, ...]:
    if kind is not None:
        return (kind,)
    for prefix, prefixed in _PREFIXES:
        if isinstance(target, str) and target.startswith(prefix):
            return (prefixed,)
    return _ANY_CATALOGUE


def _rules(value: Any) -> Iterator[Ref]:
    """A validation-rule object `{rules: {"1": {name, conditions}, ...}}`:
    the products, SKUs, collections and segments its conditions name."""
    rules = value.get("rules") if isinstance(value, Mapping) else None
    if not isinstance(rules, Mapping):
        return
    for key, rule in rules.items():
        if not isinstance(rule, Mapping) or rule.get("name") not in _RULE_TARGETS:
            continue
        conditions = rule.get("conditions")
        if not isinstance(conditions, Mapping):
            continue
        family_kind = _RULE_TARGETS[rule["name"]]
        for op in _TARGET_OPERATORS:
            if op not in conditions:
                continue
            raw, at = conditions[op], ("rules", key, "conditions", op)
            targets = enumerate(raw) if isinstance(raw, list) else [(None, raw)]
            for i, target in targets:
                yield from _target(at if i is None else (*at, i), target, family_kind)


APPLICABLE_TO: Reader = _applicable_to
RULES: Reader = _rules


def _keys(kind: str) -> Reader:
    """The keys of a mapping, each naming a `kind` (`{cat_a: 2}`)."""

    def read(value: Any) -> Iterator[Ref]:
        for key in value if isinstance(value, Mapping) else ():
            yield Ref((key,), (kind,), key)

    return read


@dataclass(frozen=True, slots=True)
class Place:
    """A path whose values reference entities: of `names` (kinds, the first
    naming it in messages), or found by a `Reader`. With `within`, the ids
    must be defined under the same enclosing entity (a program's cards name
    that program's card definitions, a stack its campaign's tiers)."""

    pattern: str
    names: tuple[str, ...] | Reader
    within: str | None = None


_CATEGORY_LISTS = (
    "exclusive_categories", "joint_categories", "initial_amount_mode_categories",
    "discounted_amount_mode_categories", "no_effect_skip_categories", "no_effect_redeem_anyway_categories",
)

#: Every place of a scenario that references entities.
PLACES: tuple[Place, ...] = (
    Place("catalogue.collections[*].products[*]", ("product", "product source_id")),
    Place("catalogue.collections[*].skus[*]", ("SKU",)),
    Place("segments[*].customers[*]", ("customer",)),
    Place("campaigns[*].categories[*]", ("category",)),
    Place("campaigns[*].category_id", ("category",)),
    Place("campaigns[*].tiers[*].categories[*]", ("category",)),
    Place("campaigns[*].tiers[*].applicable_to", APPLICABLE_TO),
    Place("campaigns[*].tiers[*].validation_rules", RULES),
    # a code's terms: its campaign's, or its own (sim/promotions.code_terms)
    Place("campaigns[*].applicable_to", APPLICABLE_TO),
    Place("campaigns[*].validation_rules", RULES),
    Place("campaigns[*].vouchers[*].applicable_to", APPLICABLE_TO),
    Place("campaigns[*].vouchers[*].validation_rules", RULES),
    Place("campaigns[*].stacks[*].tiers[*]", ("promotion tier",), within="campaigns[*]"),
    Place("campaigns[*].vouchers[*].holder", ("customer",)),
    Place("campaigns[*].referral.conversion_event", ("event",)),
    Place("campaigns[*].referral.referrer_reward.program_id", ("program",)),
    Place("campaigns[*].referral.referrer_reward.card_definition_id", ("card definition",)),
    Place("campaigns[*].referral.referrer_reward.campaign_id", ("campaign",)),
    # a reward and an incentive give the same things: a code of a campaign, a product or a SKU
    *(Place(f"loyalty.{section}[*].{path}", (kind,)) for section in ("rewards", "incentives") for path, kind in (
        ("digital.*.campaign_id", "campaign"), ("material.product.id", "product"), ("material.sku.id", "SKU"),
        ("material.sku.product_id", "product"))),
    Place("loyalty.incentives[*].points.card_definition_id", ("card definition",)),
    Place("loyalty.incentives[*].points_proportional.card_definition_id", ("card definition",)),
    Place("loyalty.programs[*].members[*].customer", ("customer",)),
    Place("loyalty.programs[*].members[*].cards[*].card_definition", ("card definition",), within="loyalty.programs[*]"),
    Place("loyalty.programs[*].rewards[*].reward", ("reward",)),
    Place("loyalty.programs[*].rewards[*].costs[*].card_definition", ("card definition",),
          within="loyalty.programs[*]"),
    Place("loyalty.programs[*].earning_rules[*].incentive", ("incentive",)),
    Place("loyalty.programs[*].earning_rules[*].event", ("event",)),
    Place("loyalty.programs[*].earning_rules[*].validation_rules", RULES),
    *(Place(f"project.stacking_rules.{name}[*]", ("category",)) for name in _CATEGORY_LISTS),
    Place("project.stacking_rules.applicable_redeemables_category_limits", _keys("category")),
)


# -- the walk ---------------------------------------------------------------

_EVERY_ITEM = "[*]"
_EVERY_VALUE = "*"


def _steps(pattern: str) -> tuple[str, ...]:
    """`a[*].b.*` -> `("a", "[*]", "b", "*")`."""
    return tuple(step for part in pattern.split(".") for step in part.replace("[*]", ".[*]").split(".") if step)


def _matches(node: Any, steps: tuple[str, ...]) -> list[tuple[Loc, Any]]:
    """Every (loc, value) of `node` at the pattern's `steps` (absent and null
    values are none), step by step over the whole frontier: a list of 40,000
    customers is one loop, not 40,000 nested generators."""
    frontier: list[tuple[Loc, Any]] = [((), node)] if node is not None else []
    k = 0
    while k < len(steps):
        step = steps[k]
        field = steps[k + 1] if k + 1 < len(steps) else None
        k += 1
        following: list[tuple[Loc, Any]] = []
        if step == _EVERY_ITEM and field is not None and field not in (_EVERY_ITEM, _EVERY_VALUE):
            # `[*].field` in one step: 100,000 codes of which 10,000 have a
            # holder make 10,000 entries, not 100,000 first.
            k += 1
            for loc, value in frontier:
                if isinstance(value, list):
                    following.extend(((*loc, i, field), item[field]) for i, item in enumerate(value)
                                     if (type(item) is dict or isinstance(item, Mapping))
                                     and item.get(field) is not None)
            frontier = following
            continue
        for loc, value in frontier:
            if step == _EVERY_ITEM:
                if isinstance(value, list):
                    following.extend(((*loc, i), item) for i, item in enumerate(value) if item is not None)
            elif isinstance(value, dict) or isinstance(value, Mapping):  # noqa: SIM101 - dict first: the ABC check costs
                if step == _EVERY_VALUE:
                    following.extend(((*loc, key), item) for key, item in value.items() if item is not None)
                elif value.get(step) is not None:
                    following.append(((*loc, step), value[step]))
        frontier = following
    return frontier


def _defined(document: Mapping[str, Any]) -> dict[str, list[tuple[Loc, str]]]:
    """Each kind -> (where, id) of every id the document defines for it."""
    return {
        kind: [(loc, value) for pattern in patterns for loc, value in _matches(document, _steps(pattern))
               if isinstance(value, str)]
        for kind, patterns in KINDS.items()
    }


def _found(document: Mapping[str, Any], place: Place) -> Iterator[Ref]:
    for loc, value in _matches(document, _steps(place.pattern)):
        if callable(place.names):
            for ref in place.names(value):
                yield Ref((*loc, *ref.loc), ref.kinds, ref.id)
        else:
            yield Ref(loc, place.names, value)


def _problem(ref: Ref, candidates: list[str], scope: str | None, elsewhere: bool) -> str:
    nouns = list(dict.fromkeys(k.removesuffix(" source_id") for k in ref.kinds))
    noun = " or ".join(nouns) if len(nouns) < 3 else f"{', '.join(nouns[:-1])} or {nouns[-1]}"
    if elsewhere:  # defined, but under another entity than the one that must hold it
        problem = f"{ref.id!r} is not a {noun} of {scope}"
    else:
        problem = f"unknown {noun} {ref.id!r}" + (f" in {scope}" if scope else "")
    if not isinstance(ref.id, str):
        return f"{problem}: an id is text"
    near = difflib.get_close_matches(ref.id, candidates, n=1)
    if near:
        return f"{problem}; did you mean {near[0]!r}?"
    if not candidates:
        return f"{problem}: the scenario defines none" + (" there" if scope else "")
    return problem


@dataclass(frozen=True, slots=True)
class Dangling:
    """What the check found: one issue per dangling reference (in the order of
    `PLACES`), and the ids they name, which the build then skips (each is
    reported once, here, with its suggestion)."""

    issues: tuple[ScenarioIssue, ...]
    ids: frozenset[str]


def dangling_references(document: Mapping[str, Any]) -> Dangling:
    """Every reference to an id the document does not define, each with the
    nearest defined id of its kinds."""
    defined = _defined(document)
    #: (kinds, depth of `within`) -> scope -> ids: sets, so that 40,000
    #: members naming 40,000 customers cost 40,000 lookups.
    indexes: dict[tuple[tuple[str, ...], int], dict[Loc, set[str]]] = {}
    issues, ids = [], set()
    for place in PLACES:
        within = len(_steps(place.within)) if place.within else 0
        for ref in _found(document, place):
            scope = ref.loc[:within]
            index = indexes.get((ref.kinds, within))
            if index is None:
                index = indexes[(ref.kinds, within)] = {}
                for kind in ref.kinds:
                    for loc, ident in defined[kind]:
                        index.setdefault(loc[:within], set()).add(ident)
            candidates = index.get(scope, set())
            if not isinstance(ref.id, str) or ref.id not in candidates:
                elsewhere = isinstance(ref.id, str) and any(ref.id in idents for idents in index.values())
                shown_scope = format_loc(scope) if within else None
                problem = _problem(ref, sorted(candidates), shown_scope, elsewhere)
                issues.append(ScenarioIssue(format_loc(ref.loc), problem))
                ids.add(str(ref.id))
    return Dangling(tuple(issues), frozenset(ids))
